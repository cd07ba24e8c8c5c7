import { expect, test } from "vitest";
import { CrewError } from "../../src/core/errors.js";
import {
	checkSchedule,
	dueSlot,
	MAX_MISSED,
	nextSlot,
	type ScheduleSpec,
	scheduleText,
} from "../../src/core/schedule.js";

const at = (iso: string) => Date.parse(iso);
const iso = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString());
const HOUR = 3_600_000;

/** The slots `nextSlot` gives one after another, starting after `from`. */
function successive(spec: ScheduleSpec, from: string, count: number): string[] {
	const slots: string[] = [];
	let after = at(from);
	for (let i = 0; i < count; i++) {
		const slot = nextSlot(spec, 0, after);
		if (slot === undefined) break;
		slots.push(new Date(slot).toISOString());
		after = slot;
	}
	return slots;
}

/** For every fifth minute from `from` to `to`, the first of `slots` after it is what `nextSlot` gives. */
function expectNextFromEveryMinute(spec: ScheduleSpec, from: string, to: string, slots: readonly string[]): void {
	const wrong: string[] = [];
	for (let clock = at(from); clock <= at(to); clock += 5 * 60_000) {
		const want = slots.find((slot) => at(slot) > clock);
		const got = iso(nextSlot(spec, 0, clock));
		if (got !== want) wrong.push(`after ${iso(clock)}: got ${got}, expected ${want}`);
	}
	expect(wrong).toEqual([]);
}

function refusal(input: Parameters<typeof checkSchedule>[0]): CrewError {
	try {
		checkSchedule(input);
	} catch (error) {
		expect(error).toBeInstanceOf(CrewError);
		expect((error as CrewError).code).toBe("INVALID_INPUT");
		return error as CrewError;
	}
	throw new Error(`checkSchedule accepted ${JSON.stringify(input)}`);
}

test("an interval's due slot is the latest anchor + k*every in (after, upTo], with the slots it passed over", () => {
	const every: ScheduleSpec = { kind: "every", everyMs: 2000 };
	expect(dueSlot(every, 0, 2000, 11_000)).toEqual({ slot: 10_000, missed: 3 });
	expect(dueSlot(every, 0, 2000, 4000)).toEqual({ slot: 4000, missed: 0 });
	expect(dueSlot(every, 0, 2000, 3999)).toBeUndefined();
	expect(dueSlot(every, 0, 4000, 4000)).toBeUndefined();
	// The anchor itself is not a slot: the first one is a full interval after the schedule was made.
	expect(dueSlot(every, 1000, 0, 2999)).toBeUndefined();
	expect(dueSlot(every, 1000, 0, 3000)).toEqual({ slot: 3000, missed: 0 });
	expect(dueSlot(every, 1000, 500, 9000)).toEqual({ slot: 9000, missed: 3 });
});

test("an interval's next slot is the first anchor + k*every after the clock, never the anchor", () => {
	const every: ScheduleSpec = { kind: "every", everyMs: 2000 };
	expect(nextSlot(every, 0, 2000)).toBe(4000);
	expect(nextSlot(every, 0, 2001)).toBe(4000);
	expect(nextSlot(every, 0, 3999)).toBe(4000);
	expect(nextSlot(every, 0, 0)).toBe(2000);
	expect(nextSlot(every, 500, -10_000)).toBe(2500);
});

test("an `at` schedule is due once, when its time has come, and never again", () => {
	const once: ScheduleSpec = { kind: "at", at: 5000 };
	expect(dueSlot(once, 0, 0, 4999)).toBeUndefined();
	expect(dueSlot(once, 0, 0, 5000)).toEqual({ slot: 5000, missed: 0 });
	expect(dueSlot(once, 0, 1000, 1_000_000)).toEqual({ slot: 5000, missed: 0 });
	expect(dueSlot(once, 0, 5000, 1_000_000_000)).toBeUndefined();
	expect(nextSlot(once, 0, 4999)).toBe(5000);
	expect(nextSlot(once, 0, 5000)).toBeUndefined();
	expect(nextSlot(once, 0, 9000)).toBeUndefined();
});

