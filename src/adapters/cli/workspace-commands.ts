// `crew merge`, `worktrees`, `cleanup` and `prune --older-than`: task worktrees and their branches.

import { findProject } from "../../config/project.js";
import { CrewError, ErrorCode } from "../../core/errors.js";
import { checkId } from "../../core/ids.js";
import { Worktrees } from "../../workspace/worktrees.js";
import { mergeRun } from "../shared/run-merge.js";
import { Exit } from "./exit-codes.js";
import { openCrew } from "./open-crew.js";
import { print } from "./print.js";

/** `crew merge`: see `mergeRun`. */
export async function mergeCommand(runId: string, flags: { partial?: boolean }): Promise<number> {
	const outcome = await mergeRun(findProject(process.cwd()), runId, flags.partial === true);
	if (outcome.alreadyMerged) {
		print(`${outcome.branch} is already merged into your branch: nothing to do\n`);
		return Exit.Ok;
	}
	const left = outcome.missing.length > 0 ? `; not in it: ${outcome.missing.join(", ")}` : "";
	print(`merged ${outcome.branch} into ${outcome.into}: now at ${outcome.commit?.slice(0, 12)}${left}\n`);
	return Exit.Ok;
}

/** The task worktrees crew made here, with their branches and whether they hold uncommitted work. */
export async function worktreesCommand(runId: string | undefined, options: { json?: boolean }): Promise<number> {
	if (runId !== undefined) checkId("run", runId);
	const project = findProject(process.cwd());
	const trees = await new Worktrees(project.root, project.crewDir).list(runId);
	if (options.json) print(`${JSON.stringify(trees)}\n`);
	else if (trees.length === 0) print("no task worktrees\n");
	else {
		for (const t of trees) {
			print(`${t.runId} ${t.taskId}  ${t.branch}  ${t.dirty ? "uncommitted changes" : "clean"}  ${t.path}\n`);
		}
	}
	return Exit.Ok;
}

function report(runId: string, removed: number, kept: readonly { path: string; reason: string }[]): void {
	print(`${runId}: ${removed} worktrees removed, their work on their branches\n`);
	for (const k of kept) print(`  kept ${k.path}: ${k.reason}\n`);
}

export async function cleanupCommand(runId: string, flags: { force?: boolean }): Promise<number> {
	checkId("run", runId);
	const crew = openCrew(findProject(process.cwd()));
	try {
		const { removed, kept } = await crew.cleanup(runId, flags.force === true);
		report(runId, removed.length, kept);
		return kept.length === 0 ? Exit.Ok : Exit.Failed;
	} finally {
		crew.close();
	}
}

/** `7d`, `12h`, `30m`: an age for prune, which may be longer than any timeout. */
function parseAge(value: string): number {
	const match = /^(\d+)(m|h|d)$/.exec(value.trim());
	if (!match)
		throw new CrewError(
			ErrorCode.InvalidInput,
			`invalid age '${value}': expected minutes, hours or days, e.g. 30m, 12h, 7d`,
		);
	const unit = { m: 60_000, h: 3_600_000, d: 86_400_000 }[match[2] as "m" | "h" | "d"];
	return Number(match[1]) * unit;
}

export async function pruneCommand(flags: { olderThan: string }): Promise<number> {
	const age = parseAge(flags.olderThan);
	const crew = openCrew(findProject(process.cwd()));
	try {
		const pruned = await crew.prune(age);
		if (pruned.length === 0) print(`no ended run older than ${flags.olderThan} has worktrees\n`);
		for (const p of pruned) report(p.runId, p.removed, p.kept);
		return pruned.some((p) => p.kept.length > 0) ? Exit.Failed : Exit.Ok;
	} finally {
		crew.close();
	}
}
