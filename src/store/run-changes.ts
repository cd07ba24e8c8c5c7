// What callers hand the run store to record: a new run, a task's move, an attempt's end, a lease claim.

import type { ArtifactRecord } from "../core/records.js";
import type { Cause, TaskStatus } from "../core/status.js";
import type { RunOptions, TaskSpec } from "../core/types.js";
import type { Usage } from "../core/usage.js";
import type { ProcessIdentity } from "./process-identity.js";

/* What callers hand the run store to record. */

export interface NewRun {
	readonly id: string;
	readonly goal: string;
	readonly team: string | null;
	readonly workflow: string;
	readonly options: RunOptions;
	readonly tasks: readonly TaskSpec[];
}

export interface TaskChange {
	readonly taskId: string;
	readonly to: TaskStatus;
	readonly cause: Cause;
	readonly error?: string | null;
}

/** How an attempt ended, written together with the task's new status and its event. */
export interface Settlement {
	readonly taskId: string;
	readonly attemptId: number;
	/** `completed`, `failed`, `cancelled`, `timed-out`, `stalled` or `lost`. */
	readonly attemptStatus: string;
	readonly taskStatus: TaskStatus;
	readonly cause: Cause;
	readonly error?: string | null;
	readonly retryable?: boolean | null;
	readonly exitCode?: number | null;
	readonly usage?: Usage;
	readonly result?: { readonly excerpt: string; readonly chars: number };
	readonly artifacts?: readonly ArtifactRecord[];
	readonly data?: Record<string, unknown>;
	/** What a failed check printed: the task's next attempt is given it. */
	readonly evidence?: string;
	/** More events of the task, recorded in the same transaction after its move. */
	readonly events?: readonly { readonly type: string; readonly data: Record<string, unknown> }[];
}

export interface LeaseOptions {
	readonly holder: ProcessIdentity;
	readonly cause: Cause;
	/** After this long without a heartbeat, a runner on another host counts as gone, in ms. */
	readonly staleAfterMs: number;
}
