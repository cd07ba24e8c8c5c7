// `crew diff`: two runs compared task by task, then the diffs of their prompts, results and patches.

import { findProject } from "../../config/project.js";
import { checkId } from "../../core/ids.js";
import { compareRuns, comparisonJson, type RunTotals, type TaskSide } from "../../engine/history/diff.js";
import { RunReader } from "../../engine/views/reader.js";
import { Exit } from "./exit-codes.js";
import { usageText } from "./format.js";
import { print } from "./print.js";

/** Lines of a prompt's, result's or patch's diff shown per task; `--json` has them whole. */
const SHOWN_LINES = 40;

/** `crew diff <runA> <runB>`: the two runs task by task (who did each, and how it went), then the diffs of what differs. */
export async function diffCommand(a: string, b: string, flags: { json?: boolean }): Promise<number> {
	checkId("run", a);
	checkId("run", b);
	const reader = new RunReader(findProject(process.cwd()));
	try {
		const compared = compareRuns(reader, a, b);
		if (flags.json) {
			print(`${JSON.stringify(comparisonJson(compared))}\n`);
			return Exit.Ok;
		}
		const width = Math.max(4, ...compared.tasks.map((t) => t.taskId.length)) + 2;
		const lines = [`a: ${totalsText(compared.a)}`, `b: ${totalsText(compared.b)}`, ""];
		for (const t of compared.tasks) {
			const from = t.b?.inheritedFrom ? ` (b: inherited from ${t.b.inheritedFrom})` : "";
			const what = t.changed.length === 0 ? `same${from}` : t.changed.join(", ");
			lines.push(`  ${t.taskId.padEnd(width)}${what}`);
			if (t.changed.length > 0) lines.push(`    a: ${sideText(t.a)}`, `    b: ${sideText(t.b)}`);
		}
		for (const t of compared.tasks) {
			for (const [name, text] of [
				["prompt", t.prompt],
				["result", t.result],
				["patch", t.patch],
			] as const) {
				if (!text) continue;
				const shown = text.split("\n");
				lines.push("", `${name} of ${t.taskId}:`, ...shown.slice(0, SHOWN_LINES));
				if (shown.length > SHOWN_LINES) lines.push(`… ${shown.length - SHOWN_LINES} more lines (--json has them all)`);
			}
		}
		print(`${lines.join("\n")}\n`);
		return Exit.Ok;
	} finally {
		reader.close();
	}
}

function totalsText(t: RunTotals): string {
	const spent = usageText(t.usage) || "no tokens";
	const inherited = usageText(t.inherited);
	const took = t.durationMs === null ? "" : `, ${(t.durationMs / 1000).toFixed(1)} s`;
	return `${t.runId} ${t.status}, ${spent}${inherited ? ` (inherited: ${inherited})` : ""}${took}`;
}

function sideText(s: TaskSide | null): string {
	if (!s) return "(no such task)";
	const how = s.inheritedFrom
		? `inherited from ${s.inheritedFrom}`
		: `${s.attempts} attempt${s.attempts === 1 ? "" : "s"}`;
	const used = usageText(s.usage);
	const model = s.model
		? ` (${s.model}${s.thinking ? `, thinking ${s.thinking}` : ""})`
		: s.thinking
			? ` (thinking ${s.thinking})`
			: "";
	const who = `${s.agent} on ${s.runtime}${model}${s.sandbox ? `, sandbox ${s.sandbox}` : ""}`;
	return `${s.status}, ${how}, ${who}${used ? `, ${used}` : ""}`;
}
