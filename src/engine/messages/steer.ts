// Steering a running agent with a person's message, and waiting for the runner to deliver or refuse it.

import { setTimeout as delay } from "node:timers/promises";
import { ErrorCode, isCrewError } from "../../core/errors.js";
import { checkId } from "../../core/ids.js";
import type { TaskRecord } from "../../core/records.js";
import { TaskStatus } from "../../core/status.js";
import { checkPersonText } from "../../core/steer-limits.js";
import { isLeaseHolderAlive } from "../../store/lease.js";
import type { RunStore } from "../../store/run-store.js";

export interface Steered {
	readonly runId: string;
	readonly taskId: string;
	/** The message's record. */
	readonly message: number;
	/** `queued` when no runner gave it to the agent within the wait. */
	readonly state: "queued" | "delivered" | "refused";
	/** Why it was refused, or why it still waits. */
	readonly reason?: string;
}

export interface SteerDeps {
	readonly store: RunStore;
	readonly now: () => number;
	readonly staleAfterMs: number;
	readonly pollMs: number;
}

/**
 * Records `text` for the running agent of task or step `ref` and waits up to `waitMs` for the
 * run's runner to give it to the agent or refuse it. A step with several tasks means its running one.
 */
export async function steerTask(
	deps: SteerDeps,
	runId: string,
	ref: string,
	text: string,
	waitMs: number,
): Promise<Steered> {
	checkId("run", runId);
	checkPersonText(text, "a steering message");
	const { store } = deps;
	const task = taskOrOneOfStep(store, runId, ref, TaskStatus.Running);
	const message = store.messages.request(runId, task.id, text);
	const until = deps.now() + waitMs;
	for (;;) {
		const row = store.messages.get(message);
		if (row && row.state !== "queued") {
			return { runId, taskId: task.id, message, state: row.state, ...(row.detail ? { reason: row.detail } : {}) };
		}
		if (deps.now() >= until) break;
		await delay(deps.pollMs);
	}
	const run = store.queries.getRun(runId);
	const alive = run.lease !== null && isLeaseHolderAlive(run.lease, deps.now(), deps.staleAfterMs);
	const reason = alive
		? "its agent has not taken it yet; it gets it when it can"
		: `no runner holds run ${runId} now; a runner that resumes it gives the message to the task's agent when the task runs`;
	return { runId, taskId: task.id, message, state: "queued", reason };
}

/** Task `ref`, or the one task of step `ref` that is `status` when the step has several. */
export function taskOrOneOfStep(store: RunStore, runId: string, ref: string, status: TaskStatus): TaskRecord {
	try {
		return store.queries.findTask(runId, ref);
	} catch (error) {
		if (!isCrewError(error, ErrorCode.InvalidInput)) throw error;
		const found = store.queries.listTasks(runId).filter((t) => t.stepId === ref && t.status === status);
		if (found.length === 1 && found[0]) return found[0];
		throw error;
	}
}
