// GET /api/runs/<runId>/cost: where a run's tokens and dollars went, as `crew status --json` counts them.

import type { UsageJson } from "../../engine/views/json.js";
import type { RunReader } from "../../engine/views/reader.js";

/** A task's usage, and, for a task a fork took as it was, what it spent in the run it came from. */
interface TaskCost {
	readonly id: string;
	readonly role: string;
	readonly usage: UsageJson;
	readonly inherited: { readonly runId: string; readonly usage: UsageJson } | null;
}

/**
 * The run's usage in all and by task, role and model, from the same read `crew status --json`
 * makes (so their sums are its sums), with the run's budget, if it has one.
 */
export function runCost(reader: RunReader, runId: string): object {
	const status = JSON.parse(reader.statusJson(runId)) as {
		run: { usage: UsageJson; usageByRole: Record<string, UsageJson>; usageByModel: Record<string, UsageJson> };
		tasks: (Omit<TaskCost, "inherited"> & { inherited?: TaskCost["inherited"] })[];
	};
	const { usage, usageByRole, usageByModel } = status.run;
	const tasks: TaskCost[] = status.tasks.map((t) => ({
		id: t.id,
		role: t.role,
		usage: t.usage,
		inherited: t.inherited ? { runId: t.inherited.runId, usage: t.inherited.usage } : null,
	}));
	const { tokens, usd } = reader.run(runId).options.budget ?? {};
	const budget = tokens === undefined && usd === undefined ? null : { tokens: tokens ?? null, usd: usd ?? null };
	return { usage, usageByRole, usageByModel, tasks, budget };
}
