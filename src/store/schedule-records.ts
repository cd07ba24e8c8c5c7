// The `schedules` and `schedule_slots` tables: schedules of runs, and each slot claimed once.

import type { Statement } from "better-sqlite3";
import { CrewError, ErrorCode } from "../core/errors.js";
import type { ScheduleSpec } from "../core/schedule.js";
import type { Db } from "./database.js";

/** What a schedule's run does when its slot comes while the previous run it started still runs. */
export type Overlap = "skip" | "allow" | "queue";

/** A schedule as stored. `ask` is the run it starts: its goal and options, as `crew run` takes them. */
export interface ScheduleRecord {
	readonly name: string;
	readonly spec: ScheduleSpec;
	readonly ask: { readonly goal: string };
	readonly overlap: Overlap;
	readonly paused: boolean;
	/** When it was made, in ms: interval slots count from it. */
	readonly createdAt: number;
	/** The latest slot claimed, in ms; null before the first. */
	readonly lastSlot: number | null;
}

/** What became of a slot: a run started, a slot skipped (and why), or a run started outside the slots. */
export interface SlotRecord {
	readonly schedule: string;
	readonly slot: number;
	readonly outcome: "started" | "skipped" | "now";
	readonly runId: string | null;
	/** Slots passed over, while no scheduler ran, that this one stands in for. */
	readonly missed: number;
	readonly reason: string | null;
	/** When it was claimed, in ms. */
	readonly at: number;
}

/** Slots claimed by outcome, and the slots passed over that they stood in for. */
export interface ScheduledCounts {
	started: number;
	skipped: number;
	now: number;
	missed: number;
}

/** A slot to claim for a run: one of the schedule's own (`started`), or `now`, outside them. */
export type SlotClaim = Pick<SlotRecord, "schedule" | "slot" | "missed"> & {
	readonly outcome: "started" | "now";
	readonly reason: null;
};

interface ScheduleRow {
	name: string;
	spec: string;
	ask: string;
	overlap: string;
	paused: number;
	created_at: number;
	last_slot: number | null;
}

interface SlotRow {
	schedule: string;
	slot: number;
	outcome: string;
	run_id: string | null;
	missed: number;
	reason: string | null;
	at: number;
}

function toSchedule(row: ScheduleRow): ScheduleRecord {
	return {
		name: row.name,
		spec: JSON.parse(row.spec) as ScheduleSpec,
		ask: JSON.parse(row.ask) as { goal: string },
		overlap: row.overlap as Overlap,
		paused: row.paused === 1,
		createdAt: row.created_at,
		lastSlot: row.last_slot,
	};
}

function toSlot(row: SlotRow): SlotRecord {
	return {
		schedule: row.schedule,
		slot: row.slot,
		outcome: row.outcome as SlotRecord["outcome"],
		runId: row.run_id,
		missed: row.missed,
		reason: row.reason,
		at: row.at,
	};
}

/**
 * Schedules and their slots. Claiming a slot is one insert of its row under the primary key
 * (schedule, slot), in the caller's transaction: whatever the number of schedulers, one claims it.
 */
export class ScheduleRecords {
	readonly #add: Statement<[string, string, string, string, number]>;
	readonly #get: Statement<[string], ScheduleRow>;
	readonly #all: Statement<[], ScheduleRow>;
	readonly #remove: Statement<[string]>;
	readonly #removeSlots: Statement<[string]>;
	readonly #pause: Statement<[number, string]>;
	readonly #claim: Statement<[string, number, string, string | null, number, string | null, number]>;
	readonly #advance: Statement<[number, string, number]>;
	readonly #slots: Statement<[string, number], SlotRow>;
	readonly #counts: Statement<[], { outcome: string; slots: number; missed: number }>;

