import { CrewError, ErrorCode } from "./errors.js";

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** The longest duration accepted: a week, well inside what a timer can wait. */
const MAX_MS = 7 * 24 * 3_600_000;

/** Parses `250ms`, `30s`, `5m`, `1h`, or a bare number of seconds, into milliseconds. */
export function parseDuration(what: string, value: string | number): number {
	if (typeof value === "number") {
		if (Number.isFinite(value) && value > 0 && value * 1000 <= MAX_MS) return Math.round(value * 1000);
	} else {
		const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$/.exec(value);
		if (match?.[1]) {
			const ms = Math.round(Number(match[1]) * (UNITS[match[2] ?? "s"] ?? 1000));
			if (ms > 0 && ms <= MAX_MS) return ms;
		}
	}
	throw new CrewError(
		ErrorCode.InvalidInput,
		`invalid ${what} ${JSON.stringify(value)}: expected a duration from 1ms to 168h, such as 500ms, 30s, 5m or 1h`,
	);
}

export function formatDuration(ms: number): string {
	if (ms < 1000) return `${Math.round(ms)}ms`;
	if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`;
	const minutes = Math.floor(ms / 60_000);
	const seconds = Math.round((ms % 60_000) / 1000);
	return `${minutes}m${String(seconds).padStart(2, "0")}s`;
}
