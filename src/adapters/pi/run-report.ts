// The report a pi session gets when a run it started ends: its status and its tasks' results.

import { statusCounts } from "../../core/status.js";
import { excerpt } from "../../core/terminal-text.js";
import type { StatusJson } from "../../engine/views/json.js";
import { integrationLines } from "../shared/integration-text.js";

/** Characters of each task's result a report carries, and of all of them together. */
const PER_TASK = 1500;
const IN_ALL = 12_000;

/** Characters of the run's error, and of each task's, that a status's lines show. */
const ERROR_SHOWN = 200;

/** A run's status as a few lines: the run, then each task with its status and its error, bounded. */
export function statusText({ run, tasks }: StatusJson): string {
	const whole = `crew_status of run ${run.id} for all`;
	const lines = [`run ${run.id} ${run.status}: ${statusCounts(tasks)}`];
	if (run.error && run.status !== "completed") lines.push(`error: ${excerpt(run.error, ERROR_SHOWN, whole)}`);
	if (run.integration) lines.push(...integrationLines(run.id, run.integration));
	for (const t of tasks)
		lines.push(`- ${t.id} (${t.role}) ${t.status}${t.error ? `: ${excerpt(t.error, ERROR_SHOWN, whole)}` : ""}`);
	return lines.join("\n");
}

/** One of crew's tools, called by name: a `CrewClient`'s `call`. */
export type CrewCall = (tool: string, args: Record<string, unknown>) => Promise<Record<string, unknown>>;

/** What a pi session is told when a run it started ends: its status and its tasks' results. */
export async function runReport(call: CrewCall, runId: string): Promise<{ text: string; status: StatusJson }> {
	const status = (await call("crew_status", { runId })) as unknown as StatusJson;
	const { tasks } = status;
	const parts = [`crew run ${runId} ended ${status.run.status}.`, statusText(status), "", "Results:"];
	let room = IN_ALL;
	for (const t of tasks.filter((task) => task.status === "completed")) {
		if (room <= 0) {
			parts.push(`(more results: team result with runId ${runId})`);
			break;
		}
		const { result } = (await call("crew_result", { runId, task: t.id })) as { result: string };
		const shown = result.length > Math.min(PER_TASK, room) ? `${result.slice(0, Math.min(PER_TASK, room))}…` : result;
		room -= shown.length;
		parts.push(`## ${t.id}`, shown.trim());
	}
	return { text: parts.join("\n"), status };
}
