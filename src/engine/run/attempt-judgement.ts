// Judging an ended attempt: completed, failed, cancelled, a plan, an unmet goal, or left for a person.

import { errorMessage } from "../../core/errors.js";
import type { TaskSpec } from "../../core/types.js";
import type { WorkerFailure, WorkerResult } from "../../runtimes/worker-runtime.js";
import { type GoalVerdict, goalVerdict } from "../goals/verdict.js";
import type { AttemptOutcome } from "./live-attempt.js";
import { StopReason } from "./stop-reason.js";

/** What an ended attempt means for its task. */
export type Judgement =
	| { readonly kind: "cancelled"; readonly cause: "abort" | "cancel"; readonly error: string }
	| {
			readonly kind: "failed";
			readonly attemptStatus: "failed" | "timed-out" | "stalled";
			readonly failure: WorkerFailure;
			readonly result?: WorkerResult;
			readonly verdict?: GoalVerdict;
	  }
	| { readonly kind: "completed"; readonly result: WorkerResult; readonly verdict?: GoalVerdict }
	/** A planner's result: its plan is read next. */
	| { readonly kind: "planned"; readonly result: WorkerResult }
	/** An `--until` check failed with passes left: the workflow runs again, given `evidence`. */
	| {
			readonly kind: "not-met";
			readonly result: WorkerResult;
			readonly error: string;
			readonly evidence: string;
			readonly verdict?: GoalVerdict;
	  }
	/** No usable answer, and the step leaves that to a person (`onMissing: attention`). */
	| { readonly kind: "attention"; readonly result: WorkerResult; readonly error: string };

/**
 * Judges an ended attempt of `spec` from how it ended: stopped (cancelled, or a retryable timeout
 * or stall), a runtime that threw, or its result, read as a plan, an `--until` check or an answer
 * with `problems` against its schema; an empty answer of a step that names its `output` fails.
 * A step with `onMissing: attention` leaves an attempt without an answer, or without the verdict
 * it needs, to a person instead.
 * While the run is `stopping`, a failed check starts no pass.
 */
export function judgeAttempt(
	outcome: AttemptOutcome,
	spec: TaskSpec,
	context: {
		readonly stopping: boolean;
		readonly problems: (answer: string) => readonly string[];
		/** A dry run: its judge gives no verdict. */
		readonly dry?: boolean;
	},
): Judgement {
	const stop = outcome.error instanceof StopReason ? outcome.error : undefined;
	if (stop && (stop.kind === "cancel" || stop.kind === "abort" || stop.kind === "shutdown")) {
		return { kind: "cancelled", cause: stop.kind === "abort" ? "abort" : "cancel", error: stop.message };
	}
	if (stop?.kind === "unanswered") {
		// Asked again, the agent would wait for the same person again.
		return { kind: "failed", attemptStatus: "timed-out", failure: { message: stop.message, retryable: false } };
	}
	if (stop) {
		const attemptStatus = stop.kind === "timeout" ? "timed-out" : "stalled";
		return { kind: "failed", attemptStatus, failure: { message: stop.message, retryable: true } };
	}
	if (outcome.error !== undefined || outcome.result === undefined) {
		const message = `worker error: ${errorMessage(outcome.error)}`;
		return { kind: "failed", attemptStatus: "failed", failure: { message, retryable: false } };
	}
	const { result } = outcome;
	const until = spec.until;
	if (result.ok && spec.expand) return { kind: "planned", result };
	const judged = until?.judge && result.ok && !context.dry ? goalVerdict(result.text) : undefined;
	if (judged && "problem" in judged) {
		const failure = { message: `the judge's answer is not a verdict: ${judged.problem}`, retryable: true };
		return { kind: "failed", attemptStatus: "failed", failure: { ...failure, evidence: judged.problem }, result };
	}
	const verdict = judged ? { verdict: judged } : {};
	if (judged?.verdict === "achieved") return { kind: "completed", result, ...verdict };
	if (judged?.verdict === "blocked") {
		const failure = { message: `the goal is blocked: ${judged.reason}`, retryable: false };
		return { kind: "failed", attemptStatus: "failed", failure, result, ...verdict };
	}
	const unmet = judged ? `the judge says: ${judged.reason}` : (result.error?.message ?? "the check failed");
	// A judge's attempt that failed for another reason than its command is an attempt like any.
	const unmetCheck = !result.ok && (!until?.judge || result.error?.unmet === true);
	if (until && (judged || unmetCheck)) {
		if (until.iteration < until.maxIterations && !context.stopping) {
			const evidence = judged ? judged.reason : result.text;
			return { kind: "not-met", result, error: `the goal is not met yet: ${unmet}`, evidence, ...verdict };
		}
		const message = `the goal is not met after ${until.iteration} passes: ${unmet}`;
		return { kind: "failed", attemptStatus: "failed", failure: { message, retryable: false }, result, ...verdict };
	}
	const attention = spec.onMissing === "attention";
	if (!result.ok) {
		const failure = result.error ?? { message: "worker failed", retryable: false };
		if (failure.missing && attention) return { kind: "attention", result, error: failure.message };
		return { kind: "failed", attemptStatus: "failed", failure, result };
	}
	if (result.text.trim() === "" && (attention || spec.output !== undefined)) {
		const message =
			spec.output === undefined
				? "its agent ended without an answer"
				: `its output ${spec.output} was not produced: its agent ended without an answer`;
		if (attention) return { kind: "attention", result, error: message };
		return { kind: "failed", attemptStatus: "failed", failure: { message, retryable: true }, result };
	}
	const problems = context.problems(result.text);
	if (problems.length === 0) return { kind: "completed", result };
	const message = `the answer does not match its schema: ${problems.join("; ")}`;
	const failure = { message, retryable: true, evidence: problems.join("\n") };
	return { kind: "failed", attemptStatus: "failed", failure, result };
}
