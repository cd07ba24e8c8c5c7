// GET /api/runs/<runId>/timeline: a run's timeline, with the marks of its time axis.

import { scaleUtc } from "d3-scale";
import type { Timeline } from "../../engine/views/timeline.js";

/** About how many marks the time axis carries. */
const TICKS = 8;

/**
 * `timeline` with `ticks`: the ms from the run's start its axis marks, at round steps of the
 * clock (1 s, 5 s, 15 s, 1 min, …) as a time scale chooses them.
 */
export function timelineJson(timeline: Timeline): Timeline & { readonly ticks: readonly number[] } {
	const ticks = scaleUtc()
		.domain([0, Math.max(1, timeline.span)])
		.ticks(TICKS)
		.map((d) => d.getTime());
	return { ...timeline, ticks };
}
