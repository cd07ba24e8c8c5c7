// A runner's lease on a run, and whether the runner holding it is still alive.

import type { LeaseInfo } from "../core/records.js";
import { isLocalHost, isProcessAlive } from "./process-identity.js";

/** When a runner on another host counts as gone without a heartbeat, in ms. */
export const DEFAULT_STALE_AFTER_MS = 30_000;

/** A runner's claim on a run: every write it makes carries the epoch it was given. */
export interface Lease {
	readonly runId: string;
	readonly epoch: number;
}

/**
 * Whether the runner holding `lease` is still there: on this host, by its pid and start time, at
 * once; on another host, by a heartbeat newer than `staleAfterMs`.
 */
export function isLeaseHolderAlive(lease: LeaseInfo, now: number, staleAfterMs: number): boolean {
	if (isLocalHost(lease.host)) return isProcessAlive(lease.pid, lease.processStart);
	return now - lease.heartbeatAt < staleAfterMs;
}
