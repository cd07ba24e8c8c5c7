// The CLI commands of scheduled runs: `schedule add|list|rm|pause|resume|run` and `scheduler`.

import { type Command, Option } from "commander";
import { withRunOptions } from "./run-options.js";
import type { ScheduleFlags } from "./schedule-command.js";

/** The commands that schedule runs, and the one that starts them on time. */
export function scheduleCommands(cli: Command, exit: (code: Promise<number>) => Promise<void>): void {
	const commands = () => import("./schedule-command.js");
	const schedule = cli
		.command("schedule")
		.description("runs on a schedule: cron, every <duration> or once --at; crew scheduler or crew serve starts them");

	withRunOptions(
		schedule
			.command("add")
			.description("a schedule of runs of a goal, checked now as crew run would check the run")
			.argument("<name>", "the schedule's name")
			.argument("[goal]", "what each run is for; - reads it from standard input")
			.option("--goal-file <path>", "read the goal from this file; - for standard input")
			.option("--cron <expression>", 'a cron expression, e.g. "0 3 * * *" (minutes; 6 fields: seconds)')
			.option("--tz <zone>", "with --cron: its time zone, e.g. Europe/Paris (default: this machine's)")
			.option("--every <duration>", "a run every duration, e.g. 30s, 15m, 1h, 1d, from now")
			.option("--at <time>", "one run at this ISO time, e.g. 2026-12-24T09:00:00Z")
			.addOption(
				new Option("--overlap <rule>", "when a slot comes while the previous run still runs (default skip)").choices([
					"skip",
					"allow",
					"queue",
				]),
			),
	)
		.option("--json", "print the schedule as JSON")
		.action(async (name: string, goal: string | undefined, options: ScheduleFlags) =>
			exit((await commands()).scheduleAddCommand(name, goal, options)),
		);

	schedule
		.command("list")
		.description("each schedule: when, next slot, its latest slots and their runs, paused or not")
		.option("--json", "machine-readable output")
		.action(async (options: { json?: boolean }) => exit((await commands()).scheduleListCommand(options)));

	schedule
		.command("rm")
		.description("remove a schedule; the runs it started stay")
		.argument("<name>")
		.action(async (name: string) => exit((await commands()).scheduleRemoveCommand(name)));

	schedule
		.command("pause")
		.description("no slot of the schedule starts a run until it is resumed")
		.argument("<name>")
		.action(async (name: string) => exit((await commands()).schedulePauseCommand(name, true)));

	schedule
		.command("resume")
		.description("slots of a paused schedule start runs again (from the next one; the paused ones are not made up)")
		.argument("<name>")
		.action(async (name: string) => exit((await commands()).schedulePauseCommand(name, false)));

	schedule
		.command("run")
		.description("one run of the schedule now, outside its slots, in the background")
		.argument("<name>")
		.option("--json", "print {runId, status, schedule}")
		.action(async (name: string, options: { json?: boolean }) =>
			exit((await commands()).scheduleRunCommand(name, options)),
		);

	cli
		.command("scheduler")
		.description("start this repository's scheduled runs on their slots, in the foreground, until stopped")
		.option("--once", "look once, start what is due, and exit (for a system's cron or timer to call)")
		.action(async (options: { once?: boolean }) => exit((await commands()).schedulerCommand(options)));
}
