// Tasks waiting out a retry's backoff, each handed back to the run loop once its delay has passed.

/** Tasks waiting out a retry's backoff, by index: each is handed back once its delay has passed. */
export class RunBackoffs {
	readonly #timers = new Map<number, NodeJS.Timeout>();

	get size(): number {
		return this.#timers.size;
	}

	has(i: number): boolean {
		return this.#timers.has(i);
	}

	/** Calls `back` after `delayMs`, unless the backoffs are cleared first. */
	wait(i: number, delayMs: number, back: () => void): void {
		const timer = setTimeout(() => {
			this.#timers.delete(i);
			back();
		}, delayMs);
		this.#timers.set(i, timer);
	}

	/** No task waits any more; none is handed back. */
	clear(): void {
		for (const timer of this.#timers.values()) clearTimeout(timer);
		this.#timers.clear();
	}
}
