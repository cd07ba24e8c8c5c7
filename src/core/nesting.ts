// How deep in crew runs a process is, and whether it may start a run at that depth.

/**
 * How deep in crew runs a process is, from its environment: 0 outside any run; a worker's is its
 * runner's plus one (`CREW_DEPTH`, set on every worker). A worker whose `CREW_DEPTH` is missing or
 * not a number still counts 1, by the run id every worker carries (`CREW_RUN_ID`).
 */
export function nestingDepth(env: Readonly<Record<string, string | undefined>>): number {
	const given = env.CREW_DEPTH === undefined || env.CREW_DEPTH.trim() === "" ? Number.NaN : Number(env.CREW_DEPTH);
	const depth = Number.isSafeInteger(given) && given >= 0 ? given : 0;
	return env.CREW_RUN_ID !== undefined ? Math.max(depth, 1) : depth;
}

/**
 * Why `action` may not start a run at `depth`, or undefined when it may: a run's workers are one
 * level deeper than it, so a run may start only while `depth < maxDepth`. Without the user's
 * `nesting.maxDepth`, maxDepth is 1: runs start outside crew's workers only.
 */
export function nestingRefusal(action: string, depth: number, maxDepth: number | undefined): string | undefined {
	if (depth < (maxDepth ?? 1)) return undefined;
	if (maxDepth === undefined) {
		return `${action} starts no run inside a crew worker (CREW_RUN_ID is set, depth ${depth}): a run inside a run needs your user config.json to allow it, e.g. {"nesting": {"maxDepth": ${depth + 1}}}`;
	}
	return `${action} starts no run at depth ${depth}: your user config.json allows runs nested ${maxDepth} deep (nesting.maxDepth)`;
}
