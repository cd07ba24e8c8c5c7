// Durations and time limits as users write them (`30s`, `5m`), parsed into milliseconds and formatted.

import { CrewError, ErrorCode } from "./errors.js";

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** The longest duration accepted, in ms: a week, well inside what a timer can wait. */
export const MAX_DURATION_MS = 7 * 24 * 3_600_000;

const EXPECTED = "a duration from 1ms to 168h, such as 500ms, 30s, 5m or 1h";

/** Parses `250ms`, `30s`, `5m`, `1h`, or a bare number of seconds, into milliseconds. */
export function parseDuration(what: string, value: string | number): number {
	const ms = durationMs(value);
	if (ms !== undefined && ms > 0 && ms <= MAX_DURATION_MS) return ms;
	throw new CrewError(ErrorCode.InvalidInput, `invalid ${what} ${JSON.stringify(value)}: expected ${EXPECTED}`);
}

/** A limit on time, in ms, as `parseDuration` reads it, where 0 (`0`, `0s`, …) means no limit. */
export function parseLimit(what: string, value: string | number): number {
	const ms = durationMs(value);
	if (ms !== undefined && ms >= 0 && ms <= MAX_DURATION_MS) return ms;
	throw new CrewError(
		ErrorCode.InvalidInput,
		`invalid ${what} ${JSON.stringify(value)}: expected 0 (no limit) or ${EXPECTED}`,
	);
}

function durationMs(value: string | number): number | undefined {
	if (typeof value === "number") return Number.isFinite(value) ? Math.round(value * 1000) : undefined;
	if (typeof value !== "string") return undefined;
	const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$/.exec(value);
	return match?.[1] ? Math.round(Number(match[1]) * (UNITS[match[2] ?? "s"] ?? 1000)) : undefined;
}

export function formatDuration(ms: number): string {
	if (ms < 1000) return `${Math.round(ms)}ms`;
	if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`;
	const minutes = Math.floor(ms / 60_000);
	const seconds = Math.round((ms % 60_000) / 1000);
	return `${minutes}m${String(seconds).padStart(2, "0")}s`;
}
