// What retrying a task queues (it and the dependents it had skipped or cancelled), or why it is refused.

import { buildDag } from "../../core/dag.js";
import { CrewError, ErrorCode } from "../../core/errors.js";
import { downstreamOf } from "../../core/ready-queue.js";
import type { RunRecord } from "../../core/records.js";
import { RunStatus, satisfiesDependents, TaskStatus } from "../../core/status.js";
import type { TaskChange } from "../../store/run-changes.js";
import type { RunQueries } from "../../store/run-queries.js";

const RETRIABLE: readonly string[] = [
	TaskStatus.Failed,
	TaskStatus.Cancelled,
	TaskStatus.Skipped,
	TaskStatus.NeedsAttention,
];

/**
 * What retrying task `ref` of `run` queues: the task, and the dependents it had skipped or
 * cancelled. Refused while a runner holds the run (`leaseLive`) or its lease is left by a dead one,
 * for a task that did not fail, and for one whose own dependencies have not completed.
 */
export function retryChanges(queries: RunQueries, run: RunRecord, ref: string, leaseLive: boolean): TaskChange[] {
	if (run.lease !== null) {
		throw new CrewError(
			ErrorCode.Conflict,
			leaseLive
				? `run ${run.id} is being run by pid ${run.lease.pid}; retry a task once the run has ended`
				: `run ${run.id} was interrupted; continue it with crew resume ${run.id}`,
		);
	}
	const task = queries.findTask(run.id, ref);
	if (!RETRIABLE.includes(task.status)) {
		throw new CrewError(
			ErrorCode.Conflict,
			`task ${task.id} of run ${run.id} is ${task.status}; only failed, cancelled, skipped or needs_attention tasks can be retried`,
		);
	}
	if (run.status === RunStatus.Completed && task.status !== TaskStatus.NeedsAttention) {
		throw new CrewError(
			ErrorCode.Conflict,
			`run ${run.id} completed; only a task that needs attention opens it again, and task ${task.id} is ${task.status}`,
		);
	}
	const tasks = new Map(queries.listTasks(run.id).map((t) => [t.id, t]));
	const dag = buildDag(queries.taskSpecs(run.id));
	const start = dag.indexOf.get(task.id) as number;
	for (const d of dag.dependencies[start] ?? []) {
		const dependency = tasks.get(dag.ids[d] as string);
		if (dependency && !satisfiesDependents(dependency.status)) {
			throw new CrewError(
				ErrorCode.Conflict,
				`task ${task.id} depends on ${dependency.id}, which is ${dependency.status}; retry ${dependency.id} first`,
			);
		}
	}
	const changes: TaskChange[] = [{ taskId: task.id, to: TaskStatus.Queued, cause: "retry" }];
	for (const d of downstreamOf(dag, start)) {
		const dependent = tasks.get(dag.ids[d] as string);
		if (dependent?.status === TaskStatus.Skipped || dependent?.status === TaskStatus.Cancelled) {
			changes.push({ taskId: dependent.id, to: TaskStatus.Queued, cause: "retry" });
		}
	}
	return changes;
}
