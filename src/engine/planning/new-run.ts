// A planned run made into a new run's record: its id, its base commit, and the checks every new run passes first.

import { randomBytes } from "node:crypto";
import { CrewError, ErrorCode } from "../../core/errors.js";
import type { NewRun } from "../../store/run-changes.js";
import { dirtyPaths, hasCommit, headCommit } from "../../workspace/worktrees.js";
import type { Plan } from "./plan-input.js";
import { checkRunTrusted, runReach } from "./reach.js";

/** `YYYYMMDD-HHMMSS-` and six random hex digits: sortable, unique enough, and a valid id. */
export function newRunId(now: number): string {
	const stamp = new Date(now).toISOString().replace(/[-:]/g, "").replace("T", "-").slice(0, 15);
	return `${stamp}-${randomBytes(3).toString("hex")}`;
}

/**
 * The record of new run `id` planned as `plan` in the repository at `root`. Refused, listing
 * them, when the plan would run commands of the repository's own files and it is not `trusted`.
 * Worktrees (and a workflow script's run) start from `base` when given (a fork's), else from
 * HEAD, whose tracked files must then hold no change worktrees would not see, unless the plan
 * allows it.
 */
export function newRunRecord(root: string, trusted: boolean, plan: Plan, base: string | undefined, id: string): NewRun {
	checkRunTrusted(root, trusted, runReach(plan.tasks, plan.options));
	const fromHead = plan.tasks.some((t) => t.worktree) || (plan.options.script !== undefined && hasCommit(root));
	const baseCommit = base || (fromHead ? headCommit(root) : undefined);
	const dirty = baseCommit && !plan.options.allowDirty ? dirtyPaths(root) : [];
	if (dirty.length > 0) {
		throw new CrewError(
			ErrorCode.Conflict,
			`worktree mode starts from the last commit, and these tracked files have changes it would not see: ${dirty.slice(0, 10).join(", ")}${dirty.length > 10 ? ", …" : ""}; commit or stash them, or pass --allow-dirty`,
		);
	}
	return { id, ...plan, options: { ...plan.options, ...(baseCommit ? { baseCommit } : {}) } };
}
