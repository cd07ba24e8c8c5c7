// Stopping a run: whether and why it stops, and what that does to its workers, backoffs and driver.

import type { RunBackoffs } from "./backoffs.js";
import type { RunDriver } from "./driver.js";
import { StopReason } from "./stop-reason.js";
import type { RunWorkers } from "./workers.js";

/** Why a run stops: `drain` lets running tasks finish; the others end them. */
export type Stopping = "drain" | "abort" | "cancel" | "lease-lost" | "shutdown";

export interface RunStopDeps {
	readonly workers: RunWorkers;
	readonly backoffs: RunBackoffs;
	readonly driver: RunDriver | undefined;
	readonly now: () => number;
	readonly cleanupMs: number;
	readonly wake: () => void;
}

/**
 * Whether a run is stopping, why, and what stopping does: nothing new starts, no retry waits, the
 * driver stops, and (but for a drain) every running worker is told to end within the cleanup time.
 * A lost lease is final: nothing this runner does after it may reach the store.
 */
export class RunStop {
	#kind: Stopping | undefined;
	#message = "";
	#deadline = Number.POSITIVE_INFINITY;
	readonly #deps: RunStopDeps;

	constructor(deps: RunStopDeps) {
		this.#deps = deps;
	}

	get kind(): Stopping | undefined {
		return this.#kind;
	}

	/** What the run's stop says, for the tasks it leaves unstarted; empty while it goes on. */
	get message(): string {
		return this.#message;
	}

	get leaseLost(): boolean {
		return this.#kind === "lease-lost";
	}

	/** Whether workers still running have had their time to end. */
	pastDeadline(): boolean {
		return this.#deps.now() >= this.#deadline;
	}

	/** The stop a worker started now must hear at once; undefined while the run goes on. */
	reason(): StopReason | undefined {
		if (this.#kind === undefined) return undefined;
		return new StopReason(this.#kind === "drain" ? "shutdown" : this.#kind, this.#message);
	}

	/** Every running worker is stopped, with `kind` as its reason. */
	all(kind: Exclude<Stopping, "drain">, message: string): void {
		if (this.leaseLost) return;
		this.#kind = kind;
		this.#message = message;
		this.#deadline = this.#deps.now() + this.#deps.cleanupMs;
		this.#deps.backoffs.clear();
		this.#deps.workers.stopAll(new StopReason(kind, message));
		this.#deps.driver?.stop(message);
		this.#deps.wake();
	}

	/** Running tasks finish and are kept. */
	drain(message: string): void {
		this.#kind = "drain";
		this.#message = message;
		this.#deps.backoffs.clear();
		this.#deps.driver?.stop(message);
	}

	cancel(reason: string): void {
		if (this.#kind === "cancel" || this.leaseLost) return;
		this.all("cancel", reason);
	}
}
