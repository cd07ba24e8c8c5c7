// The replay runtime: answers each task from a recorded run, and fails or runs live a task that diverges.

import { existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { createTwoFilesPatch } from "diff";
import { lastAttemptPatch } from "../core/artifact-names.js";
import { ANSWERED_HEADING } from "../core/asked.js";
import type { ReplayedAttempt } from "../core/types.js";
import { ZERO_USAGE } from "../core/usage.js";
import { CHECK_EVIDENCE_HEADING } from "../core/verdict.js";
import { git } from "../workspace/git.js";
import { writeAttemptFile } from "./attempt-files.js";
import type { RunControl, TaskRequest, WorkerResult, WorkerRuntime } from "./worker-runtime.js";

/** The recorded run a replay answers from: its id, its folder, and the tasks it answers with a failure (see `RunOptions.replay`). */
export interface ReplaySource {
	readonly runId: string;
	readonly dir: string;
	readonly failures: Readonly<Record<string, string>>;
	/** The run each task it took as a fork was made in, whose id its recorded prompt names. */
	readonly madeIn: Readonly<Record<string, string>>;
	/** The attempts it made of each task it started (see `RunOptions.replay`). */
	readonly attempts: Readonly<Record<string, readonly ReplayedAttempt[]>>;
}

/** Lines of a diverged prompt's diff that its error carries; the whole diff is the attempt's file. */
const SHOWN_LINES = 30;

/**
 * A runtime that starts no agent: it answers each task from run `source`, whose task of the same
 * id completed, with that task's result and (in a worktree) its last patch applied, and no usage;
 * one that `source.failures` names, with a failure as it ended there, unretried. An attempt the
 * run made before its last of a task fails as it did, to be retried as it was.
 * A task whose prompt differs from the recorded one (its run's id aside), or an attempt the run
 * never made, has diverged: with `live` it is run for real by `live`, else it fails, unretried,
 * with a diff of the prompts.
 */
export function replaying(source: ReplaySource, live: WorkerRuntime | undefined): WorkerRuntime {
	return {
		name: "replay",
		async run(request: TaskRequest, control: RunControl): Promise<WorkerResult> {
			control.signal.throwIfAborted();
			const folder = join(source.dir, "tasks", request.taskId);
			// A task a fork took from another run has the prompt that run made, naming that run.
			const madeIn = source.madeIn[request.taskId] ?? source.runId;
			const recorded = readOr(join(folder, "prompt.md"))?.replaceAll(madeIn, source.runId);
			const prompt = request.prompt.replaceAll(request.runId, source.runId);
			const ended = source.failures[request.taskId];
			const answered = existsSync(join(folder, "result.md"));
			const made = source.attempts[request.taskId];
			const unmade = made !== undefined && request.attempt > made.length;
			if ((ended === undefined && !answered) || unmade || !samePrompt(recorded, prompt)) {
				if (live) return await live.run(request, control);
				const had = !unmade && (answered || ended !== undefined);
				return diverged(request, source, had ? recorded : undefined, prompt);
			}
			const attempt = made?.[request.attempt - 1];
			if (attempt?.requeued) return retried(source, request, attempt);
			if (ended !== undefined) {
				if (live) return await live.run(request, control);
				// What it said is kept: a failed goal check's output is what the next pass is told.
				const text = answered ? readFileSync(join(folder, "result.md"), "utf8") : "";
				const error = { message: `run ${source.runId} recorded ${request.taskId} as ${ended}`, retryable: false };
				return { ok: false, text, error, exitCode: null, usage: ZERO_USAGE, artifacts: [] };
			}
			const patch = lastPatch(folder);
			if (patch.trim() !== "") await git(request.cwd, ["apply", "--binary", "--whitespace=nowarn"], patch);
			const text = readFileSync(join(folder, "result.md"), "utf8");
			control.onEvent({ type: "assistant", text });
			return { ok: true, text, exitCode: null, usage: ZERO_USAGE, artifacts: [] };
		},
	};
}

/**
 * An attempt the run queued its task again after, failed as it failed there; when a resumed
 * runner queued it rather than a retry, the task's retries count afresh, as they did.
 */
function retried(source: ReplaySource, request: TaskRequest, attempt: ReplayedAttempt): WorkerResult {
	const { status, error } = attempt;
	const resumed = attempt.requeued === "resume";
	const message = `run ${source.runId} recorded attempt ${request.attempt} of ${request.taskId} as ${status}${error ? `: ${error.split("\n")[0]}` : ""}`;
	const failure = { message, retryable: true, ...(resumed ? { afresh: true as const } : {}) };
	return { ok: false, text: "", error: failure, exitCode: null, usage: ZERO_USAGE, artifacts: [] };
}

function diverged(
	request: TaskRequest,
	source: ReplaySource,
	recorded: string | undefined,
	prompt: string,
): WorkerResult {
	const name = "replay.diff";
	const made = source.attempts[request.taskId];
	const diff =
		made !== undefined && request.attempt > made.length
			? `run ${source.runId} made no attempt ${request.attempt} of task ${request.taskId}\n`
			: recorded === undefined
				? `run ${source.runId} has no result of task ${request.taskId} to replay\n`
				: createTwoFilesPatch(`${source.runId}/prompt.md`, `${request.runId}/prompt.md`, recorded, prompt);
	mkdirSync(request.artifactDir, { recursive: true });
	writeAttemptFile(join(request.artifactDir, name), diff);
	const lines = diff.split("\n");
	const shown = lines.slice(0, SHOWN_LINES).join("\n");
	const more =
		lines.length > SHOWN_LINES
			? `\n… ${lines.length - SHOWN_LINES} more lines in ${request.artifactPrefix}/${name}`
			: "";
	const why =
		recorded === undefined ? "it has nothing recorded to answer with" : "its prompt differs from the recorded one";
	const message = `diverged from run ${source.runId}: ${why}:\n${shown}${more}`;
	return {
		ok: false,
		text: "",
		error: { message, retryable: false },
		exitCode: null,
		usage: ZERO_USAGE,
		artifacts: [{ name: `${request.artifactPrefix}/${name}`, kind: "diff" }],
	};
}

/**
 * Whether the recorded prompt is `prompt`: the same, or (its task having taken more than one
 * attempt) `prompt` followed by what a later attempt is told, a failed check's output or answers.
 */
function samePrompt(recorded: string | undefined, prompt: string): boolean {
	if (recorded === undefined) return false;
	const later = [CHECK_EVIDENCE_HEADING, ANSWERED_HEADING].map((h) => `${prompt.trimEnd()}\n\n## ${h}\n`);
	return recorded === prompt || later.some((start) => recorded.startsWith(start));
}

/** The patch of the task's last attempt that made one (worktree mode), or "". */
function lastPatch(folder: string): string {
	const last = lastAttemptPatch(readdirSync(folder));
	return last ? readFileSync(join(folder, last), "utf8") : "";
}

function readOr(file: string): string | undefined {
	return existsSync(file) ? readFileSync(file, "utf8") : undefined;
}
