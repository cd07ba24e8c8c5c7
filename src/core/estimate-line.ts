// A run's estimate as the one line people read: tasks, tokens, cost and time.

import type { RunEstimate } from "./run-estimate.js";

/** Two significant figures: 950, 8.2k, 40k, 1.2M. */
function approxCount(n: number): string {
	const v = Number(n.toPrecision(2));
	if (v >= 1e6) return `${Number((v / 1e6).toPrecision(2))}M`;
	if (v >= 1e3) return `${Number((v / 1e3).toPrecision(2))}k`;
	return String(v);
}

function approxTime(ms: number): string {
	if (ms < 60_000) return `~${Math.max(1, Math.round(ms / 1000))} s`;
	if (ms < 90 * 60_000) return `~${Math.round(ms / 60_000)} min`;
	return `~${(ms / 3_600_000).toFixed(1)} h`;
}

/** "about 6 tasks, ~40k tokens (~$0.30), ~3 min; a direct call to one agent ~8k tokens (from 5 past runs)". */
export function estimateLine(e: RunEstimate): string {
	if (e.tasks === 0 && e.openEnds.length > 0)
		return `not known before it runs: ${e.openEnds.join(", and ")} (${e.basis})`;
	const cost = e.costUsd === 0 ? "" : e.costUsd < 0.01 ? " (<$0.01)" : ` (~$${e.costUsd.toFixed(2)})`;
	const head = `${e.atLeast ? "at least" : "about"} ${e.tasks} task${e.tasks === 1 ? "" : "s"}`;
	const more = e.openEnds.length > 0 ? `, and ${e.openEnds.join(", and ")}` : "";
	const untimed = e.untimedCommands ?? 0;
	const time =
		untimed > 0 && untimed === e.tasks
			? "its time not known before its commands have run here"
			: `${approxTime(e.durationMs)}${untimed > 0 ? ` besides ${untimed} command${untimed === 1 ? "" : "s"} not yet timed here` : ""}`;
	// A plan of commands and dry runs: crew counts no tokens of theirs, so there is none to compare.
	if (e.tokens === 0) return `${head}, no tokens counted, ${time}${more} (${e.basis})`;
	return `${head}, ~${approxCount(e.tokens)} tokens${cost}, ${time}${more}; a direct call to one agent ~${approxCount(e.directCallTokens)} tokens (${e.basis})`;
}
