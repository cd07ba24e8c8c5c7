// The steering messages for one running attempt, held until its agent's channel opens, then handed over.

import { errorMessage } from "../../core/errors.js";
import type { Delivery, Steering } from "../../runtimes/worker-runtime.js";

/**
 * The messages for one running attempt: held until its runtime opens the channel to its agent,
 * then given to it; refused once the channel is closed.
 */
export class AttemptMailbox implements Steering {
	#deliver: ((text: string) => Promise<Delivery>) | undefined;
	#closed: string | undefined;
	readonly #held: { readonly text: string; readonly settle: (delivery: Delivery) => void }[] = [];

	open(deliver: (text: string) => Promise<Delivery>): void {
		if (this.#closed !== undefined) return;
		this.#deliver = deliver;
		for (const { text, settle } of this.#held.splice(0)) void this.#hand(text).then(settle);
	}

	close(reason: string): void {
		if (this.#closed !== undefined) return;
		this.#closed = reason;
		this.#deliver = undefined;
		for (const { settle } of this.#held.splice(0)) settle({ delivered: false, reason });
	}

	/** Gives the agent `text` once it can take it. */
	send(text: string): Promise<Delivery> {
		if (this.#closed !== undefined) return Promise.resolve({ delivered: false, reason: this.#closed });
		if (this.#deliver) return this.#hand(text);
		return new Promise((settle) => this.#held.push({ text, settle }));
	}

	async #hand(text: string): Promise<Delivery> {
		const deliver = this.#deliver;
		if (!deliver) return { delivered: false, reason: this.#closed ?? "its agent has ended" };
		try {
			return await deliver(text);
		} catch (error) {
			return { delivered: false, reason: `it could not be written to its agent: ${errorMessage(error)}` };
		}
	}
}
