// Schedules for runs as people write them (cron, every, at): checked, put in words, and their slots in time.

import cronParser from "cron-parser";
import { CrewError, ErrorCode, errorMessage } from "./errors.js";

export type ScheduleSpec =
	| { readonly kind: "cron"; readonly cron: string; readonly tz?: string }
	| { readonly kind: "every"; readonly everyMs: number }
	| { readonly kind: "at"; readonly at: number };

type CronSpec = Extract<ScheduleSpec, { kind: "cron" }>;

const SECOND = 1000;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/**
 * The most missed slots `dueSlot` counts: past it the count stops (read it as "100 or more") while
 * the slot stays exact. Counting walks the slots one by one, and cron-parser takes milliseconds for
 * each in a named zone.
 */
export const MAX_MISSED = 100;

/**
 * How far before a clock reading cron slots are searched from when the zone's offset changed in
 * between. cron-parser moves a slot out of a skipped hour, and leaves out the second pass of a
 * repeated hour, only when its search walks across the change; a search that starts just after the
 * change would skip the moved slot or repeat the hour. Clocks shift by at most 2h.
 */
const DST_LOOKBACK_MS = 3 * HOUR;

const MAX_EVERY_MS = 365 * DAY;
/** The largest distance from 1970, in ms, that a Date holds. */
const MAX_TIME_MS = 8.64e15;
const UNIT_MS: Readonly<Record<string, number>> = { ms: 1, s: SECOND, m: 60_000, h: HOUR, d: DAY };
/** The names cron-parser reads in place of five fields. */
const CRON_NAMES = ["@yearly", "@monthly", "@weekly", "@daily", "@hourly"];

const CRON_EXPECTED = `expected 5 (minute hour day-of-month month day-of-week), 6 (seconds first) or one of ${CRON_NAMES.join(", ")}`;
const TZ_EXPECTED = "expected an IANA time zone such as Europe/Paris, America/New_York or UTC";
const EVERY_EXPECTED =
	"expected a duration of 1s to 365d, such as 2s, 90s, 15m, 1h or 1d, or a whole number of milliseconds";
const AT_EXPECTED = "expected an ISO time such as 2026-12-04T03:00:00Z or milliseconds since 1970";

/** Checks a spec as a person or a tool gave it; throws CrewError(ErrorCode.InvalidInput, …) naming the bad value and what was expected. */
export function checkSchedule(input: {
	cron?: string;
	tz?: string;
	every?: string | number;
	at?: string | number;
}): ScheduleSpec {
	const given = (["cron", "every", "at"] as const).filter((key) => input[key] !== undefined);
	if (given.length !== 1) {
		const got = given.length === 0 ? "none" : `${given.slice(0, -1).join(", ")} and ${given.at(-1)}`;
		throw invalid(`a schedule needs exactly one of cron, every or at; got ${got}`);
	}
	if (input.tz !== undefined && input.cron === undefined) {
		throw invalid(`tz ${show(input.tz)} goes only with cron: every and at do not depend on a time zone`);
	}
	if (input.cron !== undefined) return checkCron(input.cron, input.tz);
	if (input.every !== undefined) return { kind: "every", everyMs: checkEvery(input.every) };
	return { kind: "at", at: checkAt(input.at as string | number) };
}

/** The spec in words for lists: "cron 0 3 * * * (Europe/Paris)", "every 2s", "at 2026-12-04T03:00:00.000Z". */
export function scheduleText(spec: ScheduleSpec): string {
	switch (spec.kind) {
		case "cron":
			return spec.tz === undefined ? `cron ${spec.cron}` : `cron ${spec.cron} (${spec.tz})`;
		case "every":
			return `every ${everyText(spec.everyMs)}`;
		case "at":
			return `at ${new Date(spec.at).toISOString()}`;
	}
}

/**
 * The latest slot of `spec` in (after, upTo] and how many slots came before it in that span; undefined when none.
 * `anchor` (ms) is when the schedule was made: interval slots are anchor + k*everyMs, k >= 1.
 * `missed` stops counting at MAX_MISSED; the slot is exact however many came before it.
 */
export function dueSlot(
	spec: ScheduleSpec,
	anchor: number,
	after: number,
	upTo: number,
): { slot: number; missed: number } | undefined {
	if (upTo <= after) return undefined;
	switch (spec.kind) {
		case "at":
			return spec.at > after && spec.at <= upTo ? { slot: spec.at, missed: 0 } : undefined;
		case "every": {
			const first = firstStep(spec.everyMs, anchor, after);
			const last = Math.floor((upTo - anchor) / spec.everyMs);
			if (last < first) return undefined;
			return { slot: anchor + last * spec.everyMs, missed: Math.min(last - first, MAX_MISSED) };
		}
		case "cron":
			return dueCronSlot(spec, after, upTo);
	}
}