test("a cron's next slot is strictly after the clock, and its due slot counts the ones passed over", () => {
	const quarter: ScheduleSpec = { kind: "cron", cron: "*/15 * * * *", tz: "UTC" };
	expect(iso(nextSlot(quarter, 0, at("2026-01-01T00:00:00.000Z")))).toBe("2026-01-01T00:15:00.000Z");
	expect(iso(nextSlot(quarter, 0, at("2026-01-01T00:14:59.999Z")))).toBe("2026-01-01T00:15:00.000Z");
	expect(iso(nextSlot(quarter, 0, at("2026-01-01T00:15:00.001Z")))).toBe("2026-01-01T00:30:00.000Z");
	const due = dueSlot(quarter, 0, at("2026-01-01T00:00:00Z"), at("2026-01-01T01:00:00Z"));
	expect(due && { slot: iso(due.slot), missed: due.missed }).toEqual({ slot: "2026-01-01T01:00:00.000Z", missed: 3 });
	expect(dueSlot(quarter, 0, at("2026-01-01T00:00:00Z"), at("2026-01-01T00:14:59.999Z"))).toBeUndefined();
	const seconds: ScheduleSpec = { kind: "cron", cron: "*/10 * * * * *", tz: "UTC" };
	expect(iso(nextSlot(seconds, 0, at("2026-01-01T00:00:05.500Z")))).toBe("2026-01-01T00:00:10.000Z");
	// The epoch is a clock like any other, not "now".
	expect(nextSlot({ kind: "cron", cron: "0 * * * *", tz: "UTC" }, 0, 0)).toBe(HOUR);
});

test("a long outage gives the exact latest cron slot and stops counting the missed ones at 100", () => {
	expect(MAX_MISSED).toBe(100);
	const hourly: ScheduleSpec = { kind: "cron", cron: "0 * * * *", tz: "UTC" };
	expect(dueSlot(hourly, 0, 0, 40 * HOUR + 59_000)).toEqual({ slot: 40 * HOUR, missed: 39 });
	expect(dueSlot(hourly, 0, 0, 101 * HOUR)).toEqual({ slot: 101 * HOUR, missed: 100 });
	expect(dueSlot(hourly, 0, 0, 102 * HOUR)).toEqual({ slot: 102 * HOUR, missed: 100 });
	const everySecond: ScheduleSpec = { kind: "cron", cron: "* * * * * *", tz: "UTC" };
	expect(dueSlot(everySecond, 0, 0, 24 * HOUR + 999)).toEqual({ slot: 24 * HOUR, missed: 100 });
	expect(dueSlot(everySecond, 0, 0, 365 * 24 * HOUR + 500)).toEqual({ slot: 365 * 24 * HOUR, missed: 100 });
	const interval: ScheduleSpec = { kind: "every", everyMs: 1000 };
	expect(dueSlot(interval, 0, 0, 365 * 24 * HOUR)).toEqual({ slot: 365 * 24 * HOUR, missed: 100 });
});

test("after a long outage the latest cron slot is right across a DST change too", () => {
	const spec: ScheduleSpec = { kind: "cron", cron: "30 2 * * *", tz: "Europe/Berlin" };
	const due = (after: string, upTo: string) => {
		const found = dueSlot(spec, 0, at(after), at(upTo));
		return found && { slot: iso(found.slot), missed: found.missed };
	};
	// The moved 03:30 CEST slot of the spring-forward day is the latest, not the day before's.
	expect(due("2025-11-01T00:00:00Z", "2026-03-29T01:45:00Z")).toEqual({
		slot: "2026-03-29T01:30:00.000Z",
		missed: 100,
	});
	// The second 02:30 of the fall-back day (01:30Z) is no slot: the first one (00:30Z) is the latest.
	expect(due("2026-06-01T00:00:00Z", "2026-10-25T01:45:00Z")).toEqual({
		slot: "2026-10-25T00:30:00.000Z",
		missed: 100,
	});
});

