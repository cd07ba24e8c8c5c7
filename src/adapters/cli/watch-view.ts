// `crew watch`'s view: frames of a run and its tasks redrawn on a terminal, else a line per status change.

import type { Writable } from "node:stream";
import type { TaskView } from "../../core/records.js";
import { statusCounts } from "../../core/status.js";
import { excerpt, inert } from "../../core/terminal-text.js";
import { addUsage, ZERO_USAGE } from "../../core/usage.js";
import type { RunView } from "../../engine/views/run-view.js";
import { integrationLines } from "../shared/integration-text.js";
import { elapsed, SHOWN_CHARS, STATUS_WIDTH, usageText, wholeIn } from "./format.js";

type Out = Writable & { isTTY?: boolean; rows?: number; columns?: number };

function cell(text: string, width: number): string {
	if (text.length >= width) return `${text.slice(0, Math.max(1, width - 2))}… `;
	return text.padEnd(width);
}

function runtimeOf(t: TaskView): string {
	return t.model ? `${t.runtime}/${t.model}` : t.runtime;
}

function tokensOf(t: TaskView): string {
	const used = usageText(t.usage);
	return used ? used.replace(" tokens", "") : "";
}

/** The lines of one frame: the run, its totals, and a line per task in DAG order. */
export function watchLines({ run, tasks }: RunView, now: number, room = Number.POSITIVE_INFINITY): string[] {
	const total = tasks.reduce((sum, t) => addUsage(sum, t.usage), ZERO_USAGE);
	const lines = [
		`run ${run.id}  ${run.status}  ${elapsed(run.createdAt, run.finishedAt, now)}  ${run.workflow}${run.options.script ? " (script)" : ""}${run.team ? ` / ${run.team}` : ""}`,
		`  ${excerpt(run.goal, 100, wholeIn(run.id))}`,
		`  tasks: ${statusCounts(tasks)}${usageText(total) ? `  usage: ${usageText(total)}` : ""}`,
	];
	if (run.error && run.status !== "completed")
		lines.push(`  error: ${excerpt(run.error, SHOWN_CHARS.runError, wholeIn(run.id))}`);
	if (run.integration) lines.push(...integrationLines(run.id, run.integration).map((line) => `  ${line}`));
	const w = { id: 6, role: 6, agent: 6, runtime: 8 };
	for (const t of tasks) {
		w.id = Math.min(32, Math.max(w.id, t.id.length + 2));
		w.role = Math.min(20, Math.max(w.role, t.role.length + 2));
		w.agent = Math.min(24, Math.max(w.agent, t.agent.length + 2));
		w.runtime = Math.min(32, Math.max(w.runtime, runtimeOf(t).length + 2));
	}
	lines.push(
		`  ${cell("TASK", w.id)}${cell("ROLE", w.role)}${cell("AGENT", w.agent)}${cell("STATUS", 12)}${cell("RUNTIME", w.runtime)}${cell("TIME", 9)}${cell("TOKENS", 22)}${cell("COST", 10)}ACTIVITY`,
	);
	let shown = tasks;
	// A script's phases head their tasks, when everything fits.
	const phases = new Set(tasks.map((t) => t.phase).filter((p) => p !== null)).size;
	const space = room - lines.length - phases;
	if (tasks.length > space) {
		// On a small screen, what is happening now comes first.
		const busy = (s: string) => (s === "running" || s === "failed" || s === "waiting" ? 0 : 1);
		shown = [...tasks].sort((a, b) => busy(a.status) - busy(b.status)).slice(0, Math.max(1, space - 1));
	}
	let phase: string | null = null;
	for (const t of shown) {
		if (shown === tasks && t.phase !== null && t.phase !== phase) lines.push(`  ${t.phase}:`);
		phase = t.phase;
		const cost = t.usage.cost > 0 ? `$${t.usage.cost.toFixed(4)}` : "";
		const last =
			t.error && t.status !== "completed" && t.status !== "running"
				? excerpt(t.error, SHOWN_CHARS.taskError, wholeIn(run.id))
				: (t.activity ?? "");
		lines.push(
			`  ${cell(t.id, w.id)}${cell(t.role, w.role)}${cell(t.agent, w.agent)}${cell(t.status, STATUS_WIDTH)}${cell(runtimeOf(t), w.runtime)}${cell(elapsed(t.startedAt, t.finishedAt, now), 9)}${cell(tokensOf(t), 22)}${cell(cost, 10)}${last}`,
		);
	}
	if (shown.length < tasks.length) lines.push(`  … ${tasks.length - shown.length} more tasks`);
	return lines;
}

/**
 * `crew watch`'s output. On a terminal, each frame is redrawn in place; otherwise a line is
 * printed whenever the run or a task changes status, so a log of it reads top to bottom.
 */
export class WatchView {
	readonly #out: Out;
	readonly #tty: boolean;
	#drawn = 0;
	readonly #seen = new Map<string, string>();

	constructor(out: Out, options: { tty?: boolean } = {}) {
		this.#out = out;
		this.#tty = options.tty ?? out.isTTY === true;
	}

	show(view: RunView, now: number): void {
		if (this.#tty) this.#frame(view, now);
		else this.#changes(view, now);
	}

	#frame(view: RunView, now: number): void {
		const width = Math.max(40, (this.#out.columns || 120) - 1);
		const lines = watchLines(view, now, Math.max(6, (this.#out.rows || 40) - 1)).map((l) => l.slice(0, width));
		const up = this.#drawn > 0 ? `\x1b[${this.#drawn}F` : "";
		this.#out.write(`${up}${lines.map((l) => `\x1b[2K${inert(l)}`).join("\n")}\n\x1b[J`);
		this.#drawn = lines.length;
	}

	#changes({ run, tasks }: RunView, now: number): void {
		const out: string[] = [];
		const stamp = new Date(now).toISOString().slice(11, 19);
		if (this.#seen.get("") !== run.status) {
			this.#seen.set("", run.status);
			out.push(`${stamp} run ${run.id} ${run.status}  tasks: ${statusCounts(tasks)}`);
		}
		for (const t of tasks) {
			if (this.#seen.get(t.id) === t.status) continue;
			this.#seen.set(t.id, t.status);
			const error = t.error && t.status !== "completed" ? excerpt(t.error, SHOWN_CHARS.taskError, wholeIn(run.id)) : "";
			const detail = error ? `  ${error}` : "";
			out.push(`${stamp}   ${t.id} ${t.status}  ${t.role} (${runtimeOf(t)})${detail}`);
		}
		if (out.length > 0) this.#out.write(`${inert(out.join("\n"))}\n`);
	}
}
