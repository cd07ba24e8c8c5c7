// W3C trace context ids of a run's spans, derived from its record so every runner names a span alike.

import { createHash } from "node:crypto";

function hex(length: number, parts: readonly (string | number)[]): string {
	const id = createHash("sha256").update(parts.join("\0")).digest("hex").slice(0, length);
	// W3C trace context forbids an all-zero id, which one digest in 2^64 would give.
	return /^0+$/.test(id) ? `${id.slice(0, -1)}1` : id;
}

/**
 * W3C trace context ids of a run's spans, derived from the run's record alone: every runner of the
 * run, before and after a crash, and every process that exports one of its spans names the same
 * span the same way, so a resumed run continues its trace and a child links to a parent exported
 * by another process.
 *
 * The trace of run `runId`: 32 hex digits.
 */
export function traceIdOf(runId: string): string {
	return hex(32, ["crew trace", runId]);
}

/**
 * A span of run `runId`, named by what it stands for: `run` and its round, `task` with the task's
 * id and round, `attempt` with the task's id and the attempt's number, ...: 16 hex digits.
 */
export function spanIdOf(runId: string, ...what: readonly (string | number)[]): string {
	return hex(16, ["crew span", runId, ...what]);
}

/** The span of attempt `attempt` of task `taskId`, whose processes it is the parent of. */
export function attemptSpanId(runId: string, taskId: string, attempt: number): string {
	return spanIdOf(runId, "attempt", taskId, attempt);
}

/** `TRACEPARENT` for the processes of an attempt: its span, sampled. */
export function attemptTraceparent(runId: string, taskId: string, attempt: number): string {
	return `00-${traceIdOf(runId)}-${attemptSpanId(runId, taskId, attempt)}-01`;
}