test("02:30 in Berlin runs once on the spring-forward day, at 03:30 CEST, whatever the clock reads that night", () => {
	// On 2026-03-29 Berlin's clocks jump from 02:00 CET to 03:00 CEST, so 02:30 never happens that
	// day. cron-parser moves the slot an hour on, to 03:30 CEST (01:30Z): the job still runs once.
	const spec: ScheduleSpec = { kind: "cron", cron: "30 2 * * *", tz: "Europe/Berlin" };
	const slots = ["2026-03-28T01:30:00.000Z", "2026-03-29T01:30:00.000Z", "2026-03-30T00:30:00.000Z"];
	expect(successive(spec, "2026-03-27T12:00:00Z", 3)).toEqual(slots);
	// A clock read inside the new hour (03:00-03:30 CEST) still sees the moved slot ahead of it.
	expectNextFromEveryMinute(spec, "2026-03-28T22:00:00Z", "2026-03-29T03:00:00Z", slots);
	const due = dueSlot(spec, 0, at("2026-03-29T01:10:00Z"), at("2026-03-29T02:00:00Z"));
	expect(due && { slot: iso(due.slot), missed: due.missed }).toEqual({ slot: slots[1], missed: 0 });
});

test("02:30 in Berlin runs once on the fall-back day, at the first 02:30 (CEST), not again an hour later", () => {
	// On 2026-10-25 Berlin's clocks go back from 03:00 CEST to 02:00 CET, so 02:30 happens twice:
	// at 00:30Z (CEST) and 01:30Z (CET). The job runs at the first only, as cron does.
	const spec: ScheduleSpec = { kind: "cron", cron: "30 2 * * *", tz: "Europe/Berlin" };
	const slots = ["2026-10-24T00:30:00.000Z", "2026-10-25T00:30:00.000Z", "2026-10-26T01:30:00.000Z"];
	expect(successive(spec, "2026-10-23T12:00:00Z", 3)).toEqual(slots);
	expectNextFromEveryMinute(spec, "2026-10-24T22:00:00Z", "2026-10-25T03:00:00Z", slots);
	// Polling through the repeated hour finds nothing more due after the first 02:30.
	expect(dueSlot(spec, 0, at("2026-10-25T00:30:00Z"), at("2026-10-25T01:00:00Z"))).toBeUndefined();
	expect(dueSlot(spec, 0, at("2026-10-25T01:00:00Z"), at("2026-10-25T02:00:00Z"))).toBeUndefined();
});

test("hourly in New York skips the missing 02:00 on 2026-03-08 and runs in both 01:00 hours on 2026-11-01", () => {
	const spec: ScheduleSpec = { kind: "cron", cron: "0 * * * *", tz: "America/New_York" };
	// Spring forward at 07:00Z: 01:00 EST is followed by 03:00 EDT, an hour later in real time.
	const spring = [
		"2026-03-08T05:00:00.000Z", // 00:00 EST
		"2026-03-08T06:00:00.000Z", // 01:00 EST
		"2026-03-08T07:00:00.000Z", // 03:00 EDT
		"2026-03-08T08:00:00.000Z", // 04:00 EDT
	];
	expect(successive(spec, "2026-03-08T04:30:00Z", 4)).toEqual(spring);
	expectNextFromEveryMinute(spec, "2026-03-08T04:00:00Z", "2026-03-08T07:59:00Z", spring);
	const due = dueSlot(spec, 0, at("2026-03-08T05:00:00Z"), at("2026-03-08T08:00:00Z"));
	expect(due && { slot: iso(due.slot), missed: due.missed }).toEqual({ slot: spring[3], missed: 2 });
	// Fall back at 06:00Z: the hour field is `*`, so each real hour has its run, 01:00 twice.
	const fall = [
		"2026-11-01T04:00:00.000Z", // 00:00 EDT
		"2026-11-01T05:00:00.000Z", // 01:00 EDT
		"2026-11-01T06:00:00.000Z", // 01:00 EST
		"2026-11-01T07:00:00.000Z", // 02:00 EST
	];
	expect(successive(spec, "2026-11-01T03:30:00Z", 4)).toEqual(fall);
	expectNextFromEveryMinute(spec, "2026-11-01T03:00:00Z", "2026-11-01T06:59:00Z", fall);
});

