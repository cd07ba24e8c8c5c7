// The final summary a foreground run prints: outcome, counts, tasks, and the command to type next.

import { statusCounts } from "../../core/status.js";
import { excerpt } from "../../core/terminal-text.js";
import type { RunListing } from "../../engine/views/run-view.js";
import { integrationLines } from "../shared/integration-text.js";
import { elapsed, SHOWN_CHARS, setAsideLines, taskLine, wholeIn, widthsOf } from "./format.js";

/** Most task lines a summary shows; the rest are counted. */
const SHOWN = 40;

/**
 * The final summary of a foreground run: outcome, counts, its tasks in the order given, those
 * that need a look first, and last the command to type next when there is one.
 */
export function summaryText({ run, tasks }: RunListing, artifactsDir: string, now: number, next?: string): string {
	const lines = [
		"",
		`run ${run.id} ${run.status} in ${elapsed(run.createdAt, run.finishedAt, now)}: ${statusCounts(tasks)}`,
	];
	if (run.error && run.status !== "completed")
		lines.push(`  ${excerpt(run.error, SHOWN_CHARS.runError, wholeIn(run.id))}`);
	const order = (s: string) => (s === "completed" ? 1 : 0);
	const sorted = [...tasks].sort((a, b) => order(a.status) - order(b.status));
	const widths = widthsOf(tasks);
	for (const t of sorted.slice(0, SHOWN)) lines.push(taskLine(t, now, widths, run.id), ...setAsideLines(t));
	if (tasks.length > SHOWN) lines.push(`  … and ${tasks.length - SHOWN} more (crew status ${run.id})`);
	if (run.integration) lines.push(...integrationLines(run.id, run.integration));
	if (run.options.script && run.status === "completed") lines.push(`result: crew result ${run.id}`);
	lines.push(`results: ${artifactsDir}/<task>/result.md  (crew result ${run.id} <task>)`);
	if (next) lines.push(`next: ${next}`);
	return `${lines.join("\n")}\n`;
}
