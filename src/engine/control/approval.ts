// A person's word on a run's approval gates: approve what waits there, or reject it with a reason.

import { CrewError, ErrorCode } from "../../core/errors.js";
import { checkId } from "../../core/ids.js";
import { isTerminalRun, RunStatus, TaskStatus } from "../../core/status.js";
import { isLeaseHolderAlive } from "../../store/lease.js";
import type { RunQueries } from "../../store/run-queries.js";
import type { RunStore } from "../../store/run-store.js";

/**
 * Approves every task of the run waiting at its gate, once `checkRunnable` lets the run go on. A
 * live runner lets them start by itself; `runnerAlive: false` tells the caller to start a runner.
 */
export function approveRun(
	deps: {
		readonly store: RunStore;
		readonly checkRunnable: (runId: string) => void;
		readonly now: () => number;
		readonly staleAfterMs: number;
	},
	runId: string,
): { tasks: string[]; runnerAlive: boolean } {
	const run = deps.store.queries.getRun(checkId("run", runId));
	if (isTerminalRun(run.status) && run.status !== RunStatus.Interrupted) {
		throw new CrewError(ErrorCode.Conflict, `run ${runId} is ${run.status}; there is nothing to approve`);
	}
	deps.checkRunnable(runId);
	const tasks = deps.store.approve(runId);
	if (tasks.length === 0) throw new CrewError(ErrorCode.Conflict, `run ${runId} has nothing waiting for approval`);
	const runnerAlive = run.lease !== null && isLeaseHolderAlive(run.lease, deps.now(), deps.staleAfterMs);
	return { tasks, runnerAlive };
}

/** The cancel reason of a rejection of what run `runId` waits for; throws unless a reason is given and something waits. */
export function rejection(queries: RunQueries, runId: string, reason: string): string {
	if (typeof reason !== "string" || reason.trim() === "") {
		throw new CrewError(ErrorCode.InvalidInput, "a rejection needs a reason: say why with --reason");
	}
	const run = queries.getRun(checkId("run", runId));
	if (!queries.listTasks(runId).some((t) => t.status === TaskStatus.Waiting)) {
		throw new CrewError(ErrorCode.Conflict, `run ${runId} is ${run.status} and has nothing waiting for approval`);
	}
	return `rejected: ${reason.trim()}`;
}
