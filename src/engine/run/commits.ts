// Settling ended attempts: completion, retry, fallback model, failure, plan expansion or an `--until` pass.

import type { RunBudget } from "../../core/budget.js";
import { formatDuration } from "../../core/duration.js";
import { errorMessage } from "../../core/errors.js";
import type { ArtifactRecord, RunRecord } from "../../core/records.js";
import { retryNote } from "../../core/retry-policy.js";
import type { SlotQueue } from "../../core/slot-queue.js";
import { specGate } from "../../core/spec-contract.js";
import { isTerminalTask, TaskStatus } from "../../core/status.js";
import { timed } from "../../core/timings.js";
import type { TaskSpec } from "../../core/types.js";
import { FailurePolicy } from "../../core/types.js";
import type { WorkerFailure, WorkerResult } from "../../runtimes/worker-runtime.js";
import type { ArtifactFiles } from "../../store/artifact-files.js";
import type { Lease } from "../../store/lease.js";
import type { RunStore } from "../../store/run-store.js";
import { verdictEvent } from "../goals/verdict.js";
import type { EngineOptions } from "../options.js";
import { judgeAttempt } from "./attempt-judgement.js";
import type { RunBackoffs } from "./backoffs.js";
import type { RunDriver } from "./driver.js";
import { plannedTasks, type RunGrowth } from "./growth.js";
import { type Ending, type LiveAttempt, type Prepared, settlementOf } from "./live-attempt.js";
import type { RunQuestions } from "./questions.js";
import type { RunStop } from "./stop.js";
import type { RunTasks } from "./tasks.js";
import type { RunWorkers } from "./workers.js";

export interface RunCommitsDeps {
	readonly store: RunStore;
	readonly files: ArtifactFiles;
	readonly options: EngineOptions;
	readonly lease: Lease;
	readonly run: RunRecord;
	readonly tasks: RunTasks;
	readonly budget: RunBudget;
	readonly backoffs: RunBackoffs;
	readonly growth: RunGrowth;
	readonly questions: RunQuestions;
	readonly workers: RunWorkers;
	readonly stop: RunStop;
	readonly driver: RunDriver | undefined;
	/** The run's slots now: they are made anew when the run's graph grows. */
	readonly slots: () => SlotQueue;
	readonly wake: () => void;
	/** Called after each settlement: the budget may stop the run. */
	readonly checkBudget: () => void;
}

const COMPLETED = { attemptStatus: "completed", to: TaskStatus.Completed, cause: "settle", error: null } as const;
const NEEDS_ATTENTION = { attemptStatus: "failed", to: TaskStatus.NeedsAttention, cause: "settle" } as const;
/** A failed `--until` check with passes left: the next pass answers it. */
const SUPERSEDED = { attemptStatus: "failed", to: TaskStatus.Superseded, cause: "settle" } as const;

/**
 * What an ended attempt means for its run, recorded: its task completed (releasing its dependents),
 * left for a person, superseded by a next pass, expanded by its plan, queued again after a backoff
 * or on a fallback model, or failed, as the run's failure policy then has it. Each is written in the
 * runner's current batch, so with the turn's other settlements and starts.
 */
export class RunCommits {
	readonly #deps: RunCommitsDeps;
	/** Tasks that reached an end state in this turn, told to the driver once the turn commits. */
	readonly ended: { taskId: string; status: TaskStatus; error: string | null }[] = [];
	#firstFailure: string | undefined;

	constructor(deps: RunCommitsDeps) {
		this.#deps = deps;
	}

	/** The run's first failed task, in words; undefined while none has failed. */
	get firstFailure(): string | undefined {
		return this.#firstFailure;
	}

