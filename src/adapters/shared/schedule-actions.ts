// Adding, listing, pausing and removing schedules of runs, and one run of a schedule now: for every surface.

import type { Project } from "../../config/project.js";
import { loadSettings, type Settings } from "../../config/settings.js";
import { CrewError, ErrorCode } from "../../core/errors.js";
import { checkId } from "../../core/ids.js";
import { checkSchedule, nextSlot, type ScheduleSpec, scheduleText } from "../../core/schedule.js";
import { isTerminalRun } from "../../core/status.js";
import type { RunOrigin } from "../../core/types.js";
import { Crew } from "../../engine/crew.js";
import type { Plan } from "../../engine/planning/plan-input.js";
import type { Overlap, ScheduleRecord, ScheduleRecords } from "../../store/schedule-records.js";
import { startBackgroundRunner } from "./background-runner.js";
import { configuredRuntimes } from "./configured-runtimes.js";
import { checkAskedSandbox, originOf, type RunAsker, withOrigin } from "./run-asker.js";
import { type RunAsk, runInput } from "./run-input.js";

export const OVERLAPS: readonly Overlap[] = ["skip", "allow", "queue"];

/** A schedule as asked for: its name, when (cron and tz, every, or at), the overlap rule and the run. */
export interface ScheduleAsk {
	readonly name: string;
	readonly cron?: string;
	readonly tz?: string;
	readonly every?: string | number;
	readonly at?: string | number;
	readonly overlap?: string;
	readonly run: RunAsk;
	/** Who asked, when not a person on the CLI: each run of the schedule keeps it (see `originOf`). */
	readonly asker?: RunAsker;
}

/** A schedule's run as `addSchedule` records it: what was asked, and who asked. */
type ScheduledAsk = RunAsk & { readonly origin?: RunOrigin };

/** A schedule as lists show it. */
export interface ScheduleRow {
	readonly name: string;
	readonly spec: ScheduleSpec;
	/** The spec in words: `every 2s`, `cron 0 3 * * * (Europe/Paris)`, `at …`. */
	readonly when: string;
	readonly goal: string;
	readonly overlap: Overlap;
	readonly paused: boolean;
	/** The next slot, as an ISO time; null when none is left (an `at` that has run). */
	readonly next: string | null;
	/** Its latest slots, newest first: what became of each, and its run's status now. */
	readonly last: readonly SlotRow[];
}

export interface SlotRow {
	readonly slot: string;
	readonly outcome: string;
	readonly runId: string | null;
	readonly status: string | null;
	readonly missed: number;
	readonly reason: string | null;
}

/**
 * Records a schedule once its run is checked as `crew run` would check it now: planned (a bad
 * workflow, agent or option is refused here, not at its first slot) and, when it would run the
 * project's own commands, trusted; an agent's, as the run of an agent is checked (its sandbox
 * level, its commands).
 */
export async function addSchedule(crew: Crew, settings: Settings, ask: ScheduleAsk): Promise<ScheduleRow> {
	checkId("schedule", ask.name);
	const spec = checkSchedule(ask);
	const overlap = checkOverlap(ask.overlap);
	const now = Date.now();
	if (spec.kind === "at" && spec.at <= now) {
		throw new CrewError(
			ErrorCode.InvalidInput,
			`--at ${new Date(spec.at).toISOString()} has passed: expected a time to come`,
		);
	}
	if (ask.run.goal.trim() === "") throw new CrewError(ErrorCode.InvalidInput, "a schedule needs the goal of its runs");
	if (ask.asker) checkAskedSandbox(ask.asker, ask.run.sandbox, settings, crew.runtimes.sandbox);
	const origin = ask.asker ? originOf(ask.asker) : undefined;
	const run: ScheduledAsk = origin ? { ...ask.run, origin } : ask.run;
	crew.checkTrust(await scheduledPlan(crew, settings, run));
	crew.schedules.add({ name: ask.name, spec, ask: run, overlap, createdAt: now });
	return scheduleRow(crew, crew.schedules.get(ask.name), now);
}

