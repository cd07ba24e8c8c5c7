// Runs and tasks as the HTTP API gives them, in the JSON form of `crew status --json`.

import type { RunRecord, TaskView } from "../../core/records.js";
import { addUsage, ZERO_USAGE } from "../../core/usage.js";
import { runSummary, usageJson } from "../../engine/views/json.js";

/** A task as the API gives it: usage in the form `crew status --json` uses. */
export function taskJson(task: TaskView): object {
	const inherited = task.inherited ? { ...task.inherited, usage: usageJson(task.inherited.usage) } : null;
	return { ...task, usage: usageJson(task.usage), inherited };
}

/** A run as the API gives it: `crew status --json`'s run fields, with its end, error and usage. */
export function runJson(run: RunRecord, tasks?: readonly TaskView[]): object {
	const summary = runSummary(run);
	if (!tasks) return summary;
	return { ...summary, usage: usageJson(tasks.reduce((sum, t) => addUsage(sum, t.usage), ZERO_USAGE)) };
}
