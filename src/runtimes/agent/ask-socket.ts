// The unix socket on which crew serves an agent CLI the MCP tool `ask`, which brings its questions to a person.

import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { crewVersion } from "../../config/crew-package.js";
import { ASK_DESCRIPTION, ASK_TOOL } from "../../core/asked.js";
import { errorMessage } from "../../core/errors.js";
import { MAX_STEER_CHARS } from "../../core/steer-limits.js";
import { listenInFolder } from "../process/socket-folder.js";

/** The longest message a connection may send, in bytes: room for the longest question crew records. */
const MAX_LINE_BYTES = 4 * MAX_STEER_CHARS;
/** Connections open at once: a CLI makes one; more are an agent knocking on its own. */
const MAX_CONNECTIONS = 4;
/** Time between progress notifications while a question waits, in ms. */
const PROGRESS_EVERY_MS = 10_000;

type Mcp = typeof import("@modelcontextprotocol/sdk/server/mcp.js");
type Stdio = typeof import("@modelcontextprotocol/sdk/server/stdio.js");
type Zod = typeof import("zod");
type Sdk = { readonly mcp: Mcp; readonly stdio: Stdio; readonly zod: Zod };

/**
 * An MCP server of one tool, `ask`, for one attempt of an agent CLI (Claude Code, Codex), served
 * by crew's runtime on a unix socket in a folder of its own (short, as socket paths must be).
 * The CLI starts a bridge of its stdin and stdout to the socket as its MCP server (`socat`, or
 * `crew ask-server`), so each attempt starts no MCP server process of its own: the protocol is
 * served here, where it is loaded once. Each call to `ask` waits for a person's answer, which is
 * the call's result; what a confined agent sends here is held to a length per message.
 */
export class AskSocket {
	readonly folder: string;
	readonly path: string;
	readonly #server: Server;
	readonly #open = new Set<Socket>();

	private constructor(asking: (question: string) => Promise<string>, sdk: Promise<Sdk>) {
		this.folder = mkdtempSync(join(tmpdir(), "crew-ask-"));
		this.path = join(this.folder, "ask.sock");
		this.#server = createServer((socket) => {
			if (this.#open.size >= MAX_CONNECTIONS) {
				socket.destroy();
				return;
			}
			this.#open.add(socket);
			// Held until the server reads it, so that nothing sent first is lost.
			socket.pause();
			socket.on("error", () => socket.destroy());
			socket.on("close", () => this.#open.delete(socket));
			sdk
				.then(async (loaded) => {
					const server = askServer(asking, loaded);
					socket.on("close", () => server.close().catch(() => {}));
					await server.connect(new loaded.stdio.StdioServerTransport(socket, socket));
					let line = 0;
					socket.on("data", (chunk: Buffer) => {
						const end = chunk.lastIndexOf(0x0a);
						line = end === -1 ? line + chunk.length : chunk.length - end - 1;
						if (line > MAX_LINE_BYTES) socket.destroy();
					});
					socket.resume();
				})
				.catch(() => socket.destroy());
		});
	}

	/**
	 * Listens for an agent CLI's MCP client, each question put to a person through `asking`. The
	 * MCP SDK loads meanwhile, while the CLI starts.
	 */
	static async open(asking: (question: string) => Promise<string>): Promise<AskSocket> {
		const sdk = Promise.all([
			import("@modelcontextprotocol/sdk/server/mcp.js"),
			import("@modelcontextprotocol/sdk/server/stdio.js"),
			import("zod"),
		]).then(([mcp, stdio, zod]) => ({ mcp, stdio, zod }));
		// A socket closed before a client came leaves the loading unawaited.
		sdk.catch(() => {});
		const socket = new AskSocket(asking, sdk);
		await listenInFolder(socket.#server, socket.path, socket.folder);
		return socket;
	}

	/** Stops listening, drops the questions still open, and removes the folder. */
	async close(): Promise<void> {
		for (const socket of this.#open) socket.destroy();
		await new Promise<void>((done) => this.#server.close(() => done()));
		rmSync(this.folder, { recursive: true, force: true });
	}
}

/** The MCP server of one connection: the tool `ask`, telling a client that waits of the wait every 10 s. */
function askServer(
	asking: (question: string) => Promise<string>,
	{ mcp, zod: { z } }: Sdk,
): InstanceType<Mcp["McpServer"]> {
	const server = new mcp.McpServer({ name: "crew", version: crewVersion() });
	const question = z.string().trim().min(1).describe("the question, whole");
	server.registerTool(
		ASK_TOOL,
		{ description: ASK_DESCRIPTION, inputSchema: { question } },
		async ({ question }, extra) => {
			const token = extra._meta?.progressToken;
			const since = Date.now();
			const beat =
				token === undefined
					? undefined
					: setInterval(() => {
							const progress = Math.floor((Date.now() - since) / 1000);
							const params = { progressToken: token, progress, message: "waiting for a person's answer" };
							extra.sendNotification({ method: "notifications/progress", params }).catch(() => {});
						}, PROGRESS_EVERY_MS);
			try {
				return { content: [{ type: "text" as const, text: await asking(question) }] };
			} catch (error) {
				return { content: [{ type: "text" as const, text: `no answer: ${errorMessage(error)}` }], isError: true };
			} finally {
				clearInterval(beat);
			}
		},
	);
	return server;
}
