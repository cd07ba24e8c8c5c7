// The unix socket through which crew's ask server brings an agent's questions to a person.

import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { errorMessage } from "../../core/errors.js";
import { MAX_STEER_CHARS } from "../../core/steer-limits.js";

/** The longest line a question comes in, in bytes: room for the longest question crew records. */
const MAX_LINE_BYTES = 4 * MAX_STEER_CHARS;

/**
 * Where crew's ask server, which an agent CLI starts as an MCP server for the attempt, brings the
 * agent's questions: a unix socket in a folder of its own (short, as socket paths must be). Each
 * connection carries one question as a JSON line, `{"question": "…"}`, and gets back
 * `{"answer": "…"}`, or `{"error": "…"}` when none will come.
 */
export class AskSocket {
	readonly folder: string;
	readonly path: string;
	readonly #server: Server;
	readonly #open = new Set<Socket>();

	private constructor(asking: (question: string) => Promise<string>) {
		this.folder = mkdtempSync(join(tmpdir(), "crew-ask-"));
		this.path = join(this.folder, "ask.sock");
		this.#server = createServer((socket) => {
			this.#open.add(socket);
			socket.on("close", () => this.#open.delete(socket));
			socket.on("error", () => socket.destroy());
			const lines = createInterface({ input: socket });
			// One line, as long as a person's answer may be; a longer one is cut off and refused.
			let read = 0;
			socket.on("data", (chunk: Buffer) => {
				read += chunk.length;
				if (read > MAX_LINE_BYTES) socket.end(`${JSON.stringify({ error: "the question is too long" })}\n`);
			});
			lines.once("line", (line) => {
				lines.close();
				let question: unknown;
				try {
					question = (JSON.parse(line) as { question?: unknown }).question;
				} catch {
					question = undefined;
				}
				if (typeof question !== "string" || question.trim() === "") {
					socket.end(`${JSON.stringify({ error: 'expected {"question": "<text>"}' })}\n`);
					return;
				}
				asking(question).then(
					(answer) => socket.end(`${JSON.stringify({ answer })}\n`),
					(error: unknown) => socket.end(`${JSON.stringify({ error: errorMessage(error) })}\n`),
				);
			});
		});
	}

	/** Listens for questions, each put to a person through `asking`. */
	static async open(asking: (question: string) => Promise<string>): Promise<AskSocket> {
		const socket = new AskSocket(asking);
		try {
			await new Promise<void>((done, fail) => {
				socket.#server.once("error", fail);
				socket.#server.listen(socket.path, () => done());
			});
		} catch (error) {
			rmSync(socket.folder, { recursive: true, force: true });
			throw error;
		}
		return socket;
	}

	/** Stops listening, drops the questions still open, and removes the folder. */
	async close(): Promise<void> {
		for (const socket of this.#open) socket.destroy();
		await new Promise<void>((done) => this.#server.close(() => done()));
		rmSync(this.folder, { recursive: true, force: true });
	}
}
