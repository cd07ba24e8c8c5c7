// Runs and tasks as the HTTP API gives them, in the JSON form of `crew status --json`.

import type { RunRecord, TaskView } from "../../core/records.js";
import { addUsage, type Usage, ZERO_USAGE } from "../../core/usage.js";
import { runSummary, usageJson } from "../../engine/views/json.js";
import type { ChildRun } from "../../store/run-delegations.js";

/** A task as the API gives it: usage in the form `crew status --json` uses. */
export function taskJson(task: TaskView): object {
	const inherited = task.inherited ? { ...task.inherited, usage: usageJson(task.inherited.usage) } : null;
	return { ...task, usage: usageJson(task.usage), inherited };
}

/**
 * A run as the API gives it, in `crew status --json`'s form: its fields, and its `usage` with that
 * of the runs its tasks delegated, `usageOwn` and `usageNested` apart, each child under its task.
 */
export function runJson(record: RunRecord, own: Usage, children: readonly ChildRun[]): object {
	const run = runSummary(record);
	const nested = children.reduce((sum, child) => addUsage(sum, child.usage), ZERO_USAGE);
	if (children.length === 0) return { ...run, usage: usageJson(own) };
	return {
		...run,
		usage: usageJson(addUsage(own, nested)),
		usageOwn: usageJson(own),
		usageNested: usageJson(nested),
		children: children.map((child) => ({ ...child, usage: usageJson(child.usage) })),
	};
}
