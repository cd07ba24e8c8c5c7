// `crew watch`'s view: frames of a run and its tasks redrawn on a terminal, else a line per status change.

import type { Writable } from "node:stream";
import type { TaskView } from "../../core/records.js";
import { isTerminalRun, statusCounts } from "../../core/status.js";
import { excerpt, inert, logPathApart } from "../../core/terminal-text.js";
import { addUsage, ZERO_USAGE } from "../../core/usage.js";
import type { RunView } from "../../engine/views/run-view.js";
import type { ChildRun } from "../../store/run-delegations.js";
import { foreseenLines, integrationLines } from "../shared/integration-text.js";
import { delegatedRunText, elapsed, SHOWN_CHARS, STATUS_WIDTH, tokensText, usageText, wholeIn } from "./format.js";

type Out = Writable & { isTTY?: boolean; rows?: number; columns?: number };

/** Fewest characters of ACTIVITY a frame keeps: on a narrow terminal, columns are left out to keep them. */
const MIN_ACTIVITY = 20;
/** The columns a narrow terminal leaves out, the least telling first; TASK and STATUS always stay. */
const LEFT_OUT = ["AGENT", "RUNTIME", "TOKENS", "ROLE", "TIME", "COST"];

/** A column of the task table: its header, its width with the gap after it, and a task's value. */
interface Column {
	readonly name: string;
	readonly width: number;
	readonly value: (t: TaskView) => string;
}

/** `text` in a column `width` wide: padded, or cut with `…` so the gap after it stays. */
function cell(text: string, width: number): string {
	if (text.length > width - 2) return `${text.slice(0, Math.max(1, width - 3))}…`.padEnd(width);
	return text.padEnd(width);
}

/** A column as wide as its header and its values, at least `least` and at most `most`, and a gap of two. */
function column(name: string, tasks: readonly TaskView[], value: Column["value"], least: number, most: number): Column {
	const widest = tasks.reduce((w, t) => Math.max(w, value(t).length), Math.max(name.length, least));
	return { name, width: Math.min(most, widest) + 2, value };
}

function runtimeOf(t: TaskView): string {
	return t.model ? `${t.runtime}/${t.model}` : t.runtime;
}

function costOf(t: TaskView): string {
	return t.usage.cost > 0 ? `$${t.usage.cost.toFixed(4)}` : "";
}

/**
 * The table's columns before ACTIVITY that fit in `width` with ACTIVITY's fewest characters.
 * Widths follow the values, so each value starts at its header's column whatever the terminal.
 */
function columnsFor(tasks: readonly TaskView[], now: number, width: number): Column[] {
	let columns = [
		column("TASK", tasks, (t) => t.id, 4, 30),
		column("ROLE", tasks, (t) => t.role, 4, 18),
		column("AGENT", tasks, (t) => t.agent, 5, 22),
		{ name: "STATUS", width: STATUS_WIDTH, value: (t: TaskView) => t.status },
		column("RUNTIME", tasks, runtimeOf, 7, 30),
		// A duration grows as the frames go by: its column does not.
		{ name: "TIME", width: 9, value: (t: TaskView) => elapsed(t.startedAt, t.finishedAt, now) },
		column("TOKENS", tasks, (t) => tokensText(t.usage), 16, 24),
		column("COST", tasks, costOf, 7, 12),
	];
	const used = () => 2 + columns.reduce((sum, c) => sum + c.width, 0);
	for (const name of LEFT_OUT) {
		if (used() + MIN_ACTIVITY <= width) break;
		columns = columns.filter((c) => c.name !== name);
	}
	return columns;
}

/**
 * At most `max` characters of `text` (see `excerpt`) in at most `width`: with where to read it
 * whole when that fits too, else only cut.
 */
function fitted(text: string, max: number, width: number, where: string): string {
	const noted = excerpt(text, max, where);
	return noted.length <= width ? noted : excerpt(logPathApart(text).text, Math.max(1, Math.min(max, width - 1)));
}

/** What a task's ACTIVITY says: why it failed, its log's path apart, else what it did last. */
function activityOf(t: TaskView): { text: string; log?: string } {
	const ended = t.status !== "completed" && t.status !== "running";
	return t.error && ended ? logPathApart(t.error) : { text: t.activity ?? "" };
}

/**
 * The lines of one frame: the run, its totals (with what its delegated runs spent), and a line per
 * task in DAG order, with the runs it delegated under it and the path of a failed task's log whole
 * on a line of its own when there is room for it. Only those paths are wider than
 * `size.columns`: never cut, they wrap.
 */
