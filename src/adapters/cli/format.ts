// Text forms of runs, tasks, usage, events and log entries that the CLI's commands print.

import { formatDuration } from "../../core/duration.js";
import { type LogEntry, LogKind } from "../../core/log-line.js";
import type { EventRecord, ListedTask, RunRecord, TaskRecord } from "../../core/records.js";
import { sandboxText } from "../../core/sandbox-level.js";
import { originText } from "../../core/session.js";
import { setAsideText } from "../../core/set-aside-text.js";
import { type RequirementRow, requirementText } from "../../core/spec-coverage.js";
import { statusCounts } from "../../core/status.js";
import { excerpt } from "../../core/terminal-text.js";
import { addUsage, isZeroUsage, type Usage, ZERO_USAGE } from "../../core/usage.js";
import type { ChildRun } from "../../store/run-delegations.js";
import { foreseenLines, integrationLines } from "../shared/integration-text.js";

/** A task status's column: as wide as the longest status, `needs_attention`, and a space. */
export const STATUS_WIDTH = 16;

/** Characters of a goal, a run's error and a task's error that views show; see `excerpt`. */
export const SHOWN_CHARS = { goal: 200, runError: 300, taskError: 100 } as const;

/** Where a view's reader finds the whole of what it cut of run `runId`: its status as JSON. */
export function wholeIn(runId: string): string {
	return `crew status ${runId} --json for all`;
}

export function elapsed(from: string | null, to: string | null, now: number): string {
	if (!from) return "";
	const end = to ? Date.parse(to) : now;
	return formatDuration(Math.max(0, end - Date.parse(from)));
}

function pad(text: string, width: number): string {
	return text.length >= width ? `${text} ` : text.padEnd(width);
}

/**
 * "1.2k in, 340 out", or nothing when no tokens were used; "≥ …" when partial: at least that
 * much, the agent used more than it reported.
 */
export function tokensText(usage: Usage): string {
	if (isZeroUsage(usage) && !usage.partial) return "";
	const k = (n: number) =>
		n >= 10_000 ? `${Math.round(n / 1000)}k` : n >= 1000 ? `${(n / 1000).toFixed(1)}k` : String(n);
	return `${usage.partial ? "≥ " : ""}${k(usage.input)} in, ${k(usage.output)} out`;
}

/** "1.2k in, 340 out tokens, $0.0123", or nothing when no tokens were used; see `tokensText`. */
export function usageText(usage: Usage): string {
	const tokens = tokensText(usage);
	return tokens ? `${tokens} tokens, $${usage.cost.toFixed(4)}` : "";
}

/** A task's line in run `runId`'s views: its status, time, attempt, usage, and its error bounded. */
export function taskLine(t: TaskRecord, now: number, widths: { id: number; role: number }, runId: string): string {
	const used = usageText(t.usage);
	const confined = t.sandbox ? `  ${sandboxText(t.sandbox, `crew status ${runId} --json`)}` : "";
	const inherited = t.inherited ? `inherited from ${t.inherited.runId}  ${usageText(t.inherited.usage)}`.trim() : "";
	const began = t.origin
		? ` (${"continued" in t.origin ? `continued ${t.origin.continued}` : originText(t.origin)})`
		: "";
	const attempt = (t.attempts > 0 ? `attempt ${t.attempts}${began}` : inherited) + (used ? `  ${used}` : "") + confined;
	const error =
		t.error && t.status !== "completed" ? `  ${excerpt(t.error, SHOWN_CHARS.taskError, wholeIn(runId))}` : "";
	return `  ${pad(t.id, widths.id)}${pad(t.role, widths.role)}${pad(t.status, STATUS_WIDTH)}${pad(elapsed(t.startedAt, t.finishedAt, now), 9)}${attempt}${error}`;
}

/** The git folders a task's attempts left and crew moved out, a line each, to show under its line. */
export function setAsideLines(t: TaskRecord): string[] {
	return (t.setAside ?? []).map((aside) => `      attempt ${aside.attempt}: ${setAsideText(aside)}`);
}

export function widthsOf(tasks: readonly TaskRecord[]): { id: number; role: number } {
	let id = 4;
	let role = 4;
	for (const t of tasks) {
		id = Math.max(id, t.id.length + 2);
		role = Math.max(role, t.role.length + 2);
	}
	return { id: Math.min(id, 40), role: Math.min(role, 24) };
}

/** `role 1.2k in, 80 out tokens, $0.0040; …`: usage by name, or empty when nothing was used. */
function usageByText(by: Readonly<Record<string, Usage>>): string {
	return Object.entries(by)
		.map(([name, usage]) => [name, usageText(usage)])
		.filter(([, text]) => text !== "")
		.map(([name, text]) => `${name} ${text}`)
		.join("; ");
}

/**
 * `crew status` as text: the run, its usage, and a line per task in the order given, with a
 * script's phase heading its tasks; then the requirements of its specs.
 */
