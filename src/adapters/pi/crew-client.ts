// A client of crew from inside another program: a `crew mcp` child process, called tool by tool.

import { type ChildProcess, spawn } from "node:child_process";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { crewPackagePath } from "../../config/crew-package.js";
import { CrewError, ErrorCode } from "../../core/errors.js";

/** Longest one call may take, in ms: above crew's own bounded waits (an agent in the foreground). */
const CALL_TIMEOUT_MS = 15 * 60_000;

/**
 * crew as seen from inside another program: a `crew mcp` child for one folder, started at the
 * first call and kept until `close`. crew's native modules are built for the Node that installed
 * it, which need not be the Node its host runs on (pi 1.x runs on Node 22): the child runs on the
 * `node` of `PATH` first, else the host's own, whichever can open crew's store.
 */
export class CrewClient {
	readonly #cwd: string;
	readonly #env: NodeJS.ProcessEnv;
	#client: Promise<Client> | undefined;
	/** The Node that runs crew here, once a child started. */
	#node: string | undefined;
	#dashboard: { readonly child: ChildProcess; readonly address: Promise<string> } | undefined;

	constructor(cwd: string, env: NodeJS.ProcessEnv = process.env) {
		this.#cwd = cwd;
		this.#env = env;
	}

	/** The tool's answer as data; a tool's error becomes a CrewError carrying crew's own words. */
	async call(tool: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
		const client = await this.#connected();
		const answer = await client.callTool({ name: tool, arguments: args }, undefined, {
			timeout: CALL_TIMEOUT_MS,
		});
		const text = (answer.content as { type: string; text?: string }[] | undefined)
			?.map((part) => part.text ?? "")
			.join("\n");
		if (answer.isError) throw new CrewError(ErrorCode.InvalidInput, text || `crew's ${tool} failed`);
		return (answer.structuredContent as Record<string, unknown> | undefined) ?? JSON.parse(text ?? "{}");
	}

	/**
	 * The address of a dashboard for this folder: `crew serve` on a free loopback port, started
	 * at the first ask and ended with the client.
	 */
	async dashboard(): Promise<string> {
		if (!this.#dashboard) {
			await this.#connected();
			const child = spawn(this.#node ?? "node", [crewPackagePath("bin", "crew.js"), "serve", "--port", "0"], {
				cwd: this.#cwd,
				env: this.#env,
				stdio: ["ignore", "pipe", "pipe"],
			});
			const address = new Promise<string>((resolve, reject) => {
				let out = "";
				let err = "";
				child.stdout?.on("data", (chunk: Buffer) => {
					out += chunk.toString();
					const url = /dashboard\s+(\S+)/.exec(out)?.[1];
					if (url) resolve(url);
				});
				child.stderr?.on("data", (chunk: Buffer) => {
					err += chunk.toString();
				});
				child.once("exit", (code) =>
					reject(new CrewError(ErrorCode.Runtime, `crew serve ended (${code}): ${err.trim() || out.trim()}`)),
				);
			});
			this.#dashboard = { child, address };
		}
		return await this.#dashboard.address;
	}

	async close(): Promise<void> {
		this.#dashboard?.child.kill("SIGTERM");
		this.#dashboard = undefined;
		const client = this.#client;
		this.#client = undefined;
		// A client that never connected has nothing to close; the call that started it was told why.
		if (client) await (await client.catch(() => undefined))?.close();
	}

	#connected(): Promise<Client> {
		this.#client ??= this.#start().catch((error: unknown) => {
			this.#client = undefined;
			throw error;
		});
		return this.#client;
	}

	async #start(): Promise<Client> {
		const failures: string[] = [];
		for (const node of new Set(["node", process.execPath])) {
			const transport = new StdioClientTransport({
				command: node,
				args: [crewPackagePath("bin", "crew.js"), "mcp"],
				cwd: this.#cwd,
				env: Object.fromEntries(Object.entries(this.#env).filter((e): e is [string, string] => e[1] !== undefined)),
				stderr: "pipe",
			});
			// The end of what the child says: why it could not start, if it could not.
			let stderr = "";
			transport.stderr?.on("data", (chunk: Buffer) => {
				stderr = (stderr + chunk.toString()).slice(-4096);
			});
			const client = new Client({ name: "crew-pi", version: "1" });
			try {
				await client.connect(transport);
				this.#node = node;
				return client;
			} catch (error) {
				const said = stderr.trim().split("\n").slice(-3).join(" ") || (error as Error).message;
				failures.push(`${node}: ${said}`);
				// Its child already ended or never spoke: what it said is in `failures`.
				await client.close().catch(() => undefined);
			}
		}
		throw new CrewError(ErrorCode.Runtime, `crew could not start here (${this.#cwd}): ${failures.join("; ")}`);
	}
}
