// The shapes a run takes in views: as people read it, whole, as changes after a point, and as a listing.

import type { ListedTask, RunRecord, TaskRecord, TaskView } from "../../core/records.js";
import { RunStatus, TaskStatus } from "../../core/status.js";
import { taskOrder } from "../../core/task-order.js";
import type { Usage } from "../../core/usage.js";
import { DEFAULT_STALE_AFTER_MS, isLeaseHolderAlive } from "../../store/lease.js";
import type { RunQueries } from "../../store/run-queries.js";
import { RUNNER_GONE } from "../../store/tasks-json-sql.js";

/**
 * How a run reads to people: a run whose runner is gone is `interrupted`, and so are the tasks it
 * was running, even before anyone resumes or reconciles it.
 */
export function presentRun<T extends TaskRecord>(
	snapshot: { readonly run: RunRecord; readonly tasks: readonly T[] },
	now: number,
	staleAfterMs = DEFAULT_STALE_AFTER_MS,
): { readonly run: RunRecord; readonly tasks: readonly T[] } {
	const { run } = snapshot;
	const active = run.status === RunStatus.Running || run.status === RunStatus.Waiting;
	if (!active || !run.lease || isLeaseHolderAlive(run.lease, now, staleAfterMs)) return snapshot;
	// A run waiting for approval has nothing running: it stays waiting, and approving it starts a runner.
	if (run.status === RunStatus.Waiting) return snapshot;
	return {
		run: { ...run, status: RunStatus.Interrupted, error: run.error ?? `runner pid ${run.lease.pid} is gone` },
		tasks: snapshot.tasks.map((t) =>
			t.status === TaskStatus.Running ? { ...t, status: TaskStatus.Interrupted, error: RUNNER_GONE } : t,
		),
	};
}

/** The runs a schedule started that have not ended, oldest first, as people see them (see `presentRun`). */
export function liveScheduledRuns(queries: RunQueries, now: number, staleAfterMs: number): RunRecord[] {
	return queries
		.runsWithStatus([RunStatus.Queued, RunStatus.Running, RunStatus.Waiting])
		.filter((run) => run.options.schedule !== undefined)
		.map((run) => presentRun({ run, tasks: [] }, now, staleAfterMs).run)
		.reverse();
}

export interface RunView {
	readonly run: RunRecord;
	readonly tasks: readonly TaskView[];
	/** The seq of the run's latest event as of this view: ask for `changes` after it. */
	readonly seq: number;
}

/** What changed in a run after a seq: see `RunReader.changes`. */
export interface RunChanges extends RunView {
	/** Tokens and cost of the whole run. */
	readonly usage: Usage;
}

/** A view with `changes` after it merged in: tasks in the order every view lists them. */
export function mergeView(view: RunView, changes: RunView): RunView {
	if (changes.tasks.length === 0) return { ...view, run: changes.run, seq: changes.seq };
	const byId = new Map(view.tasks.map((t) => [t.id, t]));
	for (const task of changes.tasks) byId.set(task.id, task);
	const joined = [...byId.values()].sort((a, b) => a.index - b.index);
	return { run: changes.run, tasks: taskOrder(joined), seq: changes.seq };
}

/** A run with its tasks as task lists show them, in the order of `taskOrder`. */
export interface RunListing {
	readonly run: RunRecord;
	readonly tasks: readonly ListedTask[];
}