export function statusText(
	{ run, tasks }: { readonly run: RunRecord; readonly tasks: readonly ListedTask[] },
	now: number,
	usageBy?: { readonly role: Readonly<Record<string, Usage>>; readonly model: Readonly<Record<string, Usage>> },
	children: readonly ChildRun[] = [],
	requirements: readonly RequirementRow[] = [],
): string {
	const summary = statusCounts(tasks);
	const lines = [
		`run ${run.id}  ${run.status}  ${elapsed(run.createdAt, run.finishedAt, now)}`,
		`  goal: ${excerpt(run.goal, SHOWN_CHARS.goal, wholeIn(run.id))}`,
		`  workflow: ${run.workflow}${run.team ? `  team: ${run.team}` : ""}  tasks: ${summary}`,
	];
	if (run.parent) {
		const { runId, taskId, attempt } = run.parent;
		lines.push(`  delegated by: run ${runId}, task ${taskId}, attempt ${attempt}`);
	}
	if (run.error && run.status !== "completed")
		lines.push(`  error: ${excerpt(run.error, SHOWN_CHARS.runError, wholeIn(run.id))}`);
	lines.push(...foreseenLines(run.foreseen).map((line) => `  ${line}`));
	if (run.integration) lines.push(...integrationLines(run.id, run.integration).map((line) => `  ${line}`));
	const own = tasks.reduce((sum, t) => addUsage(sum, t.usage), ZERO_USAGE);
	const nested = children.reduce((sum, c) => addUsage(sum, c.usage), ZERO_USAGE);
	const used = usageText(addUsage(own, nested));
	const apart =
		children.length > 0
			? ` (its own ${usageText(own) || "none"}; its delegated runs ${usageText(nested) || "none"})`
			: "";
	if (used) lines.push(`  usage: ${used}${apart}`);
	const inherited = usageText(tasks.reduce((sum, t) => addUsage(sum, t.inherited?.usage ?? ZERO_USAGE), ZERO_USAGE));
	if (inherited) lines.push(`  inherited: ${inherited}, spent by the run it was forked from`);
	if (used && usageBy) {
		const byRole = usageByText(usageBy.role);
		const byModel = usageByText(usageBy.model);
		if (byRole) lines.push(`    by role: ${byRole}`);
		if (byModel) lines.push(`    by model: ${byModel}`);
	}
	const widths = widthsOf(tasks);
	let phase: string | null = null;
	for (const t of tasks) {
		if (t.phase !== null && t.phase !== phase) lines.push(`  ${t.phase}:`);
		phase = t.phase;
		lines.push(taskLine(t, now, widths, run.id), ...setAsideLines(t));
		for (const c of children.filter((child) => child.taskId === t.id)) lines.push(`      ↳ ${delegatedRunText(c)}`);
	}
	lines.push(...requirementLines(requirements));
	return `${lines.join("\n")}\n`;
}

/** The requirements of a run's specs, under each task and spec: a line per check, as it stands. */
function requirementLines(rows: readonly RequirementRow[]): string[] {
	if (rows.length === 0) return [];
	const lines = ["  requirements:"];
	let heading = "";
	for (const row of rows) {
		const now = `    spec ${row.specId} v${row.version}${row.strict ? ", strict" : ""}${row.trusted ? "" : ", not imported by you"}, task ${row.taskId}:`;
		if (now !== heading) lines.push(now);
		heading = now;
		lines.push(`      ${requirementText(row)}`);
	}
	return lines;
}

/** A run a task delegated, as said under the task: its id, how it stands, its workflow, the attempt and what it spent. */
export function delegatedRunText(child: ChildRun): string {
	const spent = usageText(child.usage);
	return `delegated run ${child.runId}  ${child.status}  ${child.workflow}  attempt ${child.attempt}${spent ? `  ${spent}` : ""}`;
}

/** Where a run came from, when not a person's `crew run`: a schedule, or the HTTP API. */
function runOrigin(run: RunRecord): string {
	if (run.options.schedule) return `  (schedule ${run.options.schedule.name})`;
	return run.options.startedOver === "api" ? "  (started over the API)" : "";
}

export function runsText(runs: readonly RunRecord[]): string {
	if (runs.length === 0) return "no runs yet\n";
	return `${runs
		.map(
			(r) =>
				`${r.id}  ${r.status.padEnd(11)} ${r.workflow.padEnd(16)} ${r.createdAt}  ${excerpt(r.goal, 60, wholeIn(r.id))}${runOrigin(r)}`,
		)
		.join("\n")}\n`;
}

export function eventText(event: EventRecord): string {
	const data = Object.entries(event.data)
		.map(([k, v]) => `${k}=${typeof v === "string" ? v : JSON.stringify(v)}`)
		.join(" ");
	return `${String(event.seq).padStart(5)} ${event.time} ${event.type.padEnd(22)} ${event.taskId ?? "-"} ${data}`;
}

const LOG_MARKS: Readonly<Record<LogKind, string>> = {
	attempt: "──",
	assistant: "assistant:",
	"tool-call": "→",
	"tool-result": "←",
	output: "",
	error: "error:",
	commit: "git:",
	status: "task",
	message: "person:",
	verdict: "goal:",
	spec: "spec:",
};

/** A log entry as text: its time, a mark of its kind, and its text with later lines indented. */
export function logText(event: EventRecord, entry: LogEntry): string {
	const mark = LOG_MARKS[entry.kind];
	const lines = entry.text.replace(/\n+$/, "").split("\n");
	const head = `${event.time.slice(11, 19)}  ${mark ? `${mark} ` : ""}${lines[0] ?? ""}`;
	const tail = entry.kind === LogKind.Attempt ? " ──" : "";
	return [`${head}${tail}`, ...lines.slice(1).map((line) => `          ${line}`)].join("\n");
}