export function watchLines(
	{ run, tasks }: RunView,
	now: number,
	size: { readonly rows?: number; readonly columns?: number } = {},
	children: readonly ChildRun[] = [],
): string[] {
	const room = size.rows ?? Number.POSITIVE_INFINITY;
	const width = size.columns ?? Number.POSITIVE_INFINITY;
	const own = tasks.reduce((sum, t) => addUsage(sum, t.usage), ZERO_USAGE);
	const total = children.reduce((sum, c) => addUsage(sum, c.usage), own);
	const head = [
		`run ${run.id}  ${run.status}  ${elapsed(run.createdAt, run.finishedAt, now)}  ${run.workflow}${run.options.script ? " (script)" : ""}${run.team ? ` / ${run.team}` : ""}`,
		`  ${fitted(run.goal, 100, width - 2, wholeIn(run.id))}`,
		`  tasks: ${statusCounts(tasks)}${usageText(total) ? `  usage: ${usageText(total)}` : ""}`,
	];
	if (run.error && run.status !== "completed")
		head.push(`  error: ${fitted(run.error, SHOWN_CHARS.runError, width - 9, wholeIn(run.id))}`);
	head.push(...foreseenLines(run.foreseen).map((line) => `  ${line}`));
	if (run.integration) head.push(...integrationLines(run.id, run.integration).map((line) => `  ${line}`));
	const lines = head.map((line) => (line.length > width ? `${line.slice(0, width - 1)}…` : line));
	const columns = columnsFor(tasks, now, width);
	const before = 2 + columns.reduce((sum, c) => sum + c.width, 0);
	lines.push(`  ${columns.map((c) => cell(c.name, c.width)).join("")}ACTIVITY`);
	let shown = tasks;
	// A script's phases head their tasks, and failed tasks' logs follow them, when everything fits.
	const phases = new Set(tasks.map((t) => t.phase).filter((p) => p !== null)).size;
	const logs = tasks.filter((t) => activityOf(t).log !== undefined).length;
	const space = room - lines.length - phases - children.length;
	const logged = tasks.length + logs <= space;
	if (tasks.length > space) {
		// On a small screen, what is happening now comes first.
		const busy = (s: string) => (s === "running" || s === "failed" || s === "waiting" ? 0 : 1);
		shown = [...tasks].sort((a, b) => busy(a.status) - busy(b.status)).slice(0, Math.max(1, space - 1));
	}
	let phase: string | null = null;
	for (const t of shown) {
		if (shown === tasks && t.phase !== null && t.phase !== phase) lines.push(`  ${t.phase}:`);
		phase = t.phase;
		const { text, log } = activityOf(t);
		const activity = excerpt(text, Math.max(1, width - before - 1));
		lines.push(`  ${columns.map((c) => cell(c.value(t), c.width)).join("")}${activity}`);
		for (const c of children.filter((child) => child.taskId === t.id)) {
			lines.push(excerpt(`    ↳ ${delegatedRunText(c)}`, Math.max(1, width)));
		}
		if (log && logged) lines.push(`    ${log}`);
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
	/** Collisions foreseen already told. */
	#foreseenTold = 0;

	constructor(out: Out, options: { tty?: boolean } = {}) {
		this.#out = out;
		this.#tty = options.tty ?? out.isTTY === true;
	}

	/** Shows `view` as of `now`, with the runs its tasks delegated. */
	show(view: RunView, now: number, children: readonly ChildRun[] = []): void {
		if (this.#tty) this.#frame(view, now, children);
		else this.#changes(view, now, children);
	}

	#frame(view: RunView, now: number, children: readonly ChildRun[]): void {
		const columns = Math.max(41, this.#out.columns || 120);
		// A line as wide as the terminal would wrap on some terminals: one column stays free.
		const size = { rows: Math.max(6, (this.#out.rows || 40) - 1), columns: columns - 1 };
		const lines = watchLines(view, now, size, children).map(inert);
		const up = this.#drawn > 0 ? `\x1b[${this.#drawn}F` : "";
		this.#out.write(`${up}${lines.map((l) => `\x1b[2K${l}`).join("\n")}\n\x1b[J`);
		// The next frame starts where this one did: a log's path wider than the terminal took more rows.
		this.#drawn = lines.reduce((rows, l) => rows + Math.max(1, Math.ceil(l.length / columns)), 0);
	}

	#changes({ run, tasks }: RunView, now: number, children: readonly ChildRun[]): void {
		const out: string[] = [];
		const stamp = new Date(now).toISOString().slice(11, 19);
		const runLine =
			this.#seen.get("") === run.status ? [] : [`${stamp} run ${run.id} ${run.status}  tasks: ${statusCounts(tasks)}`];
		this.#seen.set("", run.status);
		// A run that has ended says so after its tasks' last changes, so the log ends with it.
		const ended = isTerminalRun(run.status);
		if (!ended) out.push(...runLine);
		for (const t of tasks) {
			if (this.#seen.get(t.id) === t.status) continue;
			this.#seen.set(t.id, t.status);
			const error = t.error && t.status !== "completed" ? excerpt(t.error, SHOWN_CHARS.taskError, wholeIn(run.id)) : "";
			const detail = error ? `  ${error}` : "";
			out.push(`${stamp}   ${t.id} ${t.status}  ${t.role} (${runtimeOf(t)})${detail}`);
		}
		for (const c of children) {
			if (this.#seen.get(`run ${c.runId}`) === c.status) continue;
			this.#seen.set(`run ${c.runId}`, c.status);
			out.push(`${stamp}   ${c.taskId} ↳ ${delegatedRunText(c)}`);
		}
		// Each collision foreseen is a change of its own, told once.
		const foreseen = foreseenLines(run.foreseen);
		out.push(...foreseen.slice(this.#foreseenTold).map((line) => `${stamp}   ${line}`));
		this.#foreseenTold = foreseen.length;
		if (ended) out.push(...runLine);
		if (out.length > 0) this.#out.write(`${inert(out.join("\n"))}\n`);
	}
}
