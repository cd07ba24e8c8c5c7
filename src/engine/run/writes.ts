// A runner's store writes, kept in order and waiting for another process's write lock without blocking.

import { setTimeout as sleep } from "node:timers/promises";
import { formatDuration } from "../../core/duration.js";
import { CrewError, ErrorCode } from "../../core/errors.js";
import type { Lease } from "../../store/lease.js";
import type { RunStore } from "../../store/run-store.js";

/**
 * How long one try for the store's write lock may hold up the runner's event loop, in ms: enough
 * for another runner's commit to end, short enough that timers, workers' output and cancels are
 * never kept waiting.
 */
const LOCK_WAIT_MS = 20;

export interface RunWritesOptions {
	readonly now: () => number;
	/** Pause between tries while another process holds the write lock, in ms. */
	readonly retryMs: number;
	/** How long the lease lasts without a heartbeat: the writes give up once it would have, in ms. */
	readonly staleAfterMs: number;
	/** When the lease's heartbeat was last written, in the clock of `now`. */
	readonly lastBeat: number;
	/** Hears the errors of writes no one awaits (`write`, `heartbeat`), and the giving up. */
	readonly onError: (error: unknown) => void;
}

/** A write waiting for the lock; one made by `batch` is awaited, and told how it went. */
interface Waiting {
	readonly fn: () => unknown;
	readonly settle?: (outcome: Outcome) => void;
}

type Outcome = { readonly value: unknown } | { readonly error: unknown };

/**
 * A runner's writes while it holds its run. Another process may hold the store's write lock for
 * seconds (a large import, say); a write then waits for it without holding up the event loop for
 * more than a moment: each try waits briefly, and tries are repeated on a timer. Writes keep
 * their order: one that has to wait holds back every later one, and the next try makes them all,
 * each whole in its own savepoint, in one transaction that also renews the lease's heartbeat.
 * Once the lease would have lapsed for want of a heartbeat, the writes give up.
 */
export class RunWrites {
	readonly #store: RunStore;
	readonly #lease: Lease;
	readonly #options: RunWritesOptions;
	/** Writes waiting for the lock, oldest first. */
	#waiting: Waiting[] = [];
	#beatDue = false;
	#lastBeat: number;
	#busySince: number | undefined;
	#retry: NodeJS.Timeout | undefined;
	/** Set once the writes cannot go on: every later one fails with it. */
	#failure: unknown;
	/** Whether a transaction of these writes is open: a write made meanwhile joins it. */
	#inside = false;

	constructor(store: RunStore, lease: Lease, options: RunWritesOptions) {
		this.#store = store;
		this.#lease = lease;
		this.#options = options;
		this.#lastBeat = options.lastBeat;
	}

	/** When the lease's heartbeat was last written. */
	get lastBeat(): number {
		return this.#lastBeat;
	}

	/** Renews the lease's heartbeat, now or at the next try. */
	heartbeat(): void {
		this.#beatDue = true;
		this.#try();
	}

	/**
	 * Makes the store writes of `fn`, now if the lock is free, else at the next try, after every
	 * write still waiting. `fn` runs whole in a savepoint, so it may be called later than asked; an
	 * error it throws goes to `onError`.
	 */
	write(fn: () => void): void {
		if (this.#inside) {
			this.#join(fn);
			return;
		}
		this.#waiting.push({ fn });
		this.#try();
	}

	/**
	 * Makes the store writes of `fn` in one transaction once the lock is had, after every write still
	 * waiting; resolves with what `fn` returns. `fn` is called once, when the lock is held, so it may
	 * change the caller's own state along with the store.
	 */
	batch<T>(fn: () => T): Promise<T> {
		if (this.#inside) {
			try {
				return Promise.resolve(this.#store.batch(fn));
			} catch (error) {
				return Promise.reject(error);
			}
		}
		return new Promise<T>((resolve, reject) => {
			const settle = (outcome: Outcome) => ("value" in outcome ? resolve(outcome.value as T) : reject(outcome.error));
			this.#waiting.push({ fn, settle });
			this.#try();
		});
	}

	/**
	 * The last record of a runner that is stopping, made whether or not the writes gave up: tried
	 * until the lock is had or `withinMs` have passed, then it fails. Writes still waiting are dropped.
	 */
	async last(fn: () => void, withinMs: number): Promise<void> {
		const { now, retryMs } = this.#options;
		const until = now() + withinMs;
		this.close();
		while (!this.#store.tryBatch(fn, LOCK_WAIT_MS)) {
			if (now() >= until) {
				throw new CrewError(
					ErrorCode.Store,
					`another process held the store's write lock for over ${formatDuration(withinMs)}`,
				);
			}
			await sleep(retryMs);
		}
	}

	/** Stops trying; writes still waiting are dropped. */
	close(): void {
		clearTimeout(this.#retry);
		this.#retry = undefined;
		this.#failure ??= new CrewError(ErrorCode.Store, "the runner has stopped writing");
		this.#drop();
	}

	#join(fn: () => void): void {
		try {
			this.#store.batch(fn);
		} catch (error) {
			this.#options.onError(error);
		}
	}

	#try(): void {
		// While another process holds the lock, the scheduled try makes every write that waits.
		if (this.#retry !== undefined) return;
		if (this.#failure !== undefined) {
			this.#drop();
			return;
		}
		if (!this.#beatDue && this.#waiting.length === 0) return;
		const waiting = this.#waiting.splice(0);
		const outcomes: Outcome[] = [];
		let made: unknown;
		this.#inside = true;
		try {
			made = this.#store.tryBatch(() => {
				this.#store.heartbeat(this.#lease);
				for (const { fn } of waiting) {
					try {
						outcomes.push({ value: this.#store.batch(fn) });
					} catch (error) {
						outcomes.push({ error });
					}
				}
			}, LOCK_WAIT_MS);
		} catch (error) {
			// The heartbeat found the lease taken over, or the store failed: nothing was written.
			this.#waiting.unshift(...waiting);
			this.#fail(error);
			return;
		} finally {
			this.#inside = false;
		}
		if (!made) {
			this.#waiting.unshift(...waiting);
			this.#waitForLock();
			return;
		}
		this.#lastBeat = this.#options.now();
		this.#beatDue = false;
		this.#busySince = undefined;
		waiting.forEach(({ settle }, i) => {
			const outcome = outcomes[i] as Outcome;
			if (settle) settle(outcome);
			else if ("error" in outcome) this.#options.onError(outcome.error);
		});
	}

	/** The lock is held elsewhere: try again later, unless the lease would have lapsed by now. */
	#waitForLock(): void {
		const { now, staleAfterMs, retryMs } = this.#options;
		const at = now();
		this.#busySince ??= at;
		if (at - this.#lastBeat >= staleAfterMs) {
			this.#fail(
				new CrewError(
					ErrorCode.Store,
					`another process has held the store's write lock for ${formatDuration(at - this.#busySince)}, past the ${formatDuration(staleAfterMs)} a lease lasts without a heartbeat`,
				),
			);
			return;
		}
		this.#retry = setTimeout(() => {
			this.#retry = undefined;
			this.#try();
		}, retryMs);
	}

	/** The writes cannot go on: `onError` hears why, once, and every waiting write fails with it. */
	#fail(error: unknown): void {
		this.#failure = error;
		this.#options.onError(error);
		this.#drop();
	}

	/** After a failure, writes are dropped (the runner was told, and stops); awaited ones fail. */
	#drop(): void {
		this.#beatDue = false;
		for (const { settle } of this.#waiting.splice(0)) settle?.({ error: this.#failure });
	}
}
