// The contract between the run loop and a driver (a workflow script) that makes a run's tasks as it goes.

import type { BudgetView } from "../../core/budget.js";
import type { TaskStatus } from "../../core/status.js";
import type { TaskSpec } from "../../core/types.js";

/** How a driver ended: done, or failed with the run's error. */
export type DriverOutcome = { readonly ok: true } | { readonly ok: false; readonly error: string };

/** What the run loop offers the driver of its run. */
export interface DriverControl {
	/** The driver has tasks to add or claim, or has ended: the loop takes a turn. */
	wake(): void;
	budget(): BudgetView;
	/**
	 * Makes the driver's store writes of `fn`, in order with the runner's own: at once, or once
	 * another process lets go of the store's write lock. A failure stops the run.
	 */
	write(fn: () => void): void;
}

/** Tasks a driver hands the loop at a turn. */
export interface DriverRequests {
	/** New tasks, in the order they were asked for. */
	readonly added: readonly TaskSpec[];
	/** Tasks already in the run that the driver asks for again; those not completed or failed are queued. */
	readonly claimed: readonly string[];
}

/**
 * Makes a run's tasks as it goes (a workflow script) rather than from a plan made before. The
 * loop starts only tasks the driver asked for, tells it how each ended, checks answers with it,
 * and ends the run once the driver has ended and nothing runs.
 */
export interface RunDriver {
	start(control: DriverControl): void;
	/** What was asked for since the last turn. */
	takeRequests(): DriverRequests;
	/** Whether the task was asked for in this runner's life: only those may start. */
	wants(taskId: string): boolean;
	/** A task reached an end state. */
	settled(taskId: string, status: TaskStatus, error: string | null): void;
	/** Problems with a successful attempt's answer; the attempt then fails, retryably, with them. */
	check(taskId: string, text: string): string[];
	/** Undefined while the driver runs. */
	readonly outcome: DriverOutcome | undefined;
	/** The run is stopping: nothing more is accepted, and calls still waiting fail with `reason`. */
	stop(reason: string): void;
}
