// Processes known by pid, host and kernel start time, to tell a live process from one that reused its pid.

import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { hostname } from "node:os";

/**
 * child_process is loaded only where /proc is missing: with net and dgram behind it, it would add
 * a tenth to the start of every command that reads the store.
 */
const require = createRequire(import.meta.url);

export interface ProcessIdentity {
	readonly pid: number;
	readonly host: string;
	/** Kernel start time of the process; tells a live process from a later one that reused its pid. */
	readonly startTime: string | null;
}

/** What the system says of a live process: its group and its start time. */
export interface ProcessStat {
	readonly pgid: number;
	/** Clock ticks since boot (field 22 of /proc/<pid>/stat), or `ps -o lstart=` where /proc is missing. */
	readonly startTime: string;
}

/**
 * The live process `pid` (not a zombie): from /proc, or from `ps` where /proc is missing (macOS);
 * null when there is no such process or neither can tell.
 */
export function processStat(pid: number): ProcessStat | null {
	if (!Number.isSafeInteger(pid) || pid <= 0) return null;
	if (existsSync("/proc/self/stat")) return procStat(pid);
	return psStat(pid);
}

function procStat(pid: number): ProcessStat | null {
	let stat: string;
	try {
		stat = readFileSync(`/proc/${pid}/stat`, "utf8");
	} catch {
		return null;
	}
	// Fields after "(comm) ": state, ppid, pgrp, ... starttime is the 20th of them.
	const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
	const start = fields[19];
	if (fields[0] === "Z" || fields[0] === "X" || start === undefined) return null;
	return { pgid: Number(fields[2]), startTime: start };
}

function psStat(pid: number): ProcessStat | null {
	let line: string;
	try {
		const { execFileSync } = require("node:child_process") as typeof import("node:child_process");
		line = execFileSync("ps", ["-o", "stat=,pgid=,lstart=", "-p", String(pid)], {
			encoding: "utf8",
			stdio: ["ignore", "pipe", "ignore"],
		}).trim();
	} catch {
		// ps exits non-zero when there is no such process; a missing ps tells nothing either.
		return null;
	}
	const match = /^(\S+)\s+(\d+)\s+(.+)$/.exec(line);
	if (!match || match[1]?.startsWith("Z")) return null;
	return { pgid: Number(match[2]), startTime: (match[3] as string).replace(/\s+/g, " ") };
}

/** The process's start time (see `ProcessStat`), or null when it is not running or cannot be read. */
export function processStartTime(pid: number): string | null {
	return processStat(pid)?.startTime ?? null;
}

export function currentProcess(): ProcessIdentity {
	return { pid: process.pid, host: hostname(), startTime: processStartTime(process.pid) };
}

/**
 * Whether the process `pid` that started at `startTime` still runs. A zombie counts as gone; with
 * no start time recorded only the pid is checked. This says whether a lease holder lives; it is
 * never reason enough to signal a process (see `provenGroup`).
 */
export function isProcessAlive(pid: number, startTime: string | null): boolean {
	try {
		process.kill(pid, 0);
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code !== "EPERM") return false;
	}
	const now = processStartTime(pid);
	if (startTime === null) return now !== null || processStartTime(process.pid) === null;
	return now === startTime;
}

export function isLocalHost(host: string): boolean {
	return host === hostname();
}