test("01:30 in New York runs once on the fall-back day whatever the clock reads in the repeated hour", () => {
	const spec: ScheduleSpec = { kind: "cron", cron: "30 1 * * *", tz: "America/New_York" };
	const slots = ["2026-10-31T05:30:00.000Z", "2026-11-01T05:30:00.000Z", "2026-11-02T06:30:00.000Z"];
	expect(successive(spec, "2026-10-31T00:00:00Z", 3)).toEqual(slots);
	expectNextFromEveryMinute(spec, "2026-11-01T03:00:00Z", "2026-11-01T08:00:00Z", slots);
});

test("checkSchedule reads cron, every and at as people and tools give them", () => {
	expect(checkSchedule({ cron: " 0  3 * * * ", tz: "europe/paris" })).toEqual({
		kind: "cron",
		cron: "0 3 * * *",
		tz: "Europe/Paris",
	});
	expect(checkSchedule({ cron: "*/5 * * * * *" })).toStrictEqual({ kind: "cron", cron: "*/5 * * * * *" });
	expect(checkSchedule({ cron: "@daily", tz: "UTC" })).toEqual({ kind: "cron", cron: "@daily", tz: "UTC" });
	const everyMs = (every: string | number) => (checkSchedule({ every }) as { everyMs: number }).everyMs;
	expect(["2s", "90s", "15m", "1h", "1d", "1.5h", "1500ms", " 2 s "].map(everyMs)).toEqual([
		2000,
		90_000,
		900_000,
		HOUR,
		24 * HOUR,
		1.5 * HOUR,
		1500,
		2000,
	]);
	expect(checkSchedule({ every: 2000 })).toEqual({ kind: "every", everyMs: 2000 });
	expect(checkSchedule({ at: "2026-12-04T03:00:00Z" })).toEqual({ kind: "at", at: at("2026-12-04T03:00:00Z") });
	expect(checkSchedule({ at: "2026-12-04T04:00:00.000+01:00" })).toEqual({
		kind: "at",
		at: at("2026-12-04T03:00:00Z"),
	});
	expect(checkSchedule({ at: 1_796_353_200_000 })).toEqual({ kind: "at", at: 1_796_353_200_000 });
});

test("checkSchedule refuses anything but exactly one of cron, every and at, naming what it got", () => {
	expect(refusal({}).message).toBe("a schedule needs exactly one of cron, every or at; got none");
	expect(refusal({ cron: "0 3 * * *", every: "1h" }).message).toBe(
		"a schedule needs exactly one of cron, every or at; got cron and every",
	);
	expect(refusal({ cron: "* * * * *", every: 5000, at: 0 }).message).toBe(
		"a schedule needs exactly one of cron, every or at; got cron, every and at",
	);
	expect(refusal({ every: "1h", tz: "Europe/Paris" }).message).toBe(
		'tz "Europe/Paris" goes only with cron: every and at do not depend on a time zone',
	);
});

test("checkSchedule refuses a bad cron or zone with the reason", () => {
	expect(refusal({ cron: "* * * *" }).message).toBe(
		'invalid cron "* * * *": has 4 fields, expected 5 (minute hour day-of-month month day-of-week), 6 (seconds first) or one of @yearly, @monthly, @weekly, @daily, @hourly',
	);
	expect(refusal({ cron: "0 0 * * * * *" }).message).toMatch(
		/^invalid cron "0 0 \* \* \* \* \*": has 7 fields, expected 5/,
	);
	expect(refusal({ cron: "   " }).message).toMatch(/^invalid cron " {3}": has 0 fields, expected 5/);
	expect(refusal({ cron: "@reboot" }).message).toMatch(/^invalid cron "@reboot": has 1 fields, expected 5/);
	expect(refusal({ cron: "61 * * * *" }).message).toBe(
		'invalid cron "61 * * * *": Constraint error, got value 61 expected range 0-59',
	);
	expect(refusal({ cron: "0 0 30 2 *" }).message).toBe(
		'invalid cron "0 0 30 2 *": Invalid explicit day of month definition',
	);
	// Each field is fine on its own, but April and February have no 31st.
	expect(refusal({ cron: "0 0 31 2,4 *" }).message).toBe(
		'invalid cron "0 0 31 2,4 *": no time matches it (Invalid expression, loop limit exceeded)',
	);
	expect(refusal({ cron: "0 3 * * *", tz: "Mars/Olympus" }).message).toBe(
		'invalid tz "Mars/Olympus": expected an IANA time zone such as Europe/Paris, America/New_York or UTC',
	);
	expect(refusal({ cron: "0 3 * * *", tz: "+01:00" }).message).toMatch(/^invalid tz "\+01:00": expected an IANA/);
});

