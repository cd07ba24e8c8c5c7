// Run and task statuses, the causes of their changes and the one table of allowed transitions.

import { CrewError, ErrorCode } from "./errors.js";

export const RunStatus = {
	Queued: "queued",
	Running: "running",
	Waiting: "waiting",
	Completed: "completed",
	Failed: "failed",
	Cancelled: "cancelled",
	Interrupted: "interrupted",
} as const;
export type RunStatus = (typeof RunStatus)[keyof typeof RunStatus];

export const TaskStatus = {
	Queued: "queued",
	Running: "running",
	Waiting: "waiting",
	Completed: "completed",
	Failed: "failed",
	Cancelled: "cancelled",
	Skipped: "skipped",
	/** The task's attempt was lost with its runner. */
	Interrupted: "interrupted",
	/** A failed `--until` check that a later pass of the workflow answers: final, and never run again. */
	Superseded: "superseded",
	/**
	 * Its agent ended without a usable answer, and its step lets a person look rather than fail:
	 * final, yet its dependents run as after a completed task.
	 */
	NeedsAttention: "needs_attention",
} as const;
export type TaskStatus = (typeof TaskStatus)[keyof typeof TaskStatus];

/**
 * Why a transition happens. `resume` and `retry` are the explicit, user-requested causes: only
 * they may take a task out of a terminal status.
 */
export const Cause = {
	Dispatch: "dispatch",
	Settle: "settle",
	Backoff: "backoff",
	DependencyFailed: "dependency-failed",
	Drain: "drain",
	Abort: "abort",
	Cancel: "cancel",
	RunnerLost: "runner-lost",
	Resume: "resume",
	Retry: "retry",
	/** A running task's agent asked a person a question and waits for the answer. */
	Ask: "ask",
	/** A forked run's task takes the outcome of the task it was forked from. */
	Inherit: "inherit",
} as const;
export type Cause = (typeof Cause)[keyof typeof Cause];

const EXPLICIT: readonly Cause[] = [Cause.Resume, Cause.Retry];
const ANY = "any" as const;
type Allowed = Partial<Record<TaskStatus, readonly Cause[] | typeof ANY>>;

/** The one table that decides every task status change: from → to → causes allowed. */
const TASK_TRANSITIONS: Record<TaskStatus, Allowed> = {
	queued: { running: ANY, waiting: ANY, skipped: ANY, cancelled: ANY, completed: [Cause.Inherit] },
	running: {
		completed: ANY,
		failed: ANY,
		cancelled: ANY,
		interrupted: ANY,
		superseded: [Cause.Settle],
		needs_attention: [Cause.Settle],
		queued: [Cause.Backoff],
		waiting: [Cause.Ask],
	},
	waiting: { queued: ANY, running: ANY, cancelled: ANY, skipped: ANY, failed: ANY },
	completed: {},
	failed: { queued: EXPLICIT },
	cancelled: { queued: EXPLICIT },
	skipped: { queued: EXPLICIT },
	interrupted: { queued: EXPLICIT, cancelled: ANY },
	superseded: {},
	needs_attention: { queued: EXPLICIT },
};

/** A completed run opens again only for a person's retry of a task it left `needs_attention`. */
const RUN_TRANSITIONS: Record<RunStatus, Allowed> = {
	queued: { running: ANY, cancelled: ANY, failed: ANY },
	running: { waiting: ANY, completed: ANY, failed: ANY, cancelled: ANY, interrupted: ANY },
	waiting: { running: ANY, completed: ANY, failed: ANY, cancelled: ANY, interrupted: ANY },
	completed: { running: [Cause.Retry] },
	failed: { running: EXPLICIT },
	cancelled: { running: EXPLICIT },
	interrupted: { running: EXPLICIT, cancelled: ANY },
};

const TERMINAL_TASK: ReadonlySet<TaskStatus> = new Set([
	"completed",
	"failed",
	"cancelled",
	"skipped",
	"interrupted",
	"superseded",
	"needs_attention",
]);
const TERMINAL_RUN: ReadonlySet<RunStatus> = new Set(["completed", "failed", "cancelled", "interrupted"]);

export function isTerminalTask(status: TaskStatus): boolean {
	return TERMINAL_TASK.has(status);
}

/** Whether a task in `status` lets its dependents start: it completed, or it needs a person but does not block. */
export function satisfiesDependents(status: TaskStatus): boolean {
	return status === TaskStatus.Completed || status === TaskStatus.NeedsAttention;
}

export function isTerminalRun(status: RunStatus): boolean {
	return TERMINAL_RUN.has(status);
}

function allowed(table: Record<string, Allowed>, from: string, to: string, cause: Cause): boolean {
	const causes = table[from]?.[to as TaskStatus];
	return causes === ANY || causes?.includes(cause) === true;
}

export function canTransitionTask(from: TaskStatus, to: TaskStatus, cause: Cause): boolean {
	return allowed(TASK_TRANSITIONS, from, to, cause);
}

export function canTransitionRun(from: RunStatus, to: RunStatus, cause: Cause): boolean {
	return allowed(RUN_TRANSITIONS, from, to, cause);
}

export function checkTaskTransition(taskId: string, from: TaskStatus, to: TaskStatus, cause: Cause): void {
	if (!canTransitionTask(from, to, cause)) {
		throw new CrewError(ErrorCode.InvalidTransition, `task ${taskId} cannot go from ${from} to ${to} (${cause})`);
	}
}

export function checkRunTransition(runId: string, from: RunStatus, to: RunStatus, cause: Cause): void {
	if (!canTransitionRun(from, to, cause)) {
		throw new CrewError(ErrorCode.InvalidTransition, `run ${runId} cannot go from ${from} to ${to} (${cause})`);
	}
}

/** "3 completed, 1 failed": how many tasks are in each status, in order of first appearance. */
export function statusCounts(tasks: readonly { readonly status: string }[]): string {
	const counts = new Map<string, number>();
	for (const t of tasks) counts.set(t.status, (counts.get(t.status) ?? 0) + 1);
	return [...counts].map(([status, n]) => `${n} ${status}`).join(", ") || "no tasks";
}
