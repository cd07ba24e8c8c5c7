// Two runs compared task by task, with their totals, as `crew diff` shows them.

import { existsSync } from "node:fs";
import { createTwoFilesPatch } from "diff";
import { lastAttemptPatch } from "../../core/artifact-names.js";
import type { RunRecord, TaskRecord, TaskView } from "../../core/records.js";
import { addUsage, type Usage, ZERO_USAGE } from "../../core/usage.js";
import { usageJson } from "../views/json.js";
import type { RunReader } from "../views/reader.js";

/** One side of a task in a comparison. */
export interface TaskSide {
	readonly taskId: string;
	/**
	 * Who did it, and how: its agent, runtime, model and thinking level (null: the agent's
	 * default), and its latest attempt's sandbox level.
	 */
	readonly agent: string;
	readonly runtime: string;
	readonly model: string | null;
	readonly thinking: string | null;
	readonly sandbox: string | null;
	readonly status: string;
	readonly attempts: number;
	/** What its attempts spent in this run; an inherited task's spent nothing here. */
	readonly usage: Usage;
	/** The run whose outcome it took, when it was a fork's reused task. */
	readonly inheritedFrom: string | null;
	readonly durationMs: number | null;
}

/** A task of either run, matched by id, with what differs. */
export interface TaskComparison {
	readonly taskId: string;
	readonly a: TaskSide | null;
	readonly b: TaskSide | null;
	/**
	 * What differs: `agent`, `runtime`, `model`, `thinking`, `sandbox`, `prompt`, `status`, `attempts`,
	 * `result`, `patch`, `tokens`; `only-a` or `only-b` for a task of one run.
	 */
	readonly changed: readonly string[];
	/** A unified diff of the prompts (a to b, each run's id written as `<run>`), when they differ. */
	readonly prompt: string | null;
	/** A unified diff of the results (a to b), when they differ. */
	readonly result: string | null;
	/** A unified diff of the patches of their last attempts (worktree mode), when they differ. */
	readonly patch: string | null;
}

export interface RunTotals {
	readonly runId: string;
	readonly status: string;
	readonly usage: Usage;
	readonly inherited: Usage;
	readonly durationMs: number | null;
}

/** Two runs compared task by task, and their totals. */
export interface RunComparison {
	readonly a: RunTotals;
	readonly b: RunTotals;
	readonly tasks: readonly TaskComparison[];
}

/** A comparison as `crew diff --json` and the API give it: usage in the form `crew status --json` uses. */
export function comparisonJson(c: RunComparison): object {
	const totals = (t: RunTotals) => ({ ...t, usage: usageJson(t.usage), inherited: usageJson(t.inherited) });
	const side = (s: TaskSide | null) => (s ? { ...s, usage: usageJson(s.usage) } : null);
	return { a: totals(c.a), b: totals(c.b), tasks: c.tasks.map((t) => ({ ...t, a: side(t.a), b: side(t.b) })) };
}

/** Compares run `a` with run `b` (a fork with its run, say), task by task. */
export function compareRuns(reader: RunReader, a: string, b: string): RunComparison {
	const left = reader.view(a);
	const right = reader.view(b);
	const byId = new Map(right.tasks.map((t) => [t.id, t]));
	const ids = [
		...left.tasks.map((t) => t.id),
		...right.tasks.map((t) => t.id).filter((id) => !left.tasks.some((t) => t.id === id)),
	];
	const thinking = (runId: string) => new Map(reader.taskSpecs(runId).map((s) => [s.id, s.agent.thinking ?? null]));
	const [ka, kb] = [thinking(a), thinking(b)];
	const tasks = ids.map((id) => {
		const ta = left.tasks.find((t) => t.id === id);
		const tb = byId.get(id);
		return compareTask(reader, { runId: a, task: ta, thinking: ka }, { runId: b, task: tb, thinking: kb });
	});
	return { a: totals(left.run, left.tasks), b: totals(right.run, right.tasks), tasks };
}

/** A run's task of an id, or none, and its run's tasks' thinking levels. */
interface Side {
	readonly runId: string;
	readonly task: TaskView | undefined;
	readonly thinking: ReadonlyMap<string, string | null>;
}