	constructor(db: Db) {
		this.#add = db.prepare(
			"INSERT INTO schedules (name, spec, ask, overlap, created_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT (name) DO NOTHING",
		);
		this.#get = db.prepare("SELECT * FROM schedules WHERE name = ?");
		this.#all = db.prepare("SELECT * FROM schedules ORDER BY name");
		this.#remove = db.prepare("DELETE FROM schedules WHERE name = ?");
		this.#removeSlots = db.prepare("DELETE FROM schedule_slots WHERE schedule = ?");
		this.#pause = db.prepare("UPDATE schedules SET paused = ? WHERE name = ?");
		this.#claim = db.prepare(
			"INSERT OR IGNORE INTO schedule_slots (schedule, slot, outcome, run_id, missed, reason, at) VALUES (?, ?, ?, ?, ?, ?, ?)",
		);
		this.#advance = db.prepare(
			"UPDATE schedules SET last_slot = ? WHERE name = ? AND (last_slot IS NULL OR last_slot < ?)",
		);
		this.#slots = db.prepare("SELECT * FROM schedule_slots WHERE schedule = ? ORDER BY slot DESC LIMIT ?");
		this.#counts = db.prepare(
			"SELECT outcome, count(*) AS slots, coalesce(sum(missed), 0) AS missed FROM schedule_slots GROUP BY outcome",
		);
	}

	/** Records a new schedule; refused when one of that name exists. */
	add(schedule: Omit<ScheduleRecord, "paused" | "lastSlot">): void {
		const { name, spec, ask, overlap, createdAt } = schedule;
		const added = this.#add.run(name, JSON.stringify(spec), JSON.stringify(ask), overlap, createdAt).changes;
		if (added === 0) {
			throw new CrewError(
				ErrorCode.Conflict,
				`a schedule named '${name}' exists; remove it first (crew schedule rm ${name}) or choose another name`,
			);
		}
	}

	find(name: string): ScheduleRecord | undefined {
		const row = this.#get.get(name);
		return row ? toSchedule(row) : undefined;
	}

	get(name: string): ScheduleRecord {
		const found = this.find(name);
		if (!found)
			throw new CrewError(ErrorCode.NotFound, `no schedule '${name}' in this repository (crew schedule list)`);
		return found;
	}

	all(): ScheduleRecord[] {
		return this.#all.all().map(toSchedule);
	}

	/** Removes a schedule and the record of its slots; the runs it started stay. */
	remove(name: string): void {
		this.get(name);
		this.#removeSlots.run(name);
		this.#remove.run(name);
	}

	/** Pauses the schedule, or resumes it at `now` (ms): the slots that passed while it was paused are not made up. */
	setPaused(name: string, paused: boolean, now: number): void {
		this.get(name);
		this.#pause.run(paused ? 1 : 0, name);
		if (!paused) this.#advance.run(now, name, now);
	}

	/**
	 * Claims `slot` of schedule `name` with what became of it; false when it was claimed before,
	 * by this or any other scheduler. A claimed slot of the schedule's own (not `now`) becomes its
	 * latest, so no earlier one is claimed after it.
	 */
	claim(slot: Omit<SlotRecord, "runId"> & { readonly runId?: string }): boolean {
		const { schedule, outcome, missed, reason, at } = slot;
		const claimed = this.#claim.run(schedule, slot.slot, outcome, slot.runId ?? null, missed, reason, at).changes > 0;
		if (claimed && outcome !== "now") this.#advance.run(slot.slot, schedule, slot.slot);
		return claimed;
	}

	/** The schedule's latest `limit` slots, newest first. */
	slots(name: string, limit = 20): SlotRecord[] {
		return this.#slots.all(name, limit).map(toSlot);
	}

	/** Slots claimed in this store by outcome, and the missed slots they stood in for. */
	counts(): ScheduledCounts {
		const counts = { started: 0, skipped: 0, now: 0, missed: 0 };
		for (const row of this.#counts.all()) {
			if (row.outcome === "started" || row.outcome === "skipped" || row.outcome === "now") {
				counts[row.outcome] = row.slots;
			}
			counts.missed += row.missed;
		}
		return counts;
	}
}
