// Housekeeping of ended runs: removing their worktrees, pruning old ones, forgetting their records and files.

import { CrewError, ErrorCode } from "../../core/errors.js";
import { checkId } from "../../core/ids.js";
import type { RunRecord } from "../../core/records.js";
import { isTerminalRun, RunStatus } from "../../core/status.js";
import type { ArtifactFiles } from "../../store/artifact-files.js";
import { isLeaseHolderAlive } from "../../store/lease.js";
import type { RunArchive } from "../../store/run-archive.js";
import type { RunQueries } from "../../store/run-queries.js";
import type { Worktrees } from "../../workspace/worktrees.js";

/** What a worktree removal left: the worktrees removed, and those kept with why. */
export interface Cleaned {
	readonly removed: string[];
	readonly kept: { path: string; reason: string }[];
}

interface Deps {
	readonly queries: RunQueries;
	readonly worktrees: Worktrees;
	readonly now: () => number;
	readonly staleAfterMs: number;
}

/**
 * Removes the worktrees of an ended run, committing what they hold to their branches first;
 * what cannot be committed is kept. `force` also takes a run whose runner is gone without
 * having ended it; a run with a live runner is never cleaned up.
 */
export async function cleanupRun(deps: Deps, runId: string, force: boolean): Promise<Cleaned> {
	const run = deps.queries.getRun(runId);
	const alive = run.lease !== null && isLeaseHolderAlive(run.lease, deps.now(), deps.staleAfterMs);
	if (alive && !isTerminalRun(run.status)) {
		throw new CrewError(
			ErrorCode.Conflict,
			`run ${runId} is ${run.status} with a live runner; cancel it before cleaning up`,
		);
	}
	if (!force && (!isTerminalRun(run.status) || run.status === RunStatus.Interrupted)) {
		throw new CrewError(
			ErrorCode.Conflict,
			`run ${runId} has not ended (${run.status}); resume or cancel it, or clean up with --force`,
		);
	}
	return deps.worktrees.cleanup(runId);
}

/** Cleans up every ended run that finished more than `ageMs` ago; returns what each left. */
export async function pruneRuns(
	deps: Deps,
	ageMs: number,
): Promise<{ runId: string; removed: number; kept: Cleaned["kept"] }[]> {
	const before = deps.now() - ageMs;
	const old = deps.queries
		.listRuns()
		.filter((r) => isTerminalRun(r.status) && r.status !== RunStatus.Interrupted)
		.filter((r) => r.finishedAt !== null && Date.parse(r.finishedAt) < before);
	const pruned = [];
	for (const run of old) {
		const { removed, kept } = await deps.worktrees.cleanup(run.id);
		if (removed.length > 0 || kept.length > 0) pruned.push({ runId: run.id, removed: removed.length, kept });
	}
	return pruned;
}

/**
 * Deletes an ended run's records and files. A run still going, or with task worktrees left (they
 * may hold work), is refused.
 */
export async function forgetRun(
	deps: Deps & { readonly archive: RunArchive; readonly files: ArtifactFiles },
	runId: string,
): Promise<void> {
	const run = deps.queries.getRun(checkId("run", runId));
	if (!isTerminalRun(run.status)) {
		throw new CrewError(ErrorCode.Conflict, `run ${runId} is ${run.status}; cancel it before forgetting it`);
	}
	if ((await deps.worktrees.list(runId).catch(() => [])).length > 0) {
		throw new CrewError(ErrorCode.Conflict, `run ${runId} has task worktrees; crew cleanup ${runId} first`);
	}
	deps.archive.forget(runId);
	deps.files.remove(runId);
}

/** The ended runs among those older than the `keep` newest: what `crew prune --keep` forgets. */
export function runsBeyond(queries: RunQueries, keep: number): RunRecord[] {
	return queries
		.listRuns(Number.MAX_SAFE_INTEGER)
		.slice(keep)
		.filter((run) => isTerminalRun(run.status));
}