	commit({ index: i, live, outcome, artifacts }: Prepared): void {
		this.#deps.workers.release(i);
		this.#deps.slots().release(i);
		if (this.#deps.stop.leaseLost) return;
		this.#deps.questions.ended(live, "its attempt ended before the answer reached it");
		const spec = this.#deps.tasks.specs[i] as TaskSpec;
		const judged = judgeAttempt(outcome, spec, {
			stopping: this.#deps.stop.kind !== undefined,
			dry: this.#deps.run.options.runtime === "dry-run",
			problems: (answer) => this.#deps.driver?.check(spec.id, answer) ?? [],
		});
		const result = "result" in judged && judged.result ? { result: judged.result } : {};
		const verdict = "verdict" in judged && judged.verdict ? [verdictEvent(spec, judged.verdict)] : [];
		// An answer whose spec checks ran is weighed too, whether they passed or not.
		const checked = result.result?.specChecks
			? [...specGateEvents(spec, result.result), ...specCheckEvents(result.result)]
			: [];
		switch (judged.kind) {
			case "cancelled":
				this.settle(i, live, {
					attemptStatus: "cancelled",
					to: TaskStatus.Cancelled,
					cause: judged.cause,
					error: judged.error,
					artifacts,
				});
				return;
			case "failed":
				this.#fail(i, live, {
					attemptStatus: judged.attemptStatus,
					failure: this.#deps.questions.answeredLate(live, outcome) ?? judged.failure,
					...result,
					events: [...verdict, ...checked],
					artifacts,
				});
				return;
			case "planned":
				this.#expand(i, live, judged.result, artifacts);
				return;
			case "not-met":
				this.settle(i, live, { ...SUPERSEDED, error: judged.error, ...result, events: verdict, artifacts });
				this.#deps.growth.nextPass(spec, judged.evidence);
				return;
			case "attention":
				this.settle(i, live, { ...NEEDS_ATTENTION, error: judged.error, ...result, artifacts });
				this.#deps.slots().complete(i, (d) => this.#deps.tasks.status[d] === TaskStatus.Queued);
				return;
			case "completed":
				this.#complete(i, live, judged.result, artifacts, [
					...verdict,
					...(checked.length > 0 ? checked : specGateEvents(spec, judged.result)),
				]);
		}
	}

	/** A completed attempt: its dependents may start. */
	#complete(
		i: number,
		live: LiveAttempt,
		result: WorkerResult,
		artifacts: ArtifactRecord[],
		events?: Ending["events"],
	) {
		const shared = this.#shareOutput(i, live, result, artifacts);
		if (!shared) return;
		this.settle(i, live, { ...COMPLETED, result, artifacts: [...artifacts, ...shared], ...(events ? { events } : {}) });
		this.#deps.slots().complete(i, (d) => this.#deps.tasks.status[d] === TaskStatus.Queued);
	}

	/**
	 * A completing task's answer as the run's shared file its step names (`output:`), written only
	 * now, so an attempt that did not complete leaves none; undefined when it cannot be written,
	 * which fails the attempt.
	 */
	#shareOutput(i: number, live: LiveAttempt, result: WorkerResult, artifacts: ArtifactRecord[]) {
		const spec = this.#deps.tasks.specs[i] as TaskSpec;
		if (spec.output === undefined) return [];
		try {
			return [this.#deps.files.write(this.#deps.run.id, spec.id, `shared/${spec.output}`, "output", result.text)];
		} catch (error) {
			const failure = { message: `cannot store the task's files: ${errorMessage(error)}`, retryable: false };
			this.#fail(i, live, { attemptStatus: "failed", failure, result, artifacts });
			return undefined;
		}
	}

	settle(i: number, live: LiveAttempt, ending: Ending): void {
		const taskId = this.#deps.tasks.id(i);
		const added = timed(`${taskId}: record its attempt's end`, () =>
			this.#deps.store.attempts.settle(this.#deps.lease, settlementOf(taskId, live.attemptId, ending)),
		);
		this.#deps.tasks.status[i] = ending.to;
		if (isTerminalTask(ending.to)) this.ended.push({ taskId, status: ending.to, error: ending.error });
		this.#deps.budget.settle(i, added);
		this.#deps.checkBudget();
	}

	/** Workers that did not end within the cleanup time are given up: their tasks are cancelled. */
	abandonPastDeadline(): void {
		const { workers, stop, options } = this.#deps;
		if (workers.size === 0 || !stop.pastDeadline()) return;
		for (const [i, live] of workers.abandonAll()) {
			this.#deps.slots().release(i);
			if (stop.leaseLost) continue;
			const message = `worker did not stop within ${formatDuration(options.cleanupMs)}`;
			this.settle(i, live, { attemptStatus: "lost", to: TaskStatus.Cancelled, cause: "cancel", error: message });
		}
	}

	/**
	 * A failed attempt: queued again at once on the agent's next fallback model when retryable and
	 * one is left (that attempt is not counted against the retries), else after a backoff when
	 * retryable and allowed, else failed.
	 */
	#fail(
		i: number,
		live: LiveAttempt,
		how: {
			attemptStatus: string;
			failure: WorkerFailure;
			result?: WorkerResult;
			artifacts: ArtifactRecord[];
			events?: Ending["events"];
		},
	): void {
		const { attemptStatus, failure, result, artifacts, events = [] } = how;
		const spec = this.#deps.tasks.specs[i] as TaskSpec;
		const evidence = failure.evidence !== undefined ? { evidence: failure.evidence } : {};
		const { retryPolicy, random } = this.#deps.options;
		const retrying = { retries: this.#deps.run.options.retries, policy: retryPolicy, random };
		if (failure.afresh) this.#deps.tasks.countAfresh(i);
		const next = this.#deps.tasks.afterFailure(i, failure.retryable && this.#deps.stop.kind === undefined, retrying);
		if (next.kind !== "fail") {
			const error = retryNote(failure.message, next);
			const queued = { attemptStatus, to: TaskStatus.Queued, cause: "backoff", error, retryable: true } as const;
			this.settle(i, live, { ...queued, ...(result ? { result } : {}), ...evidence, artifacts, events });
			this.#deps.backoffs.wait(i, next.kind === "retry" ? next.delayMs : 0, () => {
				if (this.#deps.stop.kind === undefined) this.#deps.slots().requeue(i);
				this.#deps.wake();
			});
			return;
		}
		this.settle(i, live, {
			...evidence,
			attemptStatus,
			to: TaskStatus.Failed,
			cause: "settle",
			error: failure.message,
			retryable: failure.retryable,
			...(result ? { result } : {}),
			artifacts,
			events,
		});
		this.#firstFailure ??= `task ${spec.id} failed: ${failure.message}`;
		const policy = this.#deps.run.options.failure;
		if (policy === FailurePolicy.Abort) this.#deps.stop.all("abort", `aborted: task ${spec.id} failed`);
		else {
			this.#deps.store.transitionTasks(this.#deps.lease, this.#deps.tasks.skipDownstream(i));
			if (policy === FailurePolicy.Drain && this.#deps.stop.kind === undefined) {
				this.#deps.stop.drain(`not started: task ${spec.id} failed and the run is draining`);
			}
		}
	}

	/**
	 * A planner ended: its plan's tasks join the run, after the planner, and its dependents wait for
	 * them too, committed with the planner's completion. An invalid plan fails the attempt with the
	 * reasons, which its retry is given.
	 */
	#expand(i: number, live: LiveAttempt, result: WorkerResult, artifacts: ArtifactRecord[]): void {
		const planner = this.#deps.tasks.specs[i] as TaskSpec;
		const planned = plannedTasks(planner, result.text, new Set(this.#deps.tasks.dag.ids), this.#deps.run);
		if ("errors" in planned) {
			const evidence = planned.errors.join("\n");
			const failure = { message: `invalid plan: ${planned.errors.join("; ")}`, retryable: true, evidence };
			this.#fail(i, live, { attemptStatus: "failed", failure, result, artifacts });
			return;
		}
		const shared = this.#shareOutput(i, live, result, artifacts);
		if (!shared) return;
		this.settle(i, live, { ...COMPLETED, result, artifacts: [...artifacts, ...shared] });
		const dependents = this.#deps.tasks.waitAlsoFor(
			i,
			planned.tasks.map((t) => t.id),
		);
		this.#deps.growth.add(planner.id, planned.tasks, "plan.expanded", dependents);
	}
}

/** What a completed task's answer covers of its specs, pi-crew's `task.spec_gate`; none for a task without specs. */
function specGateEvents(spec: TaskSpec, result: WorkerResult): { type: string; data: Record<string, unknown> }[] {
	if (!spec.specs) return [];
	return [{ type: "task.spec_gate", data: { ...specGate(spec.specs, result.text) } }];
}

/**
 * What became of a strict step's spec checks: `spec.checked` with every must's outcome, and
 * pi-crew's `spec.check_failed` for each that failed; exit codes and digests, never output.
 */
function specCheckEvents(result: WorkerResult | undefined): { type: string; data: Record<string, unknown> }[] {
	const checks = result?.specChecks ?? [];
	if (checks.length === 0) return [];
	const failed = checks
		.filter((c) => c.outcome === "failed")
		.map((c) => ({ type: "spec.check_failed", data: { ...c } }));
	return [{ type: "spec.checked", data: { checks } }, ...failed];
}
