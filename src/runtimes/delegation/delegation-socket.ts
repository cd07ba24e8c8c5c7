// The unix socket on which a task's runner takes the work its agent delegates, and answers with the result.

import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DELEGATE_SOCKET_VARIABLE, type DelegationReply, delegationAsk } from "../../core/delegation.js";
import { errorMessage } from "../../core/errors.js";
import { listenInFolder } from "../process/socket-folder.js";
import type { Delegating } from "../worker-runtime.js";

/** The longest message a client may send, in bytes: a delegation's task with room for its JSON. */
const MAX_LINE_BYTES = 512 * 1024;
/** Delegations waiting at once on one attempt's socket; beyond, connections are refused. */
const MAX_CONNECTIONS = 8;

/**
 * A socket, in a folder of its own, on which one attempt's agent hands work to its runner: each
 * connection sends one JSON line, a `DelegationAsk`, and gets back a line saying the run started,
 * then one with its answer (or one saying why it was refused). A client that goes away before its
 * answer stops its delegated run. Its folder is the one place a confined agent reaches it through.
 */
export class DelegationSocket {
	readonly folder: string;
	readonly path: string;
	readonly #server: Server;
	readonly #open = new Map<Socket, AbortController>();
	readonly #serving = new Set<Promise<void>>();

	private constructor(delegating: Delegating) {
		this.folder = mkdtempSync(join(tmpdir(), "crew-delegate-"));
		this.path = join(this.folder, "delegate.sock");
		this.#server = createServer((socket) => {
			if (this.#open.size >= MAX_CONNECTIONS) {
				socket.end(reply({ refused: `at most ${MAX_CONNECTIONS} delegations wait at once on one attempt` }));
				return;
			}
			const stop = new AbortController();
			this.#open.set(socket, stop);
			socket.on("error", () => socket.destroy());
			socket.on("close", () => {
				this.#open.delete(socket);
				stop.abort(new Error("the delegating agent went away"));
			});
			let line = "";
			const onData = (chunk: Buffer) => {
				line += chunk.toString("utf8");
				const end = line.indexOf("\n");
				if (end === -1) {
					if (Buffer.byteLength(line) > MAX_LINE_BYTES)
						socket.end(reply({ refused: `a delegation is at most ${MAX_LINE_BYTES} bytes` }));
					return;
				}
				socket.off("data", onData);
				const served = serve(socket, line.slice(0, end), delegating, stop.signal);
				this.#serving.add(served);
				void served.finally(() => this.#serving.delete(served));
			};
			socket.on("data", onData);
		});
	}

	/** Listens for the agent's delegations, each carried out by `delegating`. */
	static async open(delegating: Delegating): Promise<DelegationSocket> {
		const socket = new DelegationSocket(delegating);
		await listenInFolder(socket.#server, socket.path, socket.folder);
		return socket;
	}

	/** The variable that tells the attempt's processes where to delegate. */
	get env(): Record<string, string> {
		return { [DELEGATE_SOCKET_VARIABLE]: this.path };
	}

	/**
	 * Stops listening, stops the delegations still open and waits for their runs to end (an attempt
	 * settles only once its children have), and removes the folder.
	 */
	async close(): Promise<void> {
		for (const [socket, stop] of this.#open) {
			stop.abort(new Error("the attempt has ended"));
			socket.destroy();
		}
		const closed = new Promise<void>((done) => this.#server.close(() => done()));
		await Promise.all([closed, ...this.#serving]);
		rmSync(this.folder, { recursive: true, force: true });
	}
}

async function serve(socket: Socket, line: string, delegating: Delegating, signal: AbortSignal): Promise<void> {
	let answer: DelegationReply;
	try {
		const ask = delegationAsk(JSON.parse(line));
		const started = (runId: string) => {
			if (!socket.destroyed) socket.write(reply({ started: { runId } }));
		};
		answer = { answer: await delegating(ask, { signal, started }) };
	} catch (error) {
		answer = {
			refused:
				error instanceof SyntaxError ? `a delegation must be one line of JSON: ${error.message}` : errorMessage(error),
		};
	}
	if (!socket.destroyed) socket.end(reply(answer));
}

function reply(message: DelegationReply): string {
	return `${JSON.stringify(message)}\n`;
}

/** The socket on which an attempt's agent delegates, when it may (`control.delegating`); else undefined. */
export async function delegationSocket(control: {
	readonly delegating?: Delegating;
}): Promise<DelegationSocket | undefined> {
	return control.delegating ? await DelegationSocket.open(control.delegating) : undefined;
}
