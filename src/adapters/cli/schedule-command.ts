// `crew schedule add|list|rm|pause|resume|run` and `crew scheduler`: schedules of runs, and starting them on time.

import { findProject } from "../../config/project.js";
import { loadSettings, type Settings } from "../../config/settings.js";
import { checkId } from "../../core/ids.js";
import type { Crew } from "../../engine/crew.js";
import { configuredRuntimes } from "../shared/configured-runtimes.js";
import { addSchedule, listSchedules, runScheduleNow, type ScheduleRow } from "../shared/schedule-actions.js";
import { Scheduler } from "../shared/scheduler.js";
import { Exit } from "./exit-codes.js";
import { readGoal } from "./goal-input.js";
import { openCrew } from "./open-crew.js";
import { print, printError } from "./print.js";
import type { RunFlags } from "./run-commands.js";

export interface ScheduleFlags extends Omit<RunFlags, "detach"> {
	readonly cron?: string;
	readonly tz?: string;
	readonly every?: string;
	readonly at?: string;
	readonly overlap?: string;
}

async function withCrew<T>(fn: (crew: Crew, settings: Settings) => Promise<T>): Promise<T> {
	const project = findProject(process.cwd());
	const settings = loadSettings(project);
	for (const warning of settings.warnings) printError(`crew: warning: ${warning}\n`);
	const crew = openCrew(project, { runtimes: configuredRuntimes(settings) });
	try {
		return await fn(crew, settings);
	} finally {
		crew.close();
	}
}

/** `crew schedule add <name> (--cron … [--tz …] | --every … | --at …) [run options] <goal>`. */
export async function scheduleAddCommand(
	name: string,
	goal: string | undefined,
	flags: ScheduleFlags,
): Promise<number> {
	const { cron, tz, every, at, overlap, json, goalFile, ...run } = flags;
	const ask = { name, cron, tz, every, at, overlap, run: { ...run, goal: readGoal(goal, goalFile) } };
	return withCrew(async (crew, settings) => {
		const added = await addSchedule(crew, settings, ask);
		if (json) print(`${JSON.stringify(added)}\n`);
		else
			print(
				`schedule ${added.name}: ${added.when}; next run ${added.next ?? "never"}\nnext: crew scheduler (or crew serve) starts its runs\n`,
			);
		return Exit.Ok;
	});
}

export async function scheduleListCommand(flags: { json?: boolean }): Promise<number> {
	return withCrew(async (crew) => {
		const rows = listSchedules(crew);
		if (flags.json) print(`${JSON.stringify({ schedules: rows })}\n`);
		else print(rows.length === 0 ? "no schedules (crew schedule add)\n" : rows.map(scheduleLine).join(""));
		return Exit.Ok;
	});
}

function scheduleLine(row: ScheduleRow): string {
	const [last] = row.last;
	const lastText = last
		? `last ${last.slot} ${last.outcome}${last.runId ? ` run ${last.runId} ${last.status ?? ""}` : ""}${last.reason ? ` (${last.reason})` : ""}`
		: "no run yet";
	return `${row.name}  ${row.when}${row.paused ? "  PAUSED" : ""}  next ${row.next ?? "none"}  ${lastText}\n  ${row.goal.split("\n", 1)[0]?.slice(0, 100)}\n`;
}

export async function scheduleRemoveCommand(name: string): Promise<number> {
	checkId("schedule", name);
	return withCrew(async (crew) => {
		crew.schedules.remove(name);
		print(`schedule ${name} removed; the runs it started stay\n`);
		return Exit.Ok;
	});
}

export async function schedulePauseCommand(name: string, paused: boolean): Promise<number> {
	checkId("schedule", name);
	return withCrew(async (crew) => {
		crew.schedules.setPaused(name, paused, Date.now());
		print(`schedule ${name} ${paused ? "paused: no slot starts a run until crew schedule resume" : "resumed"}\n`);
		return Exit.Ok;
	});
}

/** `crew schedule run <name>`: one run of the schedule now, outside its slots. */
export async function scheduleRunCommand(name: string, flags: { json?: boolean }): Promise<number> {
	return withCrew(async (crew, settings) => {
		const started = await runScheduleNow(crew, settings, name);
		if (flags.json) print(`${JSON.stringify(started)}\n`);
		else print(`run ${started.runId} of schedule ${name} started\nnext: crew watch ${started.runId}\n`);
		return Exit.Ok;
	});
}

/**
 * `crew scheduler`: starts the repository's scheduled runs on their slots until stopped; with
 * `once`, looks once (for a system's own cron or timer to call) and exits.
 */
export async function schedulerCommand(flags: { once?: boolean }): Promise<number> {
	return withCrew(async (crew, settings) => {
		if (flags.once) {
			await new Scheduler(crew, settings, (line) => print(`${line}\n`)).tick();
			return Exit.Ok;
		}
		const stop = new AbortController();
		for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.once(signal, () => stop.abort());
		const say = (line: string) => print(`${new Date().toISOString()}  ${line}\n`);
		say(`scheduler of ${crew.project.root}: ${crew.schedules.all().length} schedules; Ctrl-C stops it`);
		await new Scheduler(crew, settings, say).run(stop.signal);
		say("scheduler stopped");
		return Exit.Ok;
	});
}
