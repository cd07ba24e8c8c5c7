// Which ready task starts next under the run's concurrency and per-role limits.

import type { Dag } from "./dag.js";
import { Heap } from "./heap.js";
import { ReadyQueue, readyOrder } from "./ready-queue.js";

export interface SlotLimits {
	/** Tasks running at once, all roles together. */
	readonly concurrency: number;
	/** Tasks of one role running at once. */
	readonly roleLimits: Readonly<Record<string, number>>;
}

/**
 * Which ready task starts next under the run's limits. A task whose role is at its limit waits in
 * that role's own queue until a task of the role ends, so it is looked at once, not on every turn.
 */
export class SlotQueue {
	readonly #ready: ReadyQueue;
	readonly #roles: readonly string[];
	readonly #limits: SlotLimits;
	readonly #order: (a: number, b: number) => boolean;
	readonly #roleRunning = new Map<string, number>();
	readonly #parked = new Map<string, Heap<number>>();
	#running = 0;

	/** `roles[i]` is the role of node `i`; `done` and `eligible` as for `ReadyQueue`. */
	constructor(
		dag: Dag,
		roles: readonly string[],
		limits: SlotLimits,
		done: (i: number) => boolean,
		eligible: (i: number) => boolean,
	) {
		this.#ready = new ReadyQueue(dag, done, eligible);
		this.#roles = roles;
		this.#limits = limits;
		this.#order = readyOrder(dag);
	}

	/** Ready tasks not parked behind their role's limit. */
	get ready(): number {
		return this.#ready.size;
	}

	get running(): number {
		return this.#running;
	}

	/**
	 * The next task to start, counted as running from now on; undefined when no slot is free or no
	 * task may start. `startable(i)` drops tasks that stopped being startable while queued.
	 */
	take(startable: (i: number) => boolean): number | undefined {
		while (this.#running < this.#limits.concurrency && this.#ready.size > 0) {
			const i = this.#ready.pop() as number;
			if (!startable(i)) continue;
			const role = this.#roles[i] ?? "";
			const limit = this.#limits.roleLimits[role];
			const busy = this.#roleRunning.get(role) ?? 0;
			if (limit !== undefined && busy >= limit) {
				let parked = this.#parked.get(role);
				if (!parked) {
					parked = new Heap(this.#order);
					this.#parked.set(role, parked);
				}
				parked.push(i);
				continue;
			}
			this.#roleRunning.set(role, busy + 1);
			this.#running++;
			return i;
		}
		return undefined;
	}

	/** Task `i` stopped running: its slot is free and one task waiting for its role may go. */
	release(i: number): void {
		const role = this.#roles[i] ?? "";
		this.#roleRunning.set(role, (this.#roleRunning.get(role) ?? 1) - 1);
		this.#running--;
		const parked = this.#parked.get(role);
		if (parked && parked.size > 0) this.#ready.push(parked.pop() as number);
	}

	/** Task `i` completed: dependents whose dependencies are all done become ready. */
	complete(i: number, eligible: (i: number) => boolean): void {
		this.#ready.complete(i, eligible);
	}

	/** Counts task `i`, already running, against the limits: for a queue built while tasks run. */
	occupy(i: number): void {
		const role = this.#roles[i] ?? "";
		this.#roleRunning.set(role, (this.#roleRunning.get(role) ?? 0) + 1);
		this.#running++;
	}

	/** Puts a task back, e.g. when its retry backoff has elapsed. */
	requeue(i: number): void {
		this.#ready.push(i);
	}
}
