// One attempt's JSON-RPC conversation with Codex's app server: the thread, its turn and steering messages.

import type { Conversation, Said } from "../agent/conversation.js";

/** The ids of crew's own requests, which Codex's responses name. */
const INITIALIZE = "crew-initialize";
const THREAD = "crew-thread";
const RESUME = "crew-resume";
/** The ids of the requests whose response names crew's thread. */
export const THREAD_REQUESTS: ReadonlySet<string> = new Set([THREAD, RESUME]);
const TURN = "crew-turn";

/** crew's own requests, by the ids their responses carry. */
export const CREW_REQUESTS: ReadonlyMap<string, string> = new Map([
	[INITIALIZE, "initialize"],
	[THREAD, "thread/start"],
	[RESUME, "thread/resume"],
	[TURN, "turn/start"],
]);

/** A JSON-RPC message as one line. */
function line(message: Record<string, unknown>): string {
	return `${JSON.stringify(message)}\n`;
}

function textInput(text: string): unknown[] {
	return [{ type: "text", text, text_elements: [] }];
}

/**
 * One attempt's talk with Codex's app server (JSON-RPC, a message a line, on its stdin and
 * stdout): crew initializes it, starts a thread (or resumes the one the attempt continues) and
 * one turn with the prompt. A message
 * while the turn runs steers it (`turn/steer`, naming the turn), and Codex answers it by the
 * message's id; one that comes before the turn has started waits for it. The turn's end is the
 * work's. A request Codex makes of its client (an approval, a person's input) is a dialog: no
 * person watches a worker, so it is declined.
 */
export class CodexConversation implements Conversation {
	readonly replies = true;
	#prompt = "";
	#thread: string | undefined;
	#turn: string | undefined;
	readonly #held: { readonly text: string; readonly id: string }[] = [];
	readonly #instructions: string | undefined;
	readonly #resume: string | undefined;

	/** `instructions` take the place of Codex's own system prompt; `resume` is the thread it continues. */
	constructor(instructions?: string, resume?: string) {
		this.#instructions = instructions;
		this.#resume = resume;
	}

	prompt(text: string): string {
		this.#prompt = text;
		return line({
			id: INITIALIZE,
			method: "initialize",
			params: { clientInfo: { name: "crew", title: "crew", version: "1" }, capabilities: null },
		});
	}

	message(text: string, id: string): string {
		const steer = (turn: string) =>
			line({
				id,
				method: "turn/steer",
				params: { threadId: this.#thread, expectedTurnId: turn, input: textInput(text) },
			});
		if (this.#turn !== undefined) return steer(this.#turn);
		// Sent once the turn has an id: a steer must name it.
		this.#held.push({ text, id });
		return "";
	}

	read(event: Record<string, unknown>): Said | undefined {
		const { id, method } = event;
		const params = (event.params ?? {}) as Record<string, unknown>;
		if (method === undefined && id !== undefined) return this.#response(event);
		// Another thread's turns (a sub-agent's) are not crew's.
		const other = params.threadId !== undefined && params.threadId !== this.#thread;
		if (other && (method === "turn/started" || method === "turn/completed")) return undefined;
		if (method === "turn/started") return this.#started(((params.turn ?? {}) as { id?: unknown }).id);
		if (method === "turn/completed") return { over: true };
		// A request of its client: it waits for an answer.
		if (typeof method === "string" && id !== undefined) return { dialog: JSON.stringify(id), asks: method };
		return undefined;
	}

	dismiss(dialog: string): string {
		return line({ id: JSON.parse(dialog), error: { code: -32000, message: "no person watches this agent" } });
	}

	/** The thread's request: a new thread, kept in Codex's folder, or the one this attempt continues. */
	#threadRequest(): Record<string, unknown> {
		if (this.#resume !== undefined)
			return { id: RESUME, method: "thread/resume", params: { threadId: this.#resume, excludeTurns: true } };
		const params = this.#instructions === undefined ? {} : { baseInstructions: this.#instructions };
		return { id: THREAD, method: "thread/start", params };
	}

	/** A response to one of crew's requests, which leads to the next; one refused ends the work. */
	#response(event: Record<string, unknown>): Said | undefined {
		const { id } = event;
		const error = event.error as { message?: unknown } | undefined;
		if (CREW_REQUESTS.has(String(id))) {
			if (error !== undefined) return { over: true };
			const result = (event.result ?? {}) as Record<string, unknown>;
			if (id === INITIALIZE)
				return {
					send: line({ method: "initialized" }) + line(this.#threadRequest()),
				};
			if (THREAD_REQUESTS.has(String(id))) {
				this.#thread = String(((result.thread ?? {}) as { id?: unknown }).id);
				return {
					send: line({
						id: TURN,
						method: "turn/start",
						params: { threadId: this.#thread, input: textInput(this.#prompt) },
					}),
				};
			}
			return this.#started(((result.turn ?? {}) as { id?: unknown }).id);
		}
		if (typeof id !== "string") return undefined;
		return error === undefined ? { reply: id } : { reply: id, refused: String(error.message ?? "refused") };
	}

	/** The turn has its id (from its response or its notice, whichever comes first): held messages go. */
	#started(turn: unknown): Said | undefined {
		if (this.#turn !== undefined || typeof turn !== "string") return undefined;
		this.#turn = turn;
		const send = this.#held
			.splice(0)
			.map(({ text, id }) => this.message(text, id))
			.join("");
		return send === "" ? undefined : { send };
	}
}