test("checkSchedule refuses an interval that is not a duration of at least a second", () => {
	const expected =
		"expected a duration of 1s to 365d, such as 2s, 90s, 15m, 1h or 1d, or a whole number of milliseconds";
	expect(refusal({ every: "500ms" }).message).toBe(`invalid every "500ms": ${expected}`);
	expect(refusal({ every: 999 }).message).toBe(`invalid every 999: ${expected}`);
	expect(refusal({ every: "366d" }).message).toBe(`invalid every "366d": ${expected}`);
	expect(refusal({ every: "2H" }).message).toBe(`invalid every "2H": ${expected}`);
	expect(refusal({ every: "2x" }).message).toBe(`invalid every "2x": ${expected}`);
	expect(refusal({ every: "" }).message).toBe(`invalid every "": ${expected}`);
	expect(refusal({ every: 1500.5 }).message).toBe(`invalid every 1500.5: ${expected}`);
	expect(refusal({ every: Number.NaN }).message).toBe(`invalid every NaN: ${expected}`);
	expect(refusal({ every: -2000 }).message).toBe(`invalid every -2000: ${expected}`);
	expect(refusal({ every: "2000" }).message).toBe(
		'invalid every "2000": a duration text needs a unit (2000ms, 2000s); a bare number of milliseconds is given as a number',
	);
});

test("checkSchedule refuses an `at` that is not a real instant", () => {
	const expected = "expected an ISO time such as 2026-12-04T03:00:00Z or milliseconds since 1970";
	expect(refusal({ at: "2026-02-30T03:00:00Z" }).message).toBe(`invalid at "2026-02-30T03:00:00Z": ${expected}`);
	expect(refusal({ at: "2026-12-04T24:00:00Z" }).message).toBe(`invalid at "2026-12-04T24:00:00Z": ${expected}`);
	expect(refusal({ at: "tomorrow" }).message).toBe(`invalid at "tomorrow": ${expected}`);
	expect(refusal({ at: "Dec 4 2026" }).message).toBe(`invalid at "Dec 4 2026": ${expected}`);
	expect(refusal({ at: "2026-12-04" }).message).toBe(`invalid at "2026-12-04": ${expected}`);
	expect(refusal({ at: Number.NaN }).message).toBe(`invalid at NaN: ${expected}`);
	expect(refusal({ at: 1.5 }).message).toBe(`invalid at 1.5: ${expected}`);
	expect(refusal({ at: 9e15 }).message).toBe(`invalid at 9000000000000000: ${expected}`);
});

test("scheduleText says the schedule in words for lists", () => {
	expect(scheduleText({ kind: "cron", cron: "0 3 * * *", tz: "Europe/Paris" })).toBe("cron 0 3 * * * (Europe/Paris)");
	expect(scheduleText({ kind: "cron", cron: "0 3 * * *" })).toBe("cron 0 3 * * *");
	expect(scheduleText({ kind: "at", at: at("2026-12-04T03:00:00Z") })).toBe("at 2026-12-04T03:00:00.000Z");
	const every = (everyMs: number) => scheduleText({ kind: "every", everyMs });
	expect([2000, 90_000, 900_000, HOUR, 1.5 * HOUR, 24 * HOUR, 1500].map(every)).toEqual([
		"every 2s",
		"every 90s",
		"every 15m",
		"every 1h",
		"every 90m",
		"every 1d",
		"every 1500ms",
	]);
});
