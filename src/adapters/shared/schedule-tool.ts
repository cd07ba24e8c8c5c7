// The schedule tool of agents (MCP crew_schedule, pi's schedule action): each op on this project's schedules.

import type { Project } from "../../config/project.js";
import { loadSettings, type Settings } from "../../config/settings.js";
import { CrewError, ErrorCode } from "../../core/errors.js";
import { Crew } from "../../engine/crew.js";
import { configuredRuntimes } from "./configured-runtimes.js";
import type { RunAsk } from "./run-input.js";
import { addSchedule, listSchedules, pauseSchedule, removeSchedule, runScheduleNow } from "./schedule-actions.js";

export type ScheduleOp = "add" | "list" | "rm" | "pause" | "resume" | "run";

/** The tool's arguments, named as pi-crew's schedule action names them: `interval` in ms, `once` a time. */
export interface ScheduleToolArgs extends Omit<RunAsk, "goal"> {
	readonly op?: ScheduleOp;
	readonly name?: string;
	readonly goal?: string;
	readonly cron?: string;
	readonly tz?: string;
	readonly interval?: number;
	readonly once?: string;
	readonly overlap?: string;
}

/** Does `args.op` (default add) on the project's schedules; its answer as JSON. */
export async function scheduleTool(project: Project, args: ScheduleToolArgs): Promise<object> {
	const { op = "add", name, goal, cron, tz, interval, once, overlap, ...run } = args;
	return await onSchedules(project, async (crew, settings) => {
		if (op === "list") return { schedules: listSchedules(crew) };
		if (name === undefined) throw new CrewError(ErrorCode.InvalidInput, `op ${op} needs the schedule's name`);
		if (op === "add") {
			const ask = { name, cron, tz, every: interval, at: once, overlap, run: { ...run, goal: goal ?? "" } };
			return await addSchedule(crew, settings, ask);
		}
		if (op === "run") return await runScheduleNow(crew, settings, name);
		if (op === "rm") removeSchedule(crew, name);
		else pauseSchedule(crew, name, op === "pause");
		return { name, done: op };
	});
}

/** `fn` over the project's schedules, with a Crew of the user's runtimes, closed after it. */
export async function onSchedules<T>(
	project: Project,
	fn: (crew: Crew, settings: Settings) => Promise<T> | T,
): Promise<T> {
	const settings = loadSettings(project);
	const crew = new Crew({ project, runtimes: configuredRuntimes(settings) });
	try {
		return await fn(crew, settings);
	} finally {
		crew.close();
	}
}
