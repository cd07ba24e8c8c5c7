import { readFileSync } from "node:fs";
import { hostname } from "node:os";

export interface ProcessIdentity {
	readonly pid: number;
	readonly host: string;
	/** Kernel start time of the process; tells a live process from a later one that reused its pid. */
	readonly startTime: string | null;
}

/**
 * The process's start time in clock ticks since boot (field 22 of /proc/<pid>/stat), or null
 * where /proc is not available.
 */
export function processStartTime(pid: number): string | null {
	let stat: string;
	try {
		stat = readFileSync(`/proc/${pid}/stat`, "utf8");
	} catch {
		return null;
	}
	const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
	if (fields[0] === "Z" || fields[0] === "X") return null;
	return fields[19] ?? null;
}

export function currentProcess(): ProcessIdentity {
	return { pid: process.pid, host: hostname(), startTime: processStartTime(process.pid) };
}

/**
 * Whether the process `pid` that started at `startTime` still runs. A zombie counts as gone; with
 * no start time recorded only the pid is checked.
 */
export function isProcessAlive(pid: number, startTime: string | null): boolean {
	try {
		process.kill(pid, 0);
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code !== "EPERM") return false;
	}
	const now = processStartTime(pid);
	if (startTime === null) return now !== null || !hasProc();
	return now === startTime;
}

function hasProc(): boolean {
	return processStartTime(process.pid) !== null;
}

export function isLocalHost(host: string): boolean {
	return host === hostname();
}
