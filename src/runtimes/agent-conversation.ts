import type { Writable } from "node:stream";
import { redact } from "../core/redact.js";
import type { Delivery, Steering } from "./worker-runtime.js";

/**
 * What one line of a conversing CLI's output says of the conversation: a reply to a message, the
 * end of the work, or a dialog that waits for a person (`id`, and what it asks).
 */
export type Said =
	| { readonly reply: string; readonly refused?: string }
	| { readonly over: true }
	| { readonly dialog: string; readonly asks: string };

/**
 * How a CLI that takes JSON-line messages on its stdin while it works is talked to: its stdin
 * stays open from the prompt until its work is over, then is closed, which ends it.
 */
export interface Conversation {
	/** The line that gives the agent its prompt. */
	prompt(text: string): string;
	/** The line that gives the working agent `text`; `id` names it in the CLI's reply. */
	message(text: string, id: string): string;
	/** Whether the CLI replies to each message; when not, a message written counts as taken. */
	readonly replies: boolean;
	/** What an output event says: a reply to a message (refused and why), or that the work is over. */
	read(event: Record<string, unknown>): Said | undefined;
	/** The line that closes dialog `id` unanswered. */
	dismiss?(id: string): string;
}

const OVER = "its agent has finished its work";

/**
 * One attempt's conversation with its CLI: messages from `steering` go to its stdin while its agent
 * works; once the CLI says its work is over, stdin is closed and messages are refused.
 */
export class AgentConversation {
	readonly #talk: Conversation;
	readonly #steering: Steering | undefined;
	readonly #record: (line: Record<string, unknown>) => void;
	readonly #replies = new Map<string, (delivery: Delivery) => void>();
	#stdin: Writable | undefined;
	#sent = 0;
	#over = false;

	/** `record` keeps a line in the attempt's transcript. */
	constructor(talk: Conversation, steering: Steering | undefined, record: (line: Record<string, unknown>) => void) {
		this.#talk = talk;
		this.#steering = steering;
		this.#record = record;
	}

	/** The CLI runs, its prompt written on `stdin`: messages go there from now on. */
	attach(stdin: Writable): void {
		this.#stdin = stdin;
		if (this.#over) stdin.end();
		else this.#steering?.open((text) => this.#send(text));
	}

	/** Reads one event of the CLI's output. */
	read(event: Record<string, unknown>): void {
		const said = this.#talk.read(event);
		if (said === undefined) return;
		if ("over" in said) {
			this.end(OVER);
			return;
		}
		if ("dialog" in said) {
			// No person watches a worker: the dialog is closed at once, as a person who said nothing would.
			this.#record({ type: "crew.dialog", id: said.dialog, asks: redact(said.asks), answer: "cancelled" });
			const line = this.#talk.dismiss?.(said.dialog);
			if (line && this.#stdin && !this.#stdin.writableEnded) this.#stdin.write(line);
			return;
		}
		const settle = this.#replies.get(said.reply);
		this.#replies.delete(said.reply);
		settle?.(said.refused === undefined ? { delivered: true } : { delivered: false, reason: said.refused });
	}

	/** The agent takes no more messages, because `reason`; its stdin is closed. */
	end(reason: string): void {
		if (this.#over) return;
		this.#over = true;
		this.#stdin?.end();
		this.#steering?.close(reason);
		for (const settle of this.#replies.values()) settle({ delivered: false, reason });
		this.#replies.clear();
	}

	#send(text: string): Promise<Delivery> {
		const stdin = this.#stdin;
		if (this.#over || !stdin || stdin.writableEnded) return Promise.resolve({ delivered: false, reason: OVER });
		const id = `crew-message-${++this.#sent}`;
		this.#record({ type: "crew.steer", id, text: redact(text) });
		const taken = this.#talk.replies
			? new Promise<Delivery>((resolve) => this.#replies.set(id, resolve))
			: Promise.resolve<Delivery>({ delivered: true });
		stdin.write(this.#talk.message(text, id));
		return taken;
	}
}
