// Work done one piece at a time per key, in the order asked, whether the piece before succeeded or failed.

/**
 * Work done one piece at a time for each key, in the order it was asked for: a piece starts once
 * the one before it settled, whether that one succeeded or failed.
 */
export class Turns {
	readonly #last = new Map<string, Promise<unknown>>();

	take<T>(key: string, work: () => Promise<T>): Promise<T> {
		const next = (this.#last.get(key) ?? Promise.resolve()).then(work, work);
		// The turn only orders the work: its failure is its caller's, through `next`.
		const settled = next.catch(() => undefined);
		this.#last.set(key, settled);
		void settled.then(() => {
			if (this.#last.get(key) === settled) this.#last.delete(key);
		});
		return next;
	}
}
