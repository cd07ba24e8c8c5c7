// Workers' process groups: finding them, proving crew started them, and ending them, a dead runner's too.

import type { ChildProcess } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { sep } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import type { ProcessHandle } from "../../core/records.js";
import { processStartTime, processStat } from "../../store/process-identity.js";
import type { AttemptSeal } from "./attempt-seal.js";

/**
 * Whether any live process of group `pgid` is still there. Exited processes waiting to be reaped
 * (zombies) do not count: an orphan's zombie lingers until init reaps it, but it runs nothing.
 */
export function groupExists(pgid: number): boolean {
	try {
		process.kill(-pgid, 0);
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code !== "EPERM") return false;
	}
	return hasLiveMember(pgid);
}

function hasLiveMember(pgid: number): boolean {
	let pids: string[];
	try {
		pids = readdirSync("/proc").filter((name) => /^\d+$/.test(name));
	} catch {
		return true;
	}
	for (const pid of pids) {
		let stat: string;
		try {
			stat = readFileSync(`/proc/${pid}/stat`, "utf8");
		} catch {
			continue;
		}
		// Fields after "(comm) ": state, ppid, pgrp, ...
		const [state, , pgrp] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
		if (Number(pgrp) === pgid && state !== "Z" && state !== "X") return true;
	}
	return false;
}

/**
 * Whether crew may send anything to group `pgid` at all: never to pid or group 1 or below (`kill(-1)`
 * reaches every process the user may signal) nor to crew's own group.
 */
export function signallable(pgid: number): boolean {
	const own = ownGroup();
	return Number.isSafeInteger(pgid) && pgid > 1 && own !== null && pgid !== own;
}

function signalGroup(pgid: number, signal: NodeJS.Signals): void {
	if (!signallable(pgid)) return;
	try {
		process.kill(-pgid, signal);
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code !== "ESRCH") throw error;
	}
}

/**
 * Waits until the group is empty, polling at 2 ms and then less often, to 20 ms: most groups end
 * within a few ms of their signal, and each attempt waits for its own. False if it is still there
 * after `ms`.
 */
async function groupGone(pgid: number, ms: number): Promise<boolean> {
	const until = Date.now() + ms;
	for (let pause = 2; groupExists(pgid); pause = Math.min(pause * 2, 20)) {
		if (Date.now() >= until) return false;
		await sleep(pause);
	}
	return true;
}

/**
 * Ends a process group: SIGTERM, then SIGKILL to whatever is left after `graceMs`. Grandchildren
 * that stayed in the group go with it.
 */
export async function terminateGroup(pgid: number, graceMs: number): Promise<void> {
	if (!signallable(pgid) || !groupExists(pgid)) return;
	signalGroup(pgid, "SIGTERM");
	if (await groupGone(pgid, graceMs)) return;
	signalGroup(pgid, "SIGKILL");
	await groupGone(pgid, 2000);
}

/**
 * Whether the group an attempt record names is provably the one crew started: its leader (crew
 * starts every worker as the leader of a group of its own, so pgid = pid) runs now, in that
 * group, with the very start time recorded at spawn. A record, however it came into the store
 * (an import, a planted row), proves nothing on its own: a group whose leader is gone, a record
 * without a start time, or one where the start time cannot be read, is never signalled.
 */
export function provenGroup(handle: ProcessHandle): boolean {
	if (handle.pid !== handle.pgid || !signallable(handle.pgid) || handle.startTime === null) return false;
	const leader = processStat(handle.pid);
	return leader !== null && leader.pgid === handle.pgid && leader.startTime === handle.startTime;
}

/**
 * Ends the group of a worker left by a runner that died, only when `provenGroup` holds, so a
 * reused pid or a record crew did not write is never hit. Returns whether it signalled.
 */
export async function reapOrphan(handle: ProcessHandle, graceMs: number): Promise<boolean> {
	if (!provenGroup(handle)) return false;
	await terminateGroup(handle.pgid, graceMs);
	return true;
}

export function handleOf(child: ChildProcess): ProcessHandle {
	const pid = child.pid as number;
	return { pid, pgid: pid, startTime: processStartTime(pid) };
}

/** Process groups (other than this process's own) of live processes whose environment has every one of `variables`. */
export function groupsCarrying(variables: Readonly<Record<string, string>>): number[] {
	const markers = Object.entries(variables).map(([key, value]) => `\0${key}=${value}\0`);
	return [...(groupsBy((block) => (markers.every((m) => block.includes(m)) ? "" : undefined)).get("") ?? [])];
}

/** The process groups found working for crew runs on this host: by run id, those `seal` proves crew started and the rest. */
export interface CrewRunGroups {
	readonly proven: number[];
	readonly unproven: number[];
}

/**
 * Process groups of every live process that carries a crew run id (`CREW_RUN_ID`), whichever
 * repository its run belongs to, by run id; a group is proven when one of its processes carries
 * an attempt token `seal` proves and a prompt file inside `runFolder(runId)`, the run's folder of
 * the store asking (so a run of another repository that happens to share the id is not).
 */
export function crewRunGroups(seal: AttemptSeal, runFolder: (runId: string) => string): Map<string, CrewRunGroups> {
	const found = groupsBy((block) => {
		if (!block.includes("\0CREW_RUN_ID=")) return undefined;
		const env = environment(block);
		const runId = env.CREW_RUN_ID;
		if (runId === undefined) return undefined;
		const inside = (env.CREW_PROMPT_FILE ?? "").startsWith(`${runFolder(runId)}${sep}`);
		return `${inside && seal.proves(env) ? "proven" : "unproven"}\0${runId}`;
	});
	const runs = new Map<string, { proven: number[]; unproven: number[] }>();
	for (const [key, groups] of found) {
		const [kind, runId] = key.split("\0") as ["proven" | "unproven", string];
		const entry = runs.get(runId) ?? { proven: [], unproven: [] };
		entry[kind].push(...groups);
		runs.set(runId, entry);
	}
	for (const entry of runs.values()) entry.unproven = entry.unproven.filter((g) => !entry.proven.includes(g));
	return runs;
}

/**
 * Scans /proc once: the process groups of live processes (those `signallable` allows), under the
 * key `keyOf` finds in each one's environment (NUL-separated, with a NUL in front); processes it
 * gives no key are left out. Empty where /proc is not available.
 */
function groupsBy(keyOf: (block: string) => string | undefined): Map<string, Set<number>> {
	const groups = new Map<string, Set<number>>();
	let pids: string[];
	try {
		pids = readdirSync("/proc").filter((name) => /^\d+$/.test(name));
	} catch {
		return groups;
	}
	for (const pid of pids) {
		if (Number(pid) === process.pid) continue;
		try {
			const key = keyOf(`\0${readFileSync(`/proc/${pid}/environ`, "latin1")}`);
			if (key === undefined) continue;
			const stat = processStat(Number(pid));
			if (stat === null || !signallable(stat.pgid)) continue;
			const set = groups.get(key) ?? new Set<number>();
			set.add(stat.pgid);
			groups.set(key, set);
		} catch {
			// The process ended while we looked, or is not ours to read: nothing to end.
		}
	}
	return groups;
}

/** A NUL-separated environment block as variables. */
function environment(block: string): Record<string, string> {
	const env: Record<string, string> = {};
	for (const entry of block.split("\0")) {
		const eq = entry.indexOf("=");
		if (eq > 0) env[entry.slice(0, eq)] = entry.slice(eq + 1);
	}
	return env;
}

/** crew's own process group, or null where it cannot be read (then `signallable` refuses every group). */
function ownGroup(): number | null {
	return processStat(process.pid)?.pgid ?? null;
}
