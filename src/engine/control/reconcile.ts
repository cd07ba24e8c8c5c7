// Checking that runs, leases, workers, worktrees and branches agree, and repairing what is safe to repair.

import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { ErrorCode, isCrewError } from "../../core/errors.js";
import type { ParentLink, RunRecord } from "../../core/records.js";
import { isTerminalRun, RunStatus, TaskStatus } from "../../core/status.js";
import { crewRunGroups } from "../../runtimes/process/process-group.js";
import type { RuntimeRegistry } from "../../runtimes/runtime-registry.js";
import { isLeaseHolderAlive } from "../../store/lease.js";
import type { RunQueries } from "../../store/run-queries.js";
import type { RunStore } from "../../store/run-store.js";
import type { Worktrees } from "../../workspace/worktrees.js";
import { UNFINISHED_FORK } from "../history/fork.js";

export interface ReconcileReport {
	/**
	 * Runs recorded as running (or waiting) whose runner is gone; a delegated one names its
	 * `parent`, with which it resumes.
	 */
	readonly orphanedRuns: readonly OrphanedRun[];
	/**
	 * Process groups working for a run of this store that has no live runner. `proven`: crew
	 * started them (an attempt token, see `AttemptSeal`), and `--fix` ends them; the others only
	 * carry the run's id (`CREW_RUN_ID`), which proves nothing, and are only reported.
	 */
	readonly orphanedProcesses: readonly {
		runId: string;
		pgid: number;
		runStatus: string;
		fixed: boolean;
		proven: boolean;
	}[];
	/** Task worktrees of runs that have ended, or that the store does not know. */
	readonly leftoverWorktrees: readonly { runId: string; taskId: string; path: string; dirty: boolean; why: string }[];
	/** crew's branches of runs the store does not know. */
	readonly strayBranches: readonly { branch: string; runId: string }[];
	/**
	 * Forks whose making stopped before the store recorded them (a kill -9 of `crew fork`): their
	 * folder of copied files and their branches, copies of their source's. `--fix` removes them.
	 */
	readonly unfinishedForks: readonly { runId: string; from: string; branches: readonly string[]; fixed: boolean }[];
	/** Run folders of runs the store does not know, but unfinished forks'. */
	readonly strayFolders: readonly { runId: string; path: string }[];
	/** What could not be checked, and why. */
	readonly notes: readonly string[];
}

export interface OrphanedRun {
	readonly runId: string;
	readonly status: string;
	readonly runner: string;
	readonly fixed: boolean;
	readonly parent?: ParentLink;
}

export interface ReconcileDeps {
	readonly store: RunStore;
	readonly queries: RunQueries;
	readonly runtimes: RuntimeRegistry;
	readonly worktrees: Worktrees;
	/** This store's folder of run folders: a worker crew started for a run has its prompt there. */
	readonly runsDir: string;
	readonly now: () => number;
	readonly staleAfterMs: number;
}

/** Whether the run should have a live runner and has none. */
function orphaned(run: RunRecord, now: number, staleAfterMs: number): boolean {
	if (run.status !== RunStatus.Running && run.status !== RunStatus.Waiting) return false;
	// A run waiting for approval with no runner is as it should be: approve starts one.
	if (run.status === RunStatus.Waiting && run.lease === null) return false;
	return run.lease === null || !isLeaseHolderAlive(run.lease, now, staleAfterMs);
}

/**
 * Checks that runs, their runners' leases, worker processes, worktrees and branches agree. With
 * `fix`, a run whose runner is gone gets its workers ended (those provably crew's: see
 * `provenGroup` and `AttemptSeal`) and is marked interrupted (its running tasks too), and the
 * provable workers of ended runs are ended; nothing finished, no worktree and no branch is
 * touched, so `crew resume` carries on from there and all work is kept.
 */
