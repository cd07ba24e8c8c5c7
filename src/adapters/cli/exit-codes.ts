// The exit codes of every crew command, and the code for each way a run can end.

import { RunEnding } from "../shared/run-ending.js";

/**
 * The exit codes of every crew command, in one place; docs/commands.md's table documents them.
 * `IntegrationIncomplete` and `NeedsPerson` let a script tell apart a run whose tasks all
 * completed but whose work is not all on its integration branch, and a run that stopped for a
 * person's decision (an approval, a spent budget, a task that needs attention), from a run that failed.
 */
export const Exit = {
	/** The command did what it was asked; a run completed (or, detached, started). */
	Ok: 0,
	/** A run failed or was cancelled, or the command was refused. */
	Failed: 1,
	/** Bad input: an unknown option, a bad value, a run, task or resource that does not exist. */
	Usage: 2,
	/** The run's tasks completed, but their work is not all on its integration branch. */
	IntegrationIncomplete: 3,
	/** The run stopped for a person: only an approval lets it go on, its budget is spent, or tasks of it need attention. */
	NeedsPerson: 4,
	/** A foreground run was interrupted by SIGINT, SIGTERM or SIGHUP; `crew resume` continues it. */
	Interrupted: 130,
} as const;
export type Exit = (typeof Exit)[keyof typeof Exit];

/** The exit code of a command that ran or followed a run until it stopped. */
export function exitOfRun(ending: RunEnding): Exit {
	switch (ending) {
		case RunEnding.Completed:
			return Exit.Ok;
		case RunEnding.IntegrationIncomplete:
			return Exit.IntegrationIncomplete;
		case RunEnding.NeedsPerson:
			return Exit.NeedsPerson;
		case RunEnding.Interrupted:
			return Exit.Interrupted;
		default:
			return Exit.Failed;
	}
}
