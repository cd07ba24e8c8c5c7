// The scheduler: starts each schedule's run when its slot comes, once per slot whatever the schedulers.

import { setTimeout as sleep } from "node:timers/promises";
import type { Settings } from "../../config/settings.js";
import { errorMessage } from "../../core/errors.js";
import { dueSlot, nextSlot } from "../../core/schedule.js";
import type { Crew } from "../../engine/crew.js";
import type { ScheduleRecord } from "../../store/schedule-records.js";
import { startBackgroundRunner } from "./background-runner.js";
import { liveRuns, scheduledPlan } from "./schedule-actions.js";

/** How long a scheduled run may wait queued for the runner its scheduler starts, before another scheduler starts one. */
const RUNNER_GRACE_MS = 10_000;
/** The longest a scheduler sleeps between looks: a schedule added meanwhile waits no longer. */
const LOOK_EVERY_MS = 1_000;

/**
 * Starts the runs of a repository's schedules on their slots. A slot is claimed in the same
 * transaction that records its run, so any number of schedulers (terminals, `crew serve`,
 * machines sharing the store) start it once; a scheduler that was away starts one run for the
 * latest slot it missed, saying how many it stands in for. A run recorded but never handed to a
 * runner (its scheduler killed between the two, or queued behind the schedule's previous run) is
 * started by whichever scheduler looks next.
 */
export class Scheduler {
	readonly #crew: Crew;
	readonly #settings: Settings;
	readonly #say: (line: string) => void;
	readonly #now: () => number;

	constructor(crew: Crew, settings: Settings, say: (line: string) => void, now: () => number = Date.now) {
		this.#crew = crew;
		this.#settings = settings;
		this.#say = say;
		this.#now = now;
	}

	/** Looks at every schedule until `signal` aborts. */
	async run(signal: AbortSignal): Promise<void> {
		while (!signal.aborted) {
			await this.tick();
			await sleep(this.#wait(), undefined, { signal }).catch(() => undefined);
		}
	}

	/** One look at every schedule: starts the runs whose slots have come, and the runs left unstarted. */
	async tick(): Promise<void> {
		for (const schedule of this.#crew.schedules.all()) {
			if (schedule.paused) continue;
			try {
				await this.#due(schedule);
				await this.#unstarted(schedule);
			} catch (error) {
				this.#say(`schedule ${schedule.name}: ${errorMessage(error)}`);
			}
		}
	}

	async #due(schedule: ScheduleRecord): Promise<void> {
		const due = dueSlot(schedule.spec, schedule.createdAt, schedule.lastSlot ?? schedule.createdAt, this.#now());
		if (!due) return;
		const claim = { schedule: schedule.name, slot: due.slot, missed: due.missed };
		const slot = `slot ${new Date(due.slot).toISOString()}`;
		const missed = due.missed > 0 ? ` (standing in for ${due.missed} missed before it)` : "";
		const live = liveRuns(this.#crew, schedule.name);
		const [before] = live;
		if (before && schedule.overlap === "skip") {
			const reason = `run ${before.id} of this schedule is still ${before.status}`;
			if (this.#crew.skipSlot(claim, reason)) this.#say(`schedule ${schedule.name}: ${slot} skipped: ${reason}`);
			return;
		}
		let runId: string | undefined;
		try {
			const plan = await scheduledPlan(this.#crew, this.#settings, schedule.ask);
			runId = this.#crew.createScheduled(plan, { ...claim, outcome: "started", reason: null });
		} catch (error) {
			// Refused as `crew run` would refuse it now: trust revoked, a workflow gone. Said once, with the slot.
			if (this.#crew.skipSlot(claim, errorMessage(error))) {
				this.#say(`schedule ${schedule.name}: ${slot} skipped: ${errorMessage(error)}`);
			}
			return;
		}
		if (runId === undefined) return;
		const waits = before && schedule.overlap === "queue" ? `, queued behind run ${before.id}` : "";
		this.#say(`schedule ${schedule.name}: ${slot}: run ${runId}${missed}${waits}`);
		if (!waits) await startBackgroundRunner(this.#crew, runId, ["--if-queued"]);
	}

	/** Starts the schedule's queued runs that no runner took: one at a time when it queues its runs. */
	async #unstarted(schedule: ScheduleRecord): Promise<void> {
		const live = liveRuns(this.#crew, schedule.name);
		const now = this.#now();
		const waiting = live.filter(
			(run) => run.status === "queued" && now - Date.parse(this.#crew.run(run.id).createdAt) > RUNNER_GRACE_MS,
		);
		const busy = live.some((run) => run.status !== "queued");
		const starting = schedule.overlap === "queue" ? (busy ? [] : waiting.slice(0, 1)) : waiting;
		for (const run of starting) {
			this.#say(`schedule ${schedule.name}: starting run ${run.id}, which no runner had taken`);
			await startBackgroundRunner(this.#crew, run.id, ["--if-queued"]);
		}
	}

	/** Until the next slot of any schedule, within the look interval. */
	#wait(): number {
		const now = this.#now();
		const slots = this.#crew.schedules
			.all()
			.filter((s) => !s.paused)
			.map((s) => nextSlot(s.spec, s.createdAt, Math.max(now, s.lastSlot ?? s.createdAt)))
			.filter((slot): slot is number => slot !== undefined);
		return Math.max(20, Math.min(LOOK_EVERY_MS, ...slots.map((slot) => slot - now)));
	}
}