/** The first slot after `after` (ms), undefined when there is none (an `at` that has passed). */
export function nextSlot(spec: ScheduleSpec, anchor: number, after: number): number | undefined {
	switch (spec.kind) {
		case "at":
			return spec.at > after ? spec.at : undefined;
		case "every":
			return anchor + firstStep(spec.everyMs, anchor, after) * spec.everyMs;
		case "cron":
			return cronSlotsAfter(spec, after)();
	}
}

function checkCron(cron: string, tz: string | undefined): ScheduleSpec {
	const fields = typeof cron === "string" ? cron.trim().split(/\s+/).filter(Boolean) : [];
	const text = fields.join(" ");
	if (fields.length !== 5 && fields.length !== 6 && !CRON_NAMES.includes(text)) {
		throw invalid(`invalid cron ${show(cron)}: has ${fields.length} fields, ${CRON_EXPECTED}`);
	}
	const zone = tz === undefined ? undefined : checkZone(tz);
	let expression: ReturnType<typeof cronParser.parseExpression>;
	try {
		expression = cronParser.parseExpression(text, { currentDate: new Date(0), tz: zone });
	} catch (error) {
		throw invalid(`invalid cron ${show(cron)}: ${errorMessage(error)}`, error);
	}
	try {
		// Fields can each be valid and still never meet (the 31st of February or April): cron-parser
		// gives up its search then. Calendars repeat, so a search from 1970 finds any cron that runs.
		expression.next();
	} catch (error) {
		throw invalid(`invalid cron ${show(cron)}: no time matches it (${errorMessage(error)})`, error);
	}
	return zone === undefined ? { kind: "cron", cron: text } : { kind: "cron", cron: text, tz: zone };
}

/** The zone's canonical IANA name (`europe/paris` → `Europe/Paris`). */
function checkZone(tz: string): string {
	try {
		return new Intl.DateTimeFormat("en-US", { timeZone: tz }).resolvedOptions().timeZone;
	} catch (error) {
		// Intl refuses an unknown zone with a RangeError; anything else is not about the zone.
		if (!(error instanceof RangeError)) throw error;
		throw invalid(`invalid tz ${show(tz)}: ${TZ_EXPECTED}`, error);
	}
}

/** An interval in ms: a duration text with its unit, or a whole number of ms (as pi-crew's `interval`). */
function checkEvery(every: string | number): number {
	let ms: number | undefined;
	if (typeof every === "number") {
		ms = Number.isSafeInteger(every) ? every : undefined;
	} else if (typeof every === "string") {
		const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?\s*$/.exec(every);
		if (match?.[1] !== undefined && match[2] === undefined) {
			throw invalid(
				`invalid every ${show(every)}: a duration text needs a unit (${match[1]}ms, ${match[1]}s); a bare number of milliseconds is given as a number`,
			);
		}
		ms = match?.[1] === undefined ? undefined : Math.round(Number(match[1]) * (UNIT_MS[match[2] ?? ""] ?? Number.NaN));
	}
	if (ms === undefined || !(ms >= SECOND && ms <= MAX_EVERY_MS)) {
		throw invalid(`invalid every ${show(every)}: ${EVERY_EXPECTED}`);
	}
	return ms;
}

/**
 * An instant in ms: an ISO date and time (a time without an offset is the machine's local time, as
 * JavaScript reads it), or ms since 1970. Dates that do not exist (February 30, 24:00) are refused.
 */
function checkAt(at: string | number): number {
	let ms = Number.NaN;
	if (typeof at === "number") {
		ms = Number.isSafeInteger(at) ? at : Number.NaN;
	} else if (typeof at === "string" && isCalendarTime(at.trim())) {
		ms = Date.parse(at.trim());
	}
	if (!(Math.abs(ms) <= MAX_TIME_MS)) throw invalid(`invalid at ${show(at)}: ${AT_EXPECTED}`);
	return ms;
}

/** Whether `text` is an ISO date and time whose fields name a real day and time of day. */
function isCalendarTime(text: string): boolean {
	const match = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2})?$/.exec(text);
	if (!match) return false;
	const [year, month, day, hour, minute, second] = match.slice(1).map((field) => Number(field ?? 0));
	const date = new Date(0);
	date.setUTCFullYear(year ?? 0, (month ?? 0) - 1, day);
	date.setUTCHours(hour ?? 0, minute, second);
	return (
		date.getUTCFullYear() === year &&
		date.getUTCMonth() === (month ?? 0) - 1 &&
		date.getUTCDate() === day &&
		date.getUTCHours() === hour &&
		date.getUTCMinutes() === minute &&
		date.getUTCSeconds() === second
	);
}

