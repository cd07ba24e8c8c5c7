// How a run ends: its final status and error, from how it stopped, what failed and which tasks are left open.

import { RunStatus } from "../../core/status.js";
import type { DriverOutcome } from "./driver.js";

export interface OutcomeFacts {
	/** The run was cancelled (by request, a signal or a rejection). */
	readonly cancelled: boolean;
	/** Why the run stopped early, when it did; the error of a run that did not complete otherwise. */
	readonly stopMessage: string | undefined;
	/** Set when the budget stopped the run: its error, quoting what the run spent in the end. */
	readonly budgetStop: string | undefined;
	readonly firstFailure: string | undefined;
	/** Why the completed tasks' work is not all on the run's integration branch, when it is not. */
	readonly integration?: string | undefined;
	/** For a driven run, how its driver ended (undefined while it had not). */
	readonly driven?: { readonly outcome: DriverOutcome | undefined };
	/** Tasks that count and did not complete, and all that count. */
	readonly open: number;
	readonly total: number;
}

/**
 * How a run ends. A driven run (a script) completes when its driver did and the run was not
 * stopped, whatever calls failed on the way: the script handled them. Any other run completes
 * when every task that counts completed and their work is all on its integration branch.
 */
export function runOutcome(facts: OutcomeFacts): { status: RunStatus; error: string | null } {
	if (facts.cancelled) return { status: RunStatus.Cancelled, error: facts.stopMessage ?? null };
	if (facts.driven) {
		const { outcome } = facts.driven;
		if (outcome?.ok === true && facts.stopMessage === undefined) return { status: RunStatus.Completed, error: null };
		const error = facts.budgetStop ?? (outcome?.ok === false ? outcome.error : facts.stopMessage);
		return { status: RunStatus.Failed, error: error || "the run stopped before its script ended" };
	}
	if (facts.open === 0 && facts.integration === undefined) return { status: RunStatus.Completed, error: null };
	const error =
		facts.budgetStop ??
		facts.firstFailure ??
		facts.integration ??
		facts.stopMessage ??
		`${facts.open} of ${facts.total} tasks did not complete`;
	return { status: RunStatus.Failed, error };
}
