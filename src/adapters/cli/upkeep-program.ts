// The CLI commands that look after what runs leave: worktrees, prune, export, import, forget, merge, reconcile.

import type { Command } from "commander";
import { CrewError, ErrorCode } from "../../core/errors.js";
import type { ImportFlags } from "./archive-commands.js";
import { count } from "./option-values.js";
import type { JsonOption } from "./read-commands.js";

/**
 * The commands that look after what runs leave behind: worktrees and their cleanup, pruning old
 * runs, export and import, forget, merge, and reconcile.
 */
export function upkeepCommands(cli: Command, exit: (code: Promise<number>) => Promise<void>): void {
	const workspaces = () => import("./workspace-commands.js");
	cli
		.command("worktrees")
		.description("the task worktrees crew made here, their branches, and whether they hold uncommitted work")
		.argument("[runId]")
		.option("--json", "machine-readable output")
		.action(async (runId: string | undefined, options: JsonOption) =>
			exit((await workspaces()).worktreesCommand(runId, options)),
		);

	cli
		.command("cleanup")
		.description("remove an ended run's worktrees, committing what they hold to their branches first")
		.argument("<runId>")
		.option("--force", "also for a run whose runner is gone without having ended it")
		.action(async (runId: string, options: { force?: boolean }) =>
			exit((await workspaces()).cleanupCommand(runId, options)),
		);

	const archives = () => import("./archive-commands.js");
	cli
		.command("prune")
		.description(
			"--older-than: clean up the worktrees of runs that ended longer ago; --keep: forget ended runs beyond the newest N",
		)
		.option("--older-than <age>", "e.g. 30m, 12h, 7d")
		.option("--keep <n>", "forget the ended runs older than the newest N", count("--keep", 0))
		.option("-y, --yes", "forget without asking")
		.action(async (options: { olderThan?: string; keep?: number; yes?: boolean }) => {
			if (options.keep !== undefined && options.olderThan === undefined) {
				return exit((await archives()).pruneRunsCommand(options.keep, options));
			}
			if (options.olderThan !== undefined && options.keep === undefined) {
				return exit((await workspaces()).pruneCommand({ olderThan: options.olderThan }));
			}
			throw new CrewError(ErrorCode.InvalidInput, "crew prune needs one of --older-than <age> or --keep <n>, not both");
		});

	cli
		.command("export")
		.description("write an ended run, its records and files, to one JSON bundle")
		.argument("<runId>")
		.option("-o, --output <file>", "where to write it (default: <runId>.crew-run.json here)")
		.action(async (runId: string, options: { output?: string }) =>
			exit((await archives()).exportCommand(runId, options)),
		);

	cli
		.command("import")
		.description(
			"add the run of a bundle made by crew export to this repository's store, to view (it is never run here)",
		)
		.argument("<bundle>")
		.option("--rerun", "instead, run the bundle's goal again with this repository's workflow and team")
		.option("-d, --detach", "with --rerun: run in the background")
		.option("--json", "with --rerun: print the outcome as JSON")
		.action(async (file: string, options: ImportFlags) => exit((await archives()).importCommand(file, options)));

	cli
		.command("forget")
		.description("delete an ended run's records and files, after asking")
		.argument("<runId>")
		.option("-y, --yes", "forget without asking")
		.action(async (runId: string, options: { yes?: boolean }) =>
			exit((await archives()).forgetCommand(runId, options)),
		);

	cli
		.command("merge")
		.description(
			"merge a worktree run's integration branch crew/<runId> into your current branch (clean work tree only)",
		)
		.argument("<runId>")
		.option("--partial", "merge what the run's integration holds although some tasks' work is missing from it")
		.action(async (runId: string, options: { partial?: boolean }) =>
			exit((await workspaces()).mergeCommand(runId, options)),
		);

	cli
		.command("reconcile")
		.description("check that runs, runners, workers, worktrees and branches agree; --fix ends orphans")
		.option("--fix", "end orphaned workers and mark runs whose runner is gone interrupted, keeping all work")
		.option("--json", "machine-readable output")
		.action(async (options: { fix?: boolean; json?: boolean }) =>
			exit((await import("./reconcile-command.js")).reconcileCommand(options)),
		);
}
