// Waiting, for a bounded time, until runs stop, and their outcomes with their results cut to size.

import { setTimeout as sleep } from "node:timers/promises";
import type { Project } from "../../config/project.js";
import { CrewError, ErrorCode } from "../../core/errors.js";
import { checkId } from "../../core/ids.js";
import { isTerminalRun, RunStatus } from "../../core/status.js";
import { RunReader } from "../../engine/views/reader.js";
import { MOST_WAITED_RUNS } from "../mcp/tool-specs.js";

/** Characters of results one answer carries in all; the whole texts stay in the runs' files. */
const MAX_ANSWER_CHARS = 100_000;
/** The least a result is cut to when many share an answer. */
const MIN_RESULT_CHARS = 2_000;
/** Time between looks at the store while waiting, in ms. */
const POLL_MS = 200;
/** Most runs one wait may name. */
export const MAX_WAITED_RUNS = MOST_WAITED_RUNS;

/** A last task of a run and its result. */
export interface TaskResult {
	readonly taskId: string;
	readonly status: string;
	readonly result: string;
}

/**
 * How a run stands after a wait. `ended`: it will not go on by itself (it ended, or it waits for a
 * person's approval). Once ended, a one-task run (`crew agent`) has its task's `taskId` and
 * `result`, a workflow script's run the script's `result`, and any other run the `results` of its
 * last tasks (those no other task depends on).
 */
export interface RunOutcome {
	readonly runId: string;
	readonly status: RunStatus;
	readonly ended: boolean;
	readonly workflow: string;
	readonly error: string | null;
	readonly taskId?: string;
	readonly result?: string;
	readonly results?: readonly TaskResult[];
}

export interface WaitOptions {
	readonly signal?: AbortSignal;
	/** Called between looks at the store with the ms waited so far, e.g. to send progress. */
	readonly onProgress?: (waitedMs: number) => void;
}

function hasStopped(status: RunStatus): boolean {
	return isTerminalRun(status) || status === RunStatus.Waiting;
}

function bounded(text: string, max: number, more: string): string {
	return text.length > max ? `${text.slice(0, max)}\n[crew: ${text.length - max} more characters: ${more}]` : text;
}

/**
 * Waits until every run of `runIds` has stopped (see `RunOutcome.ended`) or `timeoutMs` passed,
 * and answers each run's outcome in the order given. An unknown run is refused before any wait.
 */
export async function waitForRuns(
	project: Project,
	runIds: readonly string[],
	timeoutMs: number,
	options: WaitOptions = {},
): Promise<{ runs: RunOutcome[]; timedOut: boolean }> {
	if (runIds.length === 0 || runIds.length > MAX_WAITED_RUNS) {
		throw new CrewError(
			ErrorCode.InvalidInput,
			`invalid runIds: expected 1 to ${MAX_WAITED_RUNS} run ids, got ${runIds.length}`,
		);
	}
	for (const id of runIds) checkId("run", id);
	const reader = new RunReader(project);
	try {
		const stopped = () => runIds.every((id) => hasStopped(reader.run(id).status));
		const started = Date.now();
		let done = stopped();
		while (!done && Date.now() - started < timeoutMs) {
			options.onProgress?.(Date.now() - started);
			const left = timeoutMs - (Date.now() - started);
			await sleep(Math.max(1, Math.min(POLL_MS, left)), undefined, options.signal ? { signal: options.signal } : {});
			done = stopped();
		}
		const share = Math.max(MIN_RESULT_CHARS, Math.floor(MAX_ANSWER_CHARS / runIds.length));
		return { runs: runIds.map((id) => outcomeOf(reader, id, share)), timedOut: !done };
	} finally {
		reader.close();
	}
}

/** A run's outcome as of now, its results cut to `max` characters in all. */
function outcomeOf(reader: RunReader, runId: string, max: number): RunOutcome {
	const { run, tasks } = reader.status(runId);
	const base = { runId, status: run.status, ended: hasStopped(run.status), workflow: run.workflow, error: run.error };
	if (!base.ended) return base;
	if (run.options.script) {
		const { text } = reader.scriptResult(runId);
		return { ...base, result: bounded(text, max, `crew result ${runId}`) };
	}
	const sole = reader.soleTask(runId);
	if (sole !== undefined) {
		const { task, text } = reader.result(runId, sole);
		return {
			...base,
			error: run.error ?? task.error,
			taskId: sole,
			result: bounded(text, max, `crew result ${runId}`),
		};
	}
	const last = tasks.filter((t) => !tasks.some((other) => other.dependsOn.includes(t.id)));
	const each = Math.max(MIN_RESULT_CHARS, Math.floor(max / Math.max(1, last.length)));
	const results = last.map((t) => ({
		taskId: t.id,
		status: t.status,
		result: bounded(reader.result(runId, t.id).text, each, `crew result ${runId} ${t.id}`),
	}));
	return { ...base, results };
}
