// How a run stands for whoever started it: how it ended, or what it needs next, and the command to type.

import { ASKS } from "../../core/asked.js";
import type { RunRecord, TaskRecord } from "../../core/records.js";
import { RunStatus, TaskStatus } from "../../core/status.js";

/**
 * How a run stands for the person or script that started it: what it needs next. A run whose
 * tasks all completed but whose work is not all on its integration branch, and a run that stopped
 * for a person's decision, are told apart from a run that failed.
 */
export const RunEnding = {
	Completed: "completed",
	Failed: "failed",
	Cancelled: "cancelled",
	/** Every task completed; the work of some is missing from the run's integration branch. */
	IntegrationIncomplete: "integration-incomplete",
	/** Waits for an approval, stopped because its budget is spent, or ended with tasks that need attention. */
	NeedsPerson: "needs-person",
	/** Its runner stopped before it ended (a signal, a kill); `crew resume` continues it. */
	Interrupted: "interrupted",
	/** Still going. */
	Running: "running",
} as const;
export type RunEnding = (typeof RunEnding)[keyof typeof RunEnding];

export interface RunStanding {
	readonly ending: RunEnding;
	/** The command a person would type next, when there is one. */
	readonly next: string | undefined;
}

/**
 * `budgetSpent`: the run has a `budget.exhausted` event. `interrupted`: this process's runner
 * was stopped by a signal, which cancels the run's tasks but leaves it resumable.
 */
export function runStanding(
	run: RunRecord,
	tasks: readonly TaskRecord[],
	facts: { readonly budgetSpent: boolean; readonly interrupted?: boolean },
): RunStanding {
	const id = run.id;
	const integration = run.integration;
	switch (run.status) {
		case RunStatus.Completed: {
			// A task left for a person comes before merging: its retry may add to the work.
			const attention = tasks.find((t) => t.status === TaskStatus.NeedsAttention);
			const merge = integration && (integration.status === "merged" || integration.status === "resolved");
			// Settled, yet not done: a person is to look at what the task left.
			if (attention) return { ending: RunEnding.NeedsPerson, next: `crew retry ${id} ${attention.id}` };
			return { ending: RunEnding.Completed, next: merge ? `crew merge ${id}` : undefined };
		}
		case RunStatus.Waiting: {
			const asking = tasks.find((t) => t.status === TaskStatus.Waiting && t.error?.startsWith(ASKS));
			const next = asking ? `crew answer ${id} ${asking.id} "<answer>"` : `crew approve ${id}`;
			return { ending: RunEnding.NeedsPerson, next };
		}
		case RunStatus.Interrupted:
			return { ending: RunEnding.Interrupted, next: `crew resume ${id}` };
		case RunStatus.Cancelled:
			return facts.interrupted
				? { ending: RunEnding.Interrupted, next: `crew resume ${id}` }
				: { ending: RunEnding.Cancelled, next: undefined };
		case RunStatus.Failed: {
			if (facts.budgetSpent) return { ending: RunEnding.NeedsPerson, next: undefined };
			// As the run counted them: a task that needs attention does not hold it back.
			const counted = tasks.filter((t) => t.status !== TaskStatus.Superseded && t.status !== TaskStatus.NeedsAttention);
			const allDone = counted.length > 0 && counted.every((t) => t.status === TaskStatus.Completed);
			if (allDone && integration && integration.missing.length > 0) {
				return { ending: RunEnding.IntegrationIncomplete, next: `crew resume ${id}` };
			}
			return { ending: RunEnding.Failed, next: undefined };
		}
		default:
			return { ending: RunEnding.Running, next: undefined };
	}
}
