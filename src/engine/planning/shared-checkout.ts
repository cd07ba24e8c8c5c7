// The warning a new run gets when another live run is writing the same checkout.

import type { RunRecord } from "../../core/records.js";
import type { RunOptions } from "../../core/types.js";
import type { Diagnostic } from "../../resources/frontmatter.js";
import { isLeaseHolderAlive } from "../../store/lease.js";

/** A run whose agents edit the repository's own files: no worktrees, and a runtime that writes. */
export function writesCheckout(options: Pick<RunOptions, "workspace" | "runtime" | "replay">): boolean {
	return options.workspace !== "worktree" && options.runtime !== "dry-run" && options.replay?.live !== false;
}

/**
 * A warning naming the live runs of `running` (runs whose status says they run) that write the
 * checkout a run planned with `options` would write too: both would change the same files under
 * each other's agents. A run whose runner is gone writes nothing, and is not named.
 */
export function sharedCheckoutWarning(
	options: RunOptions,
	running: readonly RunRecord[],
	now: number,
	staleAfterMs: number,
): Diagnostic | undefined {
	if (!writesCheckout(options)) return undefined;
	const beside = running.filter(
		(run) => writesCheckout(run.options) && run.lease !== null && isLeaseHolderAlive(run.lease, now, staleAfterMs),
	);
	if (beside.length === 0) return undefined;
	const named = beside.map((run) => `run ${run.id}`).join(", ");
	return {
		level: "warning",
		file: "",
		message: `${named} ${beside.length === 1 ? "is" : "are"} also working in this checkout (${options.cwd}): both runs' agents write the same files; give this run worktrees of its own with --workspace worktree, or pass --allow-shared to run beside ${beside.length === 1 ? "it" : "them"} without this warning`,
	};
}
