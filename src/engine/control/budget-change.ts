// Changing the token and cost caps of a run that no runner holds, before it is resumed.

import type { BudgetLimits } from "../../core/budget.js";
import { CrewError, ErrorCode } from "../../core/errors.js";
import { checkId } from "../../core/ids.js";
import { RunStatus } from "../../core/status.js";
import { isLeaseHolderAlive } from "../../store/lease.js";
import type { RunStore } from "../../store/run-store.js";

/**
 * Changes the caps of a run that no runner holds, before it is resumed: `caps` replace the run's
 * own, the others stay. A run with a live runner, or completed, is refused, as is a cap that is
 * not a number above 0.
 */
export function changeBudget(
	deps: { readonly store: RunStore; readonly now: () => number; readonly staleAfterMs: number },
	runId: string,
	caps: Pick<BudgetLimits, "tokens" | "usd">,
): void {
	const run = deps.store.queries.getRun(checkId("run", runId));
	if (run.status === RunStatus.Completed) {
		throw new CrewError(ErrorCode.Conflict, `run ${runId} is completed; its budget no longer matters`);
	}
	if (run.lease !== null && isLeaseHolderAlive(run.lease, deps.now(), deps.staleAfterMs)) {
		throw new CrewError(
			ErrorCode.Conflict,
			`run ${runId} has a live runner; its budget changes only between runners: cancel it, then resume it with the new budget`,
		);
	}
	for (const [key, value] of Object.entries(caps)) {
		if (value !== undefined && !(Number.isFinite(value) && value > 0)) {
			throw new CrewError(ErrorCode.InvalidInput, `invalid budget ${key} ${value}: expected a number > 0`);
		}
	}
	deps.store.setBudget(runId, { ...run.options.budget, ...caps });
}
