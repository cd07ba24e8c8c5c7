// How deep in crew runs a process is, whether it may start a run there, and how the user lets runs nest.

import { CrewError, ErrorCode } from "./errors.js";

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

/**
 * How the user lets runs nest: `maxDepth`, how deep (a run starts while its starter's depth is
 * below it); `maxRunning`, how many runs an agent's delegations keep running at once below one run
 * (default: half the run's concurrency, at least 1); `deepWrites`, whether runs nested deeper than
 * 1 may change their workspace (default: they may not).
 */
export interface NestingSettings {
	readonly maxDepth: number;
	readonly maxRunning?: number;
	readonly deepWrites?: boolean;
}

/** Deeper than this, runs nest past any use: a limit that high is a mistake. */
const MOST_NESTING = 8;
/** More runs than this at once below one run is a mistake rather than a plan. */
const MOST_RUNNING = 64;
const NESTING_KEYS = ["maxDepth", "maxRunning", "deepWrites"];

/** The `nesting` of config file `file`, or a clear error naming the bad value and what was expected. */
export function readNesting(file: string, value: unknown): NestingSettings | undefined {
	if (value === undefined) return undefined;
	const given = (typeof value === "object" && value !== null ? value : {}) as Record<string, unknown>;
	const { maxDepth, maxRunning, deepWrites } = given;
	const fits =
		typeof value === "object" &&
		value !== null &&
		!Array.isArray(value) &&
		Object.keys(given).every((key) => NESTING_KEYS.includes(key)) &&
		Number.isInteger(maxDepth) &&
		(maxDepth as number) >= 1 &&
		(maxDepth as number) <= MOST_NESTING &&
		(maxRunning === undefined ||
			(Number.isInteger(maxRunning) && (maxRunning as number) >= 1 && (maxRunning as number) <= MOST_RUNNING)) &&
		(deepWrites === undefined || typeof deepWrites === "boolean");
	if (!fits) {
		throw new CrewError(
			ErrorCode.InvalidInput,
			`${file}: "nesting" ${JSON.stringify(value)}: expected {"maxDepth": N} with N from 1 to ${MOST_NESTING}, and optionally "maxRunning": 1 to ${MOST_RUNNING} and "deepWrites": true or false`,
		);
	}
	return {
		maxDepth: maxDepth as number,
		...(maxRunning !== undefined ? { maxRunning: maxRunning as number } : {}),
		...(deepWrites !== undefined ? { deepWrites: deepWrites as boolean } : {}),
	};
}

/** How many delegated runs may run at once below a run of `concurrency`: pi-crew's half, at least one. */
export function nestedRunning(nesting: NestingSettings | undefined, concurrency: number): number {
	return nesting?.maxRunning ?? Math.max(1, Math.floor(concurrency / 2));
}