export async function reconcile(deps: ReconcileDeps, fix: boolean): Promise<ReconcileReport> {
	const { store, queries, runtimes, worktrees } = deps;
	const runs = new Map(queries.listRuns(Number.MAX_SAFE_INTEGER).map((run) => [run.id, run]));
	const now = deps.now();
	const orphanedRuns: OrphanedRun[] = [];
	for (const run of runs.values()) {
		if (!orphaned(run, now, deps.staleAfterMs)) continue;
		const runner = run.lease ? `pid ${run.lease.pid} on ${run.lease.host}` : "none";
		let fixed = false;
		if (fix) {
			for (const attempt of queries.liveAttempts(run.id)) if (attempt.process) await runtimes.reap(attempt.process);
			await runtimes.reapRun(run.id, join(deps.runsDir, run.id));
			const changes = queries
				.listTasks(run.id)
				.filter((t) => t.status === TaskStatus.Running)
				.map((t) => ({
					taskId: t.id,
					to: TaskStatus.Interrupted,
					cause: "runner-lost" as const,
					error: "its runner is gone",
				}));
			try {
				store.finishOrphanedRun(
					run.id,
					run.epoch,
					RunStatus.Interrupted,
					"runner-lost",
					changes,
					`runner ${runner} is gone`,
				);
				fixed = true;
			} catch (error) {
				// A runner took the run while we looked: it is not orphaned any more.
				if (!isCrewError(error, ErrorCode.Conflict)) throw error;
			}
		}
		orphanedRuns.push({
			runId: run.id,
			status: run.status,
			runner,
			fixed,
			...(run.parent ? { parent: run.parent } : {}),
		});
	}

	const orphanedProcesses: { runId: string; pgid: number; runStatus: string; fixed: boolean; proven: boolean }[] = [];
	for (const [runId, groups] of crewRunGroups(runtimes.seal, (id) => join(deps.runsDir, id))) {
		const run = runs.get(runId);
		// Workers of runs of other repositories are theirs to look after.
		if (!run) continue;
		const current = queries.findRun(runId) ?? run;
		const runnerAlive = current.lease !== null && isLeaseHolderAlive(current.lease, deps.now(), deps.staleAfterMs);
		if (runnerAlive && !isTerminalRun(current.status)) continue;
		for (const pgid of groups.proven) {
			if (fix) await runtimes.endGroup(pgid);
			orphanedProcesses.push({ runId, pgid, runStatus: current.status, fixed: fix, proven: true });
		}
		// Found by the run id in their environment alone, which anyone can set: reported for a
		// person to look at, never signalled.
		for (const pgid of groups.unproven) {
			orphanedProcesses.push({ runId, pgid, runStatus: current.status, fixed: false, proven: false });
		}
	}

	const notes: string[] = [];
	const leftoverWorktrees: { runId: string; taskId: string; path: string; dirty: boolean; why: string }[] = [];
	const strayBranches: { branch: string; runId: string }[] = [];
	try {
		for (const tree of await worktrees.list()) {
			const run = queries.findRun(tree.runId);
			if (run && !isTerminalRun(run.status)) continue;
			const why = run ? `its run is ${run.status}` : "its run is not in this store";
			leftoverWorktrees.push({ runId: tree.runId, taskId: tree.taskId, path: tree.path, dirty: tree.dirty, why });
		}
		for (const branch of await worktrees.branches()) if (!runs.has(branch.runId)) strayBranches.push(branch);
	} catch (error) {
		notes.push(`worktrees and branches not checked: ${error instanceof Error ? error.message.split("\n")[0] : error}`);
	}
	const unknown = unknownFolders(deps.runsDir, (id) => queries.findRun(id) !== undefined);
	const unfinishedForks = [];
	for (const { runId, from } of unknown.filter((f) => f.from !== undefined)) {
		const branches = strayBranches.filter((b) => b.runId === runId).map((b) => b.branch);
		if (fix) {
			await worktrees.deleteBranches(branches);
			rmSync(join(deps.runsDir, runId), { recursive: true, force: true });
		}
		unfinishedForks.push({ runId, from: from as string, branches, fixed: fix });
	}
	const forks = new Set(unfinishedForks.map((f) => f.runId));
	return {
		orphanedRuns,
		orphanedProcesses,
		leftoverWorktrees,
		strayBranches: strayBranches.filter((b) => !forks.has(b.runId)),
		unfinishedForks,
		strayFolders: unknown.filter((f) => f.from === undefined).map(({ runId, path }) => ({ runId, path })),
		notes,
	};
}

/** The run folders in `runsDir` of runs `known` does not know, and for an unfinished fork, its source. */
function unknownFolders(
	runsDir: string,
	known: (runId: string) => boolean,
): { runId: string; path: string; from?: string }[] {
	if (!existsSync(runsDir)) return [];
	return readdirSync(runsDir, { withFileTypes: true })
		.filter((entry) => entry.isDirectory() && !known(entry.name))
		.map((entry) => {
			const path = join(runsDir, entry.name);
			const marker = join(path, UNFINISHED_FORK);
			const from = existsSync(marker) ? readFileSync(marker, "utf8").trim() : undefined;
			return { runId: entry.name, path, ...(from ? { from } : {}) };
		});
}
