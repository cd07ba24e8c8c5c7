// A schedule's slots claimed: with the slot's run in one transaction, or as skipped with the reason.

import type { RunOptions } from "../../core/types.js";
import type { NewRun } from "../../store/run-changes.js";
import type { RunStore } from "../../store/run-store.js";
import type { ScheduleRecords, SlotClaim, SlotRecord } from "../../store/schedule-records.js";

export interface ScheduledRunDeps {
	readonly store: RunStore;
	readonly schedules: ScheduleRecords;
	readonly now: () => number;
}

/** What a scheduled run's record says of its slot: the schedule's name, the slot, and how it came. */
export function slotMarks(claim: SlotClaim): NonNullable<RunOptions["schedule"]> {
	return {
		name: claim.schedule,
		slot: claim.slot,
		...(claim.missed > 0 ? { missed: claim.missed } : {}),
		...(claim.outcome === "now" ? { now: true } : {}),
	};
}

/**
 * Claims slot `claim` and records `run` in one transaction: the run's id, or undefined when
 * another scheduler claimed the slot first (no run is recorded then).
 */
export function createScheduled(deps: ScheduledRunDeps, run: NewRun, claim: SlotClaim): string | undefined {
	return deps.store.batch(() => {
		if (!deps.schedules.claim({ ...claim, runId: run.id, at: deps.now() })) return undefined;
		deps.store.createRun(run);
		return run.id;
	});
}

/** Claims slot `claim` as skipped, saying why; false when it was claimed before. */
export function skipSlot(
	deps: ScheduledRunDeps,
	claim: Pick<SlotRecord, "schedule" | "slot" | "missed">,
	reason: string,
): boolean {
	return deps.store.batch(() => deps.schedules.claim({ ...claim, outcome: "skipped", reason, at: deps.now() }));
}
