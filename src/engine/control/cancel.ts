// Cancelling a run: asking its live runner through the store, or ending a gone runner's workers and tasks.

import { setTimeout as sleep } from "node:timers/promises";
import { ErrorCode, errorMessage, isCrewError } from "../../core/errors.js";
import { checkId } from "../../core/ids.js";
import type { AttemptRecord, RunRecord } from "../../core/records.js";
import { isTerminalRun, RunStatus, TaskStatus } from "../../core/status.js";
import type { RuntimeRegistry } from "../../runtimes/runtime-registry.js";
import type { ArtifactFiles } from "../../store/artifact-files.js";
import { isLeaseHolderAlive } from "../../store/lease.js";
import type { TaskChange } from "../../store/run-changes.js";
import type { RunStore } from "../../store/run-store.js";
import type { RemoteRuntimes } from "../run/remote-runtimes.js";

export interface CancelDeps {
	readonly store: RunStore;
	readonly runtimes: RuntimeRegistry;
	readonly files: ArtifactFiles;
	readonly now: () => number;
	readonly staleAfterMs: number;
	/** The queue of a run whose attempts run on crew workers, to tell them. */
	readonly remote: (run: RunRecord) => Promise<RemoteRuntimes>;
}

/** Tasks a cancel ends: those not yet ended. */
const OPEN: readonly TaskStatus[] = [TaskStatus.Queued, TaskStatus.Running, TaskStatus.Waiting, TaskStatus.Interrupted];

/**
 * Cancels a run. A live runner is asked through the store and waited for up to `waitMs`; a run
 * without one has its leftover workers ended, its unfinished delegated runs cancelled (their
 * runner was its own), and its unfinished tasks cancelled here.
 */
export async function cancelRun(deps: CancelDeps, runId: string, why: string, waitMs: number): Promise<RunStatus> {
	const { store, now, staleAfterMs } = deps;
	const queries = store.queries;
	let reason = why;
	const run = queries.getRun(checkId("run", runId));
	if (isTerminalRun(run.status) && run.status !== RunStatus.Interrupted) return run.status;
	if (run.lease !== null && isLeaseHolderAlive(run.lease, now(), staleAfterMs)) {
		store.requestCancel(runId, reason);
		const until = now() + waitMs;
		for (;;) {
			const current = queries.getRun(runId);
			if (isTerminalRun(current.status)) return current.status;
			// A runner that died while asked to cancel is treated like any gone runner below.
			if (!current.lease || !isLeaseHolderAlive(current.lease, now(), staleAfterMs)) break;
			if (now() >= until) return current.status;
			await sleep(50);
		}
		return cancelRun(deps, runId, reason, 0);
	}
	const live = queries.liveAttempts(runId);
	for (const attempt of live) if (attempt.process) await deps.runtimes.reap(attempt.process);
	for (const child of queries.delegations.children(runId)) {
		if (!isTerminalRun(child.status as RunStatus) || child.status === RunStatus.Interrupted)
			await cancelRun(deps, child.runId, `its parent run ${runId} was cancelled: ${why}`, waitMs);
	}
	if (run.options.queue) reason += await cancelRemote(deps, run, live, reason);
	else await deps.runtimes.reapRun(runId, deps.files.runDir(runId));
	const changes: TaskChange[] = queries
		.listTasks(runId)
		.filter((t) => OPEN.includes(t.status))
		.map((t) => ({ taskId: t.id, to: TaskStatus.Cancelled, cause: "cancel", error: reason }));
	try {
		store.finishOrphanedRun(runId, run.epoch, RunStatus.Cancelled, "cancel", changes, reason);
	} catch (error) {
		if (isCrewError(error, ErrorCode.Conflict)) return cancelRun(deps, runId, reason, waitMs);
		throw error;
	}
	return RunStatus.Cancelled;
}

/**
 * Ends a dead runner's remote attempts wherever they run; says what could not be done, to add
 * to the cancel's reason: the run ends cancelled either way.
 */
async function cancelRemote(
	deps: CancelDeps,
	run: RunRecord,
	live: readonly AttemptRecord[],
	reason: string,
): Promise<string> {
	let remote: RemoteRuntimes | undefined;
	try {
		remote = await deps.remote(run);
		for (const attempt of live) await remote.cancel(run.id, attempt.taskId, attempt.number, reason);
		return "";
	} catch (error) {
		return ` (its remote attempts were not told: ${errorMessage(error)})`;
	} finally {
		await remote?.close();
	}
}
