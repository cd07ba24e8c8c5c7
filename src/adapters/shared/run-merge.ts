// Merging a run's integration branch into the current branch: only clean, whole, and as the run recorded it.

import type { Project } from "../../config/project.js";
import { CrewError, ErrorCode } from "../../core/errors.js";
import { checkId } from "../../core/ids.js";
import type { RunRecord } from "../../core/records.js";
import { isTerminalRun, RunStatus } from "../../core/status.js";
import { RunReader } from "../../engine/views/reader.js";
import { DEFAULT_STALE_AFTER_MS, isLeaseHolderAlive } from "../../store/lease.js";
import { IntegrationBranch } from "../../workspace/integration-branch.js";
import { Worktrees } from "../../workspace/worktrees.js";

/** What merging a run's integration branch did: `into` and `commit` when it merged. */
export interface MergeOutcome {
	readonly runId: string;
	readonly branch: string;
	readonly merged: boolean;
	readonly alreadyMerged: boolean;
	/** The branch it merged into and the commit that branch is now at. */
	readonly into?: string;
	readonly commit?: string;
	/** Tasks whose work is not on the integration branch (merged anyway with `partial`). */
	readonly missing: readonly string[];
}

/**
 * Brings a run's integration branch into the branch the repository is on, only when clean, only
 * as the ended run recorded it (a branch a run left mid-integration, or one moved since, is not
 * its integration), and only whole: a branch some of the run's work is missing from needs `partial`.
 */
export async function mergeRun(project: Project, runId: string, partial: boolean): Promise<MergeOutcome> {
	checkId("run", runId);
	const reader = new RunReader(project);
	let run: RunRecord;
	try {
		run = reader.run(runId);
	} finally {
		reader.close();
	}
	const worktrees = new Worktrees(project.root, project.crewDir);
	const branch = new IntegrationBranch(project.root, project.crewDir, worktrees);
	const { integration } = run;
	const tip = await branch.tip(runId);
	if (tip !== undefined) checkRecorded(run, branch.name(runId), tip);
	const missing = integration?.missing ?? [];
	if (missing.length > 0 && !partial) {
		const why = integration?.status === "skipped" ? "the run was cancelled before its branches were integrated" : "";
		throw new CrewError(
			ErrorCode.Conflict,
			`${branch.name(runId)} lacks the work of ${missing.join(", ")}${why ? ` (${why})` : ""}; merge what it holds with crew merge ${runId} --partial, and bring the rest from ${missing.map((id) => worktrees.branchOf(runId, id)).join(", ")}`,
		);
	}
	const name = branch.name(runId);
	if (await branch.isMerged(runId)) return { runId, branch: name, merged: false, alreadyMerged: true, missing };
	const { into, commit } = await branch.mergeIntoCurrent(runId);
	return { runId, branch: name, merged: true, alreadyMerged: false, into, commit, missing };
}

/** Throws unless `tip`, where the run's branch `name` is, is the integration the run recorded when it ended. */
function checkRecorded(run: RunRecord, name: string, tip: string): void {
	const { id, status, integration } = run;
	if (!isTerminalRun(status) || status === RunStatus.Interrupted) {
		const gone =
			status === RunStatus.Interrupted ||
			(run.lease !== null && !isLeaseHolderAlive(run.lease, Date.now(), DEFAULT_STALE_AFTER_MS));
		const next = gone ? `crew resume ${id} finishes it and its integration` : `wait for it to end (crew watch ${id})`;
		throw new CrewError(
			ErrorCode.Conflict,
			`run ${id} is ${status}${gone && status !== RunStatus.Interrupted ? " and its runner is gone" : ""}: ${name} holds what its integration had merged so far, which the run has not recorded; ${next}, then crew merge ${id}`,
		);
	}
	if (integration === null) {
		throw new CrewError(
			ErrorCode.Conflict,
			`run ${id} recorded no integration, yet ${name} is there: crew did not make it as the run's integration; merge it yourself if you mean to (git merge ${name})`,
		);
	}
	if (integration.commit !== undefined && integration.commit !== tip) {
		throw new CrewError(
			ErrorCode.Conflict,
			`${name} is at ${tip.slice(0, 12)}, not at ${integration.commit.slice(0, 12)} where run ${id} recorded its integration: it moved since; merge it yourself if you mean to (git merge ${name})`,
		);
	}
}