function compareTask(reader: RunReader, a: Side, b: Side): TaskComparison {
	const taskId = (a.task ?? b.task)?.id as string;
	if (!a.task || !b.task) {
		const changed = [a.task ? "only-a" : "only-b"];
		return {
			taskId,
			a: side(a, reader),
			b: side(b, reader),
			changed,
			prompt: null,
			result: null,
			patch: null,
		};
	}
	const [sa, sb] = [side(a, reader), side(b, reader)] as [TaskSide, TaskSide];
	const who = ["agent", "runtime", "model", "thinking", "sandbox"] as const;
	const changed: string[] = who.filter((key) => sa[key] !== sb[key]);
	const prompt = textDiff(
		"prompt",
		a.runId,
		b.runId,
		promptOf(reader, a.runId, a.task),
		promptOf(reader, b.runId, b.task),
	);
	if (prompt) changed.push("prompt");
	if (a.task.status !== b.task.status) changed.push("status");
	// A reused task made no attempts of its own: its outcome is the one compared.
	const reused = a.task.inherited !== null || b.task.inherited !== null;
	if (!reused && a.task.attempts !== b.task.attempts) changed.push("attempts");
	const result = textDiff(
		"result",
		a.runId,
		b.runId,
		reader.result(a.runId, taskId).text,
		reader.result(b.runId, taskId).text,
	);
	if (result) changed.push("result");
	const patch = textDiff("patch", a.runId, b.runId, patchOf(reader, a.runId, a.task), patchOf(reader, b.runId, b.task));
	if (patch) changed.push("patch");
	if (tokens(spentOrInherited(a.task)) !== tokens(spentOrInherited(b.task))) changed.push("tokens");
	return { taskId, a: sa, b: sb, changed, prompt, result, patch };
}

function side({ task, thinking }: Side, reader: RunReader): TaskSide | null {
	if (!task) return null;
	// A fork's reused task ran in the run it came from: its attempt's sandbox is there.
	const ran = task.inherited ? reader.taskView(task.inherited.runId, task.inherited.taskId).task : task;
	return {
		taskId: task.id,
		agent: task.agent,
		runtime: task.runtime,
		model: task.model,
		thinking: thinking.get(task.id) ?? null,
		sandbox: ran.sandbox?.level ?? null,
		status: task.status,
		attempts: task.attempts,
		usage: task.usage,
		inheritedFrom: task.inherited?.runId ?? null,
		durationMs: between(task.startedAt, task.finishedAt),
	};
}

function totals(run: RunRecord, tasks: readonly TaskRecord[]): RunTotals {
	const sum = (pick: (t: TaskRecord) => Usage) => tasks.reduce((s, t) => addUsage(s, pick(t)), ZERO_USAGE);
	return {
		runId: run.id,
		status: run.status,
		usage: sum((t) => t.usage),
		inherited: sum((t) => t.inherited?.usage ?? ZERO_USAGE),
		durationMs: between(run.createdAt, run.finishedAt),
	};
}

/** A task's usage wherever it was spent: a reused task's in the run it was forked from. */
function spentOrInherited(task: TaskRecord): Usage {
	return task.inherited?.usage ?? task.usage;
}

function tokens(usage: Usage): number {
	return usage.input + usage.output + usage.cacheRead + usage.cacheWrite;
}

function between(from: string | null, to: string | null): number | null {
	return from && to ? Date.parse(to) - Date.parse(from) : null;
}

/**
 * The prompt a task was given, each run id in it written `<run>`: a fork's reused task keeps the
 * prompt of the run it came from, and each run's own id is no difference.
 */
function promptOf(reader: RunReader, runId: string, task: TaskView): string {
	const file = `tasks/${task.id}/prompt.md`;
	const text = existsSync(reader.files.path(runId, file)) ? reader.files.read(runId, file) : "";
	const ids = [runId, task.inherited?.runId ?? runId];
	return ids.reduce((t, id) => t.replaceAll(id, "<run>"), text);
}

/** The patch of the task's last attempt that made one (worktree mode), or "" when it has none. */
function patchOf(reader: RunReader, runId: string, task: TaskRecord): string {
	const last = lastAttemptPatch(reader.taskArtifacts(runId, task.id).map((a) => a.path));
	return last ? reader.files.read(runId, last) : "";
}

function textDiff(what: string, a: string, b: string, before: string, after: string): string | null {
	if (before === after) return null;
	return createTwoFilesPatch(`${a}/${what}`, `${b}/${what}`, before, after, undefined, undefined, { context: 2 });
}