/** The plan of a run of a schedule now: its run as `addSchedule` recorded it, checked then, with who asked. */
export async function scheduledPlan(crew: Crew, settings: Settings, recorded: object): Promise<Plan> {
	const { origin, ...ask } = recorded as ScheduledAsk;
	return withOrigin(await crew.plan(runInput(ask, settings)), origin);
}

function checkOverlap(overlap: string | undefined): Overlap {
	if (overlap === undefined) return "skip";
	const found = OVERLAPS.find((o) => o === overlap);
	if (!found) throw new CrewError(ErrorCode.InvalidInput, `overlap '${overlap}': expected ${OVERLAPS.join(", ")}`);
	return found;
}

/** Where schedules are read from: a Crew, or a reader's store. */
export interface ScheduleSource {
	readonly schedules: Pick<ScheduleRecords, "all" | "slots">;
	run(runId: string): { readonly status: string };
}

/** Every schedule of the repository, by name. */
export function listSchedules(source: ScheduleSource, now = Date.now()): ScheduleRow[] {
	return source.schedules.all().map((s) => scheduleRow(source, s, now));
}

function scheduleRow(source: ScheduleSource, schedule: ScheduleRecord, now: number, lastSlots = 5): ScheduleRow {
	const after = Math.max(now, schedule.lastSlot ?? schedule.createdAt);
	const next = nextSlot(schedule.spec, schedule.createdAt, after);
	return {
		name: schedule.name,
		spec: schedule.spec,
		when: scheduleText(schedule.spec),
		goal: schedule.ask.goal,
		overlap: schedule.overlap,
		paused: schedule.paused,
		next: next === undefined ? null : new Date(next).toISOString(),
		last: source.schedules.slots(schedule.name, lastSlots).map((s) => ({
			slot: new Date(s.slot).toISOString(),
			outcome: s.outcome,
			runId: s.runId,
			status: s.runId ? runStatus(source, s.runId) : null,
			missed: s.missed,
			reason: s.reason,
		})),
	};
}

function runStatus(source: ScheduleSource, runId: string): string | null {
	try {
		return source.run(runId).status;
	} catch {
		return null;
	}
}

/** Pauses schedule `name` (no slot of it starts a run), or resumes it from its next slot; answers it as lists show it. */
export function pauseSchedule(crew: Crew, name: string, paused: boolean): ScheduleRow {
	checkId("schedule", name);
	const now = Date.now();
	crew.schedules.setPaused(name, paused, now);
	return scheduleRow(crew, crew.schedules.get(name), now);
}

/** Removes schedule `name` and the record of its slots; the runs it started stay. */
export function removeSchedule(crew: Crew, name: string): { name: string; removed: true } {
	checkId("schedule", name);
	crew.schedules.remove(name);
	return { name, removed: true };
}

/** The runs of schedule `name` that have not ended, oldest first. */
export function liveRuns(crew: Crew, name: string): { id: string; status: string }[] {
	return crew
		.liveScheduled()
		.filter((run) => run.options.schedule?.name === name && !isTerminalRun(run.status))
		.map((run) => ({ id: run.id, status: run.status }));
}

/** One run of schedule `name` now, outside its slots, handed to a background runner. */
export async function runScheduleNow(
	crew: Crew,
	settings: Settings,
	name: string,
): Promise<{ runId: string; status: string; schedule: string }> {
	checkId("schedule", name);
	const schedule = crew.schedules.get(name);
	const plan = await scheduledPlan(crew, settings, schedule.ask);
	const claim = { schedule: name, slot: Date.now(), missed: 0, outcome: "now" as const, reason: null };
	const runId = crew.createScheduled(plan, claim);
	if (runId === undefined) {
		throw new CrewError(ErrorCode.Conflict, `another run of schedule ${name} started at this very moment; try again`);
	}
	const runner = await startBackgroundRunner(crew, runId, ["--if-queued"]);
	return { runId, status: runner.status, schedule: name };
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