function everyText(ms: number): string {
	for (const unit of ["d", "h", "m", "s"]) {
		const size = UNIT_MS[unit] ?? 1;
		if (ms % size === 0) return `${ms / size}${unit}`;
	}
	return `${ms}ms`;
}

/** The smallest k >= 1 with anchor + k*everyMs > after. */
function firstStep(everyMs: number, anchor: number, after: number): number {
	return Math.max(1, Math.floor((after - anchor) / everyMs) + 1);
}

function dueCronSlot(spec: CronSpec, after: number, upTo: number): { slot: number; missed: number } | undefined {
	const next = cronSlotsAfter(spec, after);
	let slot = next();
	if (slot === undefined || slot > upTo) return undefined;
	for (let missed = 0; missed < MAX_MISSED; missed++) {
		const following = next();
		if (following === undefined || following > upTo) return { slot, missed };
		slot = following;
	}
	return { slot: latestCronSlot(spec, slot, upTo), missed: MAX_MISSED };
}

/**
 * The latest slot in [known, upTo], `known` being a slot. cron-parser's prev() gives it in one step,
 * except around DST changes, where it can step over a slot moved out of a skipped hour (caught by
 * walking on) or land on the second pass of a repeated hour (caught by checking it against next()).
 */
function latestCronSlot(spec: CronSpec, known: number, upTo: number): number {
	let latest = previousCronSlot(spec, upTo);
	if (latest === undefined || latest < known || cronSlotsAfter(spec, latest - 1)() !== latest) {
		latest = halvedLatestCronSlot(spec, known, upTo);
	}
	for (;;) {
		const following = cronSlotsAfter(spec, latest)();
		if (following === undefined || following > upTo) return latest;
		latest = following;
	}
}

/** What cron-parser's prev() gives at or before `upTo`, undefined when it finds none. */
function previousCronSlot(spec: CronSpec, upTo: number): number | undefined {
	try {
		return cronParser
			.parseExpression(spec.cron, { currentDate: new Date(upTo + 1), tz: spec.tz })
			.prev()
			.getTime();
	} catch (error) {
		// Only a shortcut: without it the slot is found by halving the span.
		if (error instanceof CrewError) throw error;
		return undefined;
	}
}

/** The latest slot in [known, upTo], `known` being a slot, found with next() alone by halving the span. */
function halvedLatestCronSlot(spec: CronSpec, known: number, upTo: number): number {
	let low = known;
	// No slot lies in (high, upTo].
	let high = upTo;
	for (;;) {
		const following = cronSlotsAfter(spec, low)();
		if (following === undefined || following > high) return low;
		low = following;
		const middle = low + Math.floor((high - low) / 2);
		const beyond = cronSlotsAfter(spec, middle)();
		if (beyond === undefined || beyond > high) high = middle;
		else low = beyond;
	}
}

/**
 * The cron's slots after `after`, one per call, the same whatever the clock reads: see DST_LOOKBACK_MS.
 * cron-parser's DST handling applies only when the hour field names some hours, so a cron that runs
 * every hour is searched from `after` itself.
 */
function cronSlotsAfter(spec: CronSpec, after: number): () => number | undefined {
	let expression = parseCron(spec, after);
	if (expression.fields.hour.length !== 24 && offsetChanged(spec.tz, after - DST_LOOKBACK_MS, after)) {
		expression = parseCron(spec, after - DST_LOOKBACK_MS);
	}
	return () => {
		for (;;) {
			let slot: number;
			try {
				slot = expression.next().getTime();
			} catch (error) {
				throw invalid(
					`cron ${show(spec.cron)} has no slot after ${new Date(after).toISOString()}: ${errorMessage(error)}`,
					error,
				);
			}
			if (slot > after) return slot;
		}
	};
}

function parseCron(spec: CronSpec, from: number) {
	// A Date, not a number: cron-parser reads the number 0 as "now".
	return cronParser.parseExpression(spec.cron, { currentDate: new Date(from), tz: spec.tz });
}

/** Whether the zone's UTC offset differs between two instants; no zone is the machine's own. */
function offsetChanged(tz: string | undefined, from: number, to: number): boolean {
	if (!(Math.abs(from) <= MAX_TIME_MS)) return false;
	const format = new Intl.DateTimeFormat("en-US", { timeZone: tz, timeZoneName: "longOffset" });
	const offset = (time: number) => format.formatToParts(time).find((part) => part.type === "timeZoneName")?.value;
	return offset(from) !== offset(to);
}

function show(value: unknown): string {
	return typeof value === "string" ? JSON.stringify(value) : String(value);
}

function invalid(message: string, cause?: unknown): CrewError {
	return new CrewError(ErrorCode.InvalidInput, message, cause === undefined ? undefined : { cause });
}
