// What the run loop sleeps on between turns, woken by anything that gives it work.

/**
 * What the run loop sleeps on between turns: anything that gives it work (a settled worker, a
 * backoff's end, a tick) wakes it; a wake while it is awake is kept for its next sleep.
 */
export class Wakeup {
	#resolve: (() => void) | undefined;
	#woken = false;

	wake(): void {
		this.#woken = true;
		this.#resolve?.();
	}

	async sleep(): Promise<void> {
		if (!this.#woken) await new Promise<void>((resolve) => (this.#resolve = resolve));
		this.#resolve = undefined;
		this.#woken = false;
	}
}
