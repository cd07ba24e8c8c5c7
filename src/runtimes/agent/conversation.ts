// Conversations with agent CLIs that take JSON-line messages on stdin: steering, dialogs and `ask` questions.

import type { Writable } from "node:stream";
import { redact } from "../../core/redact.js";
import type { Delivery, RunControl, Steering } from "../worker-runtime.js";

/**
 * What one line of a conversing CLI's output says of the conversation: a reply to a message, the
 * end of the work, a dialog that waits for a person (`id`, and what it asks), the agent's `ask`
 * tool asking a person `question` (`id` names it in the answer), or lines the conversation sends
 * next (for a CLI whose talk has steps before the prompt reaches its agent).
 */
export type Said =
	| { readonly reply: string; readonly refused?: string }
	| { readonly over: true }
	| { readonly dialog: string; readonly asks: string }
	| { readonly ask: string; readonly question: string }
	| { readonly send: string };

/**
 * How a CLI that takes JSON-line messages on its stdin while it works is talked to, one attempt's
 * talk: its stdin stays open from the prompt until its work is over, then is closed, which ends it.
 */
export interface Conversation {
	/** The first lines written, which give the agent its prompt or lead to it. */
	prompt(text: string): string;
	/**
	 * The line that gives the working agent `text`; `id` names it in the CLI's reply. Empty when
	 * the message must wait: it is sent later, in a `send`.
	 */
	message(text: string, id: string): string;
	/** Whether the CLI replies to each message; when not, a message written counts as taken. */
	readonly replies: boolean;
	/** What an output event says: a reply to a message (refused and why), or that the work is over. */
	read(event: Record<string, unknown>): Said | undefined;
	/** The line that closes dialog `id` unanswered. */
	dismiss?(id: string): string;
	/** The line that gives the agent's question `id` its answer. */
	answer?(id: string, text: string): string;
}

const OVER = "its agent has finished its work";

/**
 * One attempt's conversation with its CLI: messages from `steering` go to its stdin while its agent
 * works; once the CLI says its work is over, stdin is closed and messages are refused.
 */
export class AgentConversation {
	readonly #talk: Conversation;
	readonly #steering: Steering | undefined;
	readonly #asking: ((question: string) => Promise<string>) | undefined;
	readonly #record: (line: Record<string, unknown>) => void;
	readonly #replies = new Map<string, (delivery: Delivery) => void>();
	#stdin: Writable | undefined;
	#sent = 0;
	#over = false;

	/** `record` keeps a line in the attempt's transcript; `asking` puts the agent's questions to a person. */
	constructor(
		talk: Conversation,
		control: Pick<RunControl, "steering" | "asking">,
		record: (line: Record<string, unknown>) => void,
	) {
		this.#talk = talk;
		this.#steering = control.steering;
		this.#asking = control.asking;
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
		if ("send" in said) {
			this.#write(said.send);
			return;
		}
		if ("ask" in said && this.#asking) {
			this.#ask(said.ask, said.question, this.#asking);
			return;
		}
		if ("ask" in said || "dialog" in said) {
			// No person watches a worker: the dialog is closed at once, as a person who said nothing would.
			const [id, asks] = "ask" in said ? [said.ask, said.question] : [said.dialog, said.asks];
			this.#record({ type: "crew.dialog", id, asks: redact(asks), answer: "cancelled" });
			this.#write(this.#talk.dismiss?.(id));
			return;
		}
		const settle = this.#replies.get(said.reply);
		this.#replies.delete(said.reply);
		settle?.(said.refused === undefined ? { delivered: true } : { delivered: false, reason: said.refused });
	}

	/** A person answers the agent's question `id`; the answer goes back as its tool's result. */
	#ask(id: string, question: string, asking: (question: string) => Promise<string>): void {
		this.#record({ type: "crew.ask", id, question: redact(question) });
		asking(question).then(
			(answer) => {
				this.#record({ type: "crew.answer", id, text: redact(answer) });
				this.#write(this.#talk.answer?.(id, answer));
			},
			// The attempt is stopping: its agent is ended, not answered.
			() => {},
		);
	}

	#write(line: string | undefined): void {
		if (line && this.#stdin && !this.#stdin.writableEnded) this.#stdin.write(line);
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

	/** crew's own message to the working agent (not a person's), recorded in its transcript as a steer. */
	tell(text: string): Promise<Delivery> {
		return this.#send(text);
	}

	#send(text: string): Promise<Delivery> {
		const stdin = this.#stdin;
		if (this.#over || !stdin || stdin.writableEnded) return Promise.resolve({ delivered: false, reason: OVER });
		const id = `crew-message-${++this.#sent}`;
		this.#record({ type: "crew.steer", id, text: redact(text) });
		const taken = this.#talk.replies
			? new Promise<Delivery>((resolve) => this.#replies.set(id, resolve))
			: Promise.resolve<Delivery>({ delivered: true });
		this.#write(this.#talk.message(text, id));
		return taken;
	}
}
