import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { waitFor } from "../../helpers.js";

/** One line pi writes in RPC mode: a response, a session event or an extension UI request. */
export interface RpcRecord {
	readonly type: string;
	readonly method?: string;
	readonly message?: unknown;
	readonly [key: string]: unknown;
}

/**
 * pi (`program` and its first arguments) with crew installed as a user installs it, driven in RPC
 * mode: commands as JSON lines on stdin, its records read back from stdout.
 */
export class PiRpc {
	readonly #child: ChildProcess;
	#out = "";
	#err = "";

	static install(pi: readonly string[], root: string, env: NodeJS.ProcessEnv): string {
		const [program, ...first] = pi;
		return execFileSync(program as string, [...first, "install", root], { env, encoding: "utf8" });
	}

	constructor(pi: readonly string[], args: readonly string[], cwd: string, env: NodeJS.ProcessEnv) {
		const [program, ...first] = pi;
		this.#child = spawn(program as string, [...first, "--mode", "rpc", "--offline", ...args], {
			cwd,
			env,
			stdio: ["pipe", "pipe", "pipe"],
		});
		this.#child.stdout?.on("data", (chunk: Buffer) => {
			this.#out += chunk.toString();
		});
		this.#child.stderr?.on("data", (chunk: Buffer) => {
			this.#err += chunk.toString();
		});
	}

	get stderr(): string {
		return this.#err;
	}

	send(command: object): void {
		this.#child.stdin?.write(`${JSON.stringify(command)}\n`);
	}

	records(): RpcRecord[] {
		return this.#out
			.split("\n")
			.filter((line) => line.startsWith("{"))
			.map((line) => JSON.parse(line) as RpcRecord);
	}

	/** The first record `matches` accepts, waiting up to `ms` for it. */
	async record(what: string, matches: (record: RpcRecord) => boolean, ms = 60_000): Promise<RpcRecord> {
		return await waitFor(`${what} (pi stderr: ${this.#err.slice(-2000)})`, () => this.records().find(matches), ms);
	}

	/** Ends pi as a person closing it would, and waits until it is gone. */
	async close(): Promise<void> {
		if (this.#child.exitCode !== null || this.#child.signalCode !== null) return;
		const gone = new Promise((resolve) => this.#child.once("exit", resolve));
		this.#child.kill("SIGTERM");
		await gone;
	}

	kill(): void {
		this.#child.kill("SIGKILL");
	}
}
