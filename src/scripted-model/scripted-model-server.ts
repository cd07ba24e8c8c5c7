// The scripted model server: a local stand-in for model providers, answering each request as its script says.

import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { anthropicMessages } from "./anthropic-messages.js";
import { openAiChat, openAiError } from "./openai-chat.js";
import { openAiResponses } from "./openai-responses.js";
import type { ModelProtocol } from "./protocol.js";
import type { ModelRequest, Script, Turn } from "./turns.js";

const PROTOCOLS: ReadonlyMap<string, ModelProtocol> = new Map(
	[openAiChat, anthropicMessages, openAiResponses].map((protocol) => [protocol.path, protocol]),
);

/** Largest request body read, in bytes. */
const MAX_BODY = 32 * 1024 * 1024;

/**
 * A stand-in for model providers, on 127.0.0.1 and a free port, for tests, demos and benchmarks:
 * OpenAI chat completions (pi), Anthropic messages (Claude Code) and OpenAI Responses (Codex).
 * Each request gets the turn its script decides, and every request is kept for inspection.
 */
export class ScriptedModelServer {
	readonly requests: ModelRequest[] = [];
	readonly #server: Server;
	readonly #script: Script;
	readonly #closing = new AbortController();

	private constructor(script: Script) {
		this.#script = script;
		this.#server = createServer((req, res) => {
			this.#handle(req, res).catch((error: unknown) => {
				if (!res.headersSent) res.writeHead(500, { "content-type": "application/json" });
				res.end(openAiError(500, `scripted model server: ${error instanceof Error ? error.message : String(error)}`));
			});
		});
	}

	static async start(script: Script): Promise<ScriptedModelServer> {
		const server = new ScriptedModelServer(script);
		await new Promise<void>((resolve, reject) => {
			server.#server.once("error", reject);
			server.#server.listen(0, "127.0.0.1", () => resolve());
		});
		return server;
	}

	/** `http://127.0.0.1:<port>`; OpenAI-style clients want `${url}/v1` as their base URL. */
	get url(): string {
		const { port } = this.#server.address() as AddressInfo;
		return `http://127.0.0.1:${port}`;
	}

	/** Stops listening and drops every open connection, hanging ones included. */
	async close(): Promise<void> {
		this.#closing.abort();
		this.#server.closeAllConnections();
		await new Promise<void>((resolve) => this.#server.close(() => resolve()));
	}

	async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
		const path = (req.url ?? "/").split("?")[0] ?? "/";
		if (req.method === "HEAD" || req.method === "GET") {
			res.writeHead(path === "/" ? 200 : 404).end();
			return;
		}
		const protocol = req.method === "POST" ? PROTOCOLS.get(path) : undefined;
		if (!protocol) {
			res.writeHead(404, { "content-type": "application/json" });
			res.end(openAiError(404, `scripted model server: no route for ${req.method} ${path}`));
			return;
		}
		let body: unknown;
		try {
			body = JSON.parse(await readBody(req));
		} catch (error) {
			res.writeHead(400, { "content-type": "application/json" });
			res.end(
				protocol.errorBody(400, `request body is not JSON: ${error instanceof Error ? error.message : String(error)}`),
			);
			return;
		}
		const parsed = protocol.parse(body, this.requests.length);
		const { tools } = parsed;
		const headers: Record<string, string> = {};
		for (const [name, value] of Object.entries(req.headers)) {
			if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(", ") : value;
		}
		const request: ModelRequest = { ...parsed.request, headers };
		this.requests.push(request);
		const turn = await this.#settle(this.#script(request));
		if (!turn) return;
		if (turn.kind === "error") {
			res.writeHead(turn.status, { "content-type": "application/json" });
			res.end(protocol.errorBody(turn.status, turn.message));
			return;
		}
		protocol.respond(res, request, tools, turn);
	}

	/** Resolves delays; undefined for a hang (the response is left open) or once the server closes. */
	async #settle(turn: Turn): Promise<Exclude<Turn, { kind: "delay" | "hang" }> | undefined> {
		let current = turn;
		while (current.kind === "delay") {
			try {
				await sleep(current.ms, undefined, { signal: this.#closing.signal });
			} catch {
				// The server is closing: the request gets no answer.
				return undefined;
			}
			current = current.turn;
		}
		return current.kind === "hang" ? undefined : current;
	}
}

function readBody(req: IncomingMessage): Promise<string> {
	return new Promise((resolve, reject) => {
		const chunks: Buffer[] = [];
		let size = 0;
		req.on("data", (chunk: Buffer) => {
			size += chunk.length;
			if (size > MAX_BODY) {
				reject(new Error(`request body over ${MAX_BODY} bytes`));
				req.destroy();
			} else chunks.push(chunk);
		});
		req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
		req.on("error", reject);
	});
}
