// The schedule tool of agents (MCP crew_schedule, pi's schedule action): each op on this project's schedules.

import type { Project } from "../../config/project.js";
import { CrewError, ErrorCode } from "../../core/errors.js";
import type { RunAsk } from "./run-input.js";
import {
	addSchedule,
	listSchedules,
	onSchedules,
	pauseSchedule,
	removeSchedule,
	runScheduleNow,
} from "./schedule-actions.js";

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
			// An agent's schedule: its runs are an agent's, checked as crew_run checks them.
			const ask = { name, cron, tz, every: interval, at: once, overlap, run: { ...run, goal: goal ?? "" }, asker: {} };
			return await addSchedule(crew, settings, ask);
		}
		if (op === "run") return await runScheduleNow(crew, settings, name);
		if (op === "rm") removeSchedule(crew, name);
		else pauseSchedule(crew, name, op === "pause");
		return { name, done: op };
	});
}
