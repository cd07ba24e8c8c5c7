import type { Project } from "../config/project.js";
import { CrewError, ErrorCode } from "../core/errors.js";
import { checkId } from "../core/ids.js";
import type { IntegrationRecord } from "../core/types.js";
import { RunReader } from "../engine/run-reader.js";
import { IntegrationBranch } from "../workspace/integration-branch.js";
import { Worktrees } from "../workspace/worktrees.js";

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
 * Brings a run's integration branch into the branch the repository is on, only when clean, and
 * only whole: a branch some of the run's work is missing from needs `partial`.
 */
export async function mergeRun(project: Project, runId: string, partial: boolean): Promise<MergeOutcome> {
	checkId("run", runId);
	const reader = new RunReader(project);
	let integration: IntegrationRecord | null;
	try {
		integration = reader.run(runId).integration;
	} finally {
		reader.close();
	}
	const worktrees = new Worktrees(project.root, project.crewDir);
	const branch = new IntegrationBranch(project.root, project.crewDir, worktrees);
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
