import { RunBudget } from "../core/budget.js";
import { formatDuration } from "../core/duration.js";
import { CrewError, ErrorCode, errorMessage, isCrewError } from "../core/errors.js";
import { DEFAULT_PROMPT_LIMITS, renderTaskPrompt } from "../core/prompt.js";
import { downstreamOf } from "../core/ready-queue.js";
import { backoffDelay } from "../core/retry-policy.js";
import { SlotQueue } from "../core/slot-queue.js";
import { isTerminalTask, RunStatus, TaskStatus } from "../core/status.js";
import type { ArtifactRecord, RunRecord, TaskSpec } from "../core/types.js";
import { FailurePolicy, ZERO_USAGE } from "../core/types.js";
import { withCheckEvidence } from "../core/verdict.js";
import { scopesOverlap } from "../core/write-scopes.js";
import type { RuntimeRegistry } from "../runtimes/runtime-registry.js";
import type { WorkerEvent, WorkerFailure, WorkerResult } from "../runtimes/worker-runtime.js";
import type { ArtifactFiles } from "../store/artifact-files.js";
import type { Lease } from "../store/lease.js";
import type { TaskChange } from "../store/run-changes.js";
import type { RunStore } from "../store/run-store.js";
import type { Worktrees } from "../workspace/worktrees.js";
import type { EngineOptions } from "./engine-options.js";
import {
	type Ending,
	LiveAttempt,
	type Prepared,
	type Settled,
	type Start,
	storeAttemptFiles,
} from "./live-attempt.js";
import type { RunDriver } from "./run-driver.js";
import { nextPass, plannedTasks } from "./run-growth.js";
import { modelChain, RunTasks } from "./run-tasks.js";
import { startTicker } from "./run-ticker.js";
import { StopReason } from "./stop-reason.js";
import { integrateRun, taskRuntime } from "./task-runtime.js";

export interface RunLoopDeps {
	readonly store: RunStore;
	readonly files: ArtifactFiles;
	readonly runtimes: RuntimeRegistry;
	readonly options: EngineOptions;
	readonly worktrees: Worktrees;
}

type Stopping = "drain" | "abort" | "cancel" | "lease-lost" | "shutdown";

/**
 * Runs one run to its end under a lease: fills free slots from the ready queue, waits for the
 * first attempt to settle, commits it in one transaction and releases its dependents.
 */
export class RunLoop {
	readonly #deps: RunLoopDeps;
	readonly #lease: Lease;
	readonly #signal: AbortSignal | undefined;
	readonly #run: RunRecord;
	readonly #tasks: RunTasks;
	readonly #budget: RunBudget;
	/** Set when the budget stopped the run: the run's error. */
	#budgetStop: string | undefined;
	/** Tasks at their approval gate. */
	readonly #awaiting = new Set<number>();
	/** Whether the run is recorded as waiting for approval. */
	#waiting = false;
	#slots: SlotQueue;
	readonly #running = new Map<number, LiveAttempt>();
	readonly #backoffs = new Map<number, NodeJS.Timeout>();
	readonly #settled: Settled[] = [];
	#stopping: Stopping | undefined;
	#stopMessage = "";
	#firstFailure: string | undefined;
	#deadline = Number.POSITIVE_INFINITY;
	#wakeUp: (() => void) | undefined;
	#woken = false;
	/** Makes the run's tasks as it goes, when a workflow script does. */
	readonly #driver: RunDriver | undefined;
	/** Tasks that reached an end state in this turn, told to the driver once the turn commits. */
	#ended: { taskId: string; status: TaskStatus; error: string | null }[] = [];

	constructor(deps: RunLoopDeps, lease: Lease, signal?: AbortSignal, driver?: RunDriver) {
		this.#deps = deps;
		this.#lease = lease;
		this.#signal = signal;
		this.#driver = driver;
		const queries = deps.store.queries;
		this.#run = queries.getRun(lease.runId);
		this.#tasks = new RunTasks(lease.runId, queries.taskSpecs(lease.runId), queries.listTasks(lease.runId));
		this.#budget = new RunBudget(this.#run.options.budget, queries.usage(lease.runId));
		this.#slots = this.#slotQueue();
	}

	/**
	 * The slots over the current graph: tasks already running hold theirs, and tasks waiting out a
	 * retry backoff come back when it elapses, not before.
	 */
	#slotQueue(): SlotQueue {
		const slots = new SlotQueue(
			this.#tasks.dag,
			this.#tasks.specs.map((spec) => spec.role),
			this.#run.options,
			(i) => this.#tasks.status[i] === TaskStatus.Completed,
			(i) =>
				this.#tasks.status[i] === TaskStatus.Queued &&
				!this.#tasks.blocked(i) &&
				!this.#backoffs.has(i) &&
				(this.#driver?.wants(this.#tasks.id(i)) ?? true),
		);
		for (const i of this.#running.keys()) slots.occupy(i);
		return slots;
	}

	/** Runs until every task has settled or the run stops; returns the run's final status. */
	async execute(): Promise<RunStatus> {
		const onAbort = () => this.#cancel(errorMessage(this.#signal?.reason ?? "cancelled"));
		this.#signal?.addEventListener("abort", onAbort, { once: true });
		const stopTicker = startTicker(this.#deps.store, this.#lease, this.#deps.options, {
			onCancel: (reason) => this.#cancel(reason),
			onLeaseLost: () => this.#stopAll("lease-lost", "the run was taken over by another runner"),
			onStoreError: (message) => this.#stopAll("shutdown", message),
			onTick: () => {
				if ((this.#stopping && this.#running.size > 0) || this.#awaiting.size > 0) this.#wake();
			},
		});
		try {
			this.#checkRuntimes();
			this.#skipBlocked();
			if (this.#signal?.aborted) onAbort();
			this.#driver?.start({ wake: () => this.#wake(), budget: () => this.#budget.view() });
			for (;;) {
				const settled = await this.#prepareSettled();
				// Settlements and new starts are recorded in one commit; workers start only after it,
				// so no worker ever runs without its attempt on record.
				const starts = this.#deps.store.batch(() => {
					for (const item of settled) this.#commit(item);
					this.#abandonPastDeadline();
					this.#checkDriver();
					if (this.#stopping) return [];
					this.#takeDriven();
					this.#admitApproved();
					const filled = this.#fill();
					this.#markWaiting(filled.length);
					return filled;
				});
				for (const ended of this.#ended.splice(0)) this.#driver?.settled(ended.taskId, ended.status, ended.error);
				for (const start of starts) this.#launch(start);
				const idle = this.#running.size === 0 && this.#backoffs.size === 0;
				const driven = this.#driver === undefined || this.#driver.outcome !== undefined;
				if (idle && (this.#stopping || (this.#slots.ready === 0 && this.#awaiting.size === 0 && driven))) break;
				await this.#sleep();
			}
		} catch (error) {
			await this.#shutdown(error);
			throw error;
		} finally {
			stopTicker();
			this.#signal?.removeEventListener("abort", onAbort);
		}
		if (this.#stopping === "lease-lost") {
			throw new CrewError(ErrorCode.LeaseLost, `run ${this.#lease.runId} was taken over by another runner`);
		}
		if (this.#stopping !== "cancel") {
			const done = this.#tasks.dag.order.filter((i) => this.#tasks.status[i] === TaskStatus.Completed);
			const inWorktrees = done.filter((i) => this.#tasks.specs[i]?.worktree).map((i) => this.#tasks.id(i));
			await integrateRun(this.#deps, this.#lease, this.#run.options.baseCommit, inWorktrees);
		}
		return this.#finish();
	}

	#checkRuntimes(): void {
		for (const spec of this.#tasks.specs) this.#deps.runtimes.get(this.#run.options.runtime ?? spec.agent.runtime);
	}

	/** Queued tasks behind a task that did not complete (after a retry of another task) are skipped. */
	#skipBlocked(): void {
		const changes: TaskChange[] = [];
		for (const i of this.#tasks.dag.order) {
			if (this.#tasks.status[i] !== TaskStatus.Queued || !this.#tasks.blocked(i)) continue;
			this.#tasks.status[i] = TaskStatus.Skipped;
			changes.push({
				taskId: this.#tasks.id(i),
				to: TaskStatus.Skipped,
				cause: "dependency-failed",
				error: "a dependency did not complete",
			});
		}
		this.#deps.store.transitionTasks(this.#lease, changes);
	}

	/**
	 * Takes every task that may start now. A task whose budget reservation does not fit waits for
	 * running tasks to settle; with none running, the budget is spent and the run stops.
	 */
	#fill(): Start[] {
		const starts: Start[] = [];
		// Tasks whose write scopes overlap a running task's, put back once this turn is filled.
		const deferred: number[] = [];
		for (;;) {
			const i = this.#slots.take((t) => this.#tasks.status[t] === TaskStatus.Queued);
			if (i === undefined) break;
			const spec = this.#tasks.specs[i] as TaskSpec;
			if (spec.approval && !this.#deps.store.queries.isApproved(this.#lease.runId, spec.id)) {
				this.#slots.release(i);
				const what = `waits for approval: crew approve ${this.#lease.runId} (or crew reject ${this.#lease.runId} --reason …)`;
				this.#deps.store.awaitApproval(this.#lease, spec.id, what);
				this.#tasks.status[i] = TaskStatus.Waiting;
				this.#awaiting.add(i);
				continue;
			}
			if (this.#clashes(spec, starts)) {
				this.#slots.release(i);
				deferred.push(i);
				continue;
			}
			const reservation = this.#budget.reservationFor(spec.agent.maxTokens);
			if (this.#budget.limited && !this.#budget.fits(reservation)) {
				this.#slots.release(i);
				this.#slots.requeue(i);
				if (starts.length === 0 && this.#running.size === 0) {
					this.#stopForBudget(`not started: the budget is spent (${this.#budget.describe()})`);
				}
				break;
			}
			this.#budget.start(i, reservation);
			starts.push(this.#record(i));
		}
		for (const i of deferred) this.#slots.requeue(i);
		return starts;
	}

	/** Whether a task in the shared checkout would write where a running (or starting) one writes. */
	#clashes(spec: TaskSpec, starts: readonly Start[]): boolean {
		if (!spec.writes || spec.worktree) return false;
		const busy = [...this.#running.keys(), ...starts.map((s) => s.index)];
		return busy.some((b) => {
			const other = this.#tasks.specs[b];
			return other?.writes !== undefined && !other.worktree && scopesOverlap(spec.writes ?? [], other.writes);
		});
	}

	/**
	 * A planner ended: its plan's tasks join the run, after the planner, and its dependents wait for
	 * them too, committed with the planner's completion. An invalid plan fails the attempt with the
	 * reasons, which its retry is given.
	 */
	#expand(i: number, live: LiveAttempt, result: WorkerResult, artifacts: ArtifactRecord[]): void {
		const planner = this.#tasks.specs[i] as TaskSpec;
		const planned = plannedTasks(planner, result.text, new Set(this.#tasks.dag.ids), this.#run);
		if ("errors" in planned) {
			const evidence = planned.errors.join("\n");
			const failure = { message: `invalid plan: ${planned.errors.join("; ")}`, retryable: true, evidence };
			this.#fail(i, live, { attemptStatus: "failed", failure, result, artifacts });
			return;
		}
		const ending = { attemptStatus: "completed", to: TaskStatus.Completed, cause: "settle", error: null } as const;
		this.#settle(i, live, { ...ending, result, artifacts });
		const ids = planned.tasks.map((t) => t.id);
		const dependents = (this.#tasks.dag.dependents[i] ?? []).map((d) => {
			const spec = this.#tasks.specs[d] as TaskSpec;
			const dependsOn = [...spec.dependsOn, ...ids];
			this.#tasks.specs[d] = { ...spec, dependsOn };
			return { taskId: spec.id, dependsOn };
		});
		this.#deps.store.expandRun(this.#lease, planner.id, planned.tasks, dependents);
		this.#addTasks(planned.tasks);
	}

	/** An `--until` check failed with passes left: the workflow runs again, told what the check printed. */
	#nextIteration(i: number, evidence: string): void {
		const check = this.#tasks.specs[i] as TaskSpec;
		const added = nextPass(this.#tasks.specs, check, evidence);
		this.#deps.store.expandRun(this.#lease, check.id, added, [], "until.iteration");
		this.#addTasks(added);
	}

	/** New tasks join the loop's state after the ones there; the graph and the slots are rebuilt. */
	#addTasks(added: readonly TaskSpec[]): void {
		this.#tasks.add(added);
		this.#slots = this.#slotQueue();
	}

	/**
	 * The driver's new tasks join the run, and the tasks it asks for again that have not ended
	 * well (interrupted, cancelled) queue up; completed and failed ones keep their outcome.
	 */
	#takeDriven(): void {
		if (!this.#driver) return;
		const { added, claimed } = this.#driver.takeRequests();
		if (added.length > 0) {
			this.#deps.store.expandRun(this.#lease, null, added, [], "script.tasks");
			this.#tasks.add(added);
		}
		const changes: TaskChange[] = [];
		for (const id of claimed) {
			const i = this.#tasks.dag.indexOf.get(id);
			const status = i === undefined ? undefined : this.#tasks.status[i];
			if (i === undefined || status === TaskStatus.Completed || status === TaskStatus.Failed) continue;
			if (status === TaskStatus.Queued || status === TaskStatus.Running) continue;
			this.#tasks.status[i] = TaskStatus.Queued;
			changes.push({ taskId: id, to: TaskStatus.Queued, cause: "resume" });
		}
		this.#deps.store.transitionTasks(this.#lease, changes);
		if (added.length > 0 || claimed.length > 0) this.#slots = this.#slotQueue();
	}

	/** A driver that failed stops the run: what runs finishes and is kept, nothing new starts. */
	#checkDriver(): void {
		const outcome = this.#driver?.outcome;
		if (!outcome || outcome.ok || this.#stopping) return;
		this.#stopping = "drain";
		this.#stopMessage = `not started: ${outcome.error}`;
		this.#clearBackoffs();
	}

	/** Approved tasks leave their gate and queue up. */
	#admitApproved(): void {
		if (this.#awaiting.size === 0) return;
		const changes: TaskChange[] = [];
		for (const id of this.#deps.store.queries.approvedWaiting(this.#lease.runId)) {
			const i = this.#tasks.dag.indexOf.get(id);
			if (i === undefined || !this.#awaiting.delete(i)) continue;
			this.#tasks.status[i] = TaskStatus.Queued;
			this.#slots.requeue(i);
			changes.push({ taskId: id, to: TaskStatus.Queued, cause: "dispatch" });
		}
		this.#deps.store.transitionTasks(this.#lease, changes);
	}

	/** The run reads `waiting` while approval is all it waits for, and `running` again after. */
	#markWaiting(started: number): void {
		const waiting =
			this.#awaiting.size > 0 &&
			started === 0 &&
			this.#running.size === 0 &&
			this.#backoffs.size === 0 &&
			this.#slots.ready === 0;
		if (waiting === this.#waiting) return;
		this.#deps.store.setWaiting(this.#lease, waiting);
		this.#waiting = waiting;
	}

	/** Stops the run for its budget: running tasks finish, or are cancelled when the policy is abort. */
	#stopForBudget(message: string): void {
		if (this.#budgetStop !== undefined || this.#stopping) return;
		this.#budgetStop = `budget: ${this.#budget.describe()}`;
		this.#deps.store.appendEvent(this.#lease, "budget.exhausted", null, { spent: this.#budget.describe() });
		if (this.#run.options.failure === FailurePolicy.Abort) this.#stopAll("abort", message);
		else {
			this.#stopping = "drain";
			this.#stopMessage = message;
			this.#clearBackoffs();
			this.#driver?.stop(message);
		}
	}

	/** Warns once at 80% of a cap, and stops the run once a cap is reached. */
	#checkBudget(): void {
		if (!this.#budget.limited) return;
		if (this.#budget.takeWarning()) {
			this.#deps.store.appendEvent(this.#lease, "budget.warning", null, { spent: this.#budget.describe() });
		}
		if (this.#budget.exhausted()) this.#stopForBudget(`not started: the budget is spent (${this.#budget.describe()})`);
	}

	/** Renders and stores the task's prompt and records its new attempt. */
	#record(i: number): Start {
		const spec = this.#tasks.specs[i] as TaskSpec;
		const { store, files } = this.#deps;
		const runId = this.#lease.runId;
		const runtimeName = this.#run.options.runtime ?? spec.agent.runtime;
		const shown = spec.dependsOn.slice(0, DEFAULT_PROMPT_LIMITS.listed).map((dep) => {
			const { excerpt, chars } = store.queries.resultExcerpt(runId, dep);
			const artifact = files.display(runId, `tasks/${dep}/result.md`, this.#run.options.cwd);
			return { taskId: dep, excerpt, totalChars: chars, artifact };
		});
		const rendered = renderTaskPrompt(spec.text, shown, DEFAULT_PROMPT_LIMITS, spec.dependsOn.length);
		const evidence = store.queries.evidenceOf(runId, spec.id);
		const prompt = evidence === undefined ? rendered : withCheckEvidence(rendered, evidence);
		const prefix = `tasks/${spec.id}`;
		const promptArtifact = files.write(runId, spec.id, `${prefix}/prompt.md`, "prompt", prompt);
		const model = modelChain(spec.agent)[this.#tasks.modelIndex[i] ?? 0];
		const attempt = store.startAttempt(this.#lease, spec.id, runtimeName, model);
		this.#tasks.status[i] = TaskStatus.Running;
		this.#tasks.attempts[i] = attempt.number;
		return {
			index: i,
			runtime: runtimeName,
			attemptId: attempt.id,
			promptArtifact,
			request: {
				runId,
				taskId: spec.id,
				stepId: spec.stepId,
				role: spec.role,
				attempt: attempt.number,
				agent: model ? { ...spec.agent, model } : spec.agent,
				prompt,
				promptFile: files.path(runId, `${prefix}/prompt.md`),
				cwd: this.#run.options.cwd,
				artifactDir: files.path(runId, prefix),
				artifactPrefix: prefix,
			},
		};
	}

	#launch(start: Start): void {
		const spec = this.#tasks.specs[start.index] as TaskSpec;
		const timeoutMs = spec.timeoutMs ?? this.#run.options.timeoutMs;
		const stallTimeoutMs = spec.stallTimeoutMs ?? this.#run.options.stallTimeoutMs;
		const live = new LiveAttempt({
			runtime: taskRuntime(spec, start.runtime, this.#deps, this.#run.options),
			attemptId: start.attemptId,
			promptArtifact: start.promptArtifact,
			request: start.request,
			...(timeoutMs !== undefined ? { timeoutMs } : {}),
			...(stallTimeoutMs !== undefined ? { stallTimeoutMs } : {}),
			now: this.#deps.options.now,
			onEvent: (attempt, event) => this.#onWorkerEvent(attempt, event),
		});
		this.#running.set(start.index, live);
		if (this.#stopping) live.stop(new StopReason(this.#stopKind(), this.#stopMessage));
		void live.start().then((outcome) => {
			this.#settled.push({ index: start.index, live, outcome });
			this.#wake();
		});
	}

	#onWorkerEvent(live: LiveAttempt, event: WorkerEvent): void {
		if (event.type === "activity" || this.#stopping === "lease-lost") return;
		try {
			if (event.type === "spawned") this.#deps.store.recordProcess(this.#lease, live.attemptId, event.process);
			else {
				const { type, ...data } = event;
				this.#deps.store.appendEvent(this.#lease, `worker.${type}`, live.request.taskId, data);
				if (event.type === "usage") {
					this.#budget.report(this.#tasks.dag.indexOf.get(live.request.taskId) ?? -1, event.usage);
					this.#checkBudget();
				}
			}
		} catch (error) {
			if (isCrewError(error, ErrorCode.LeaseLost))
				this.#stopAll("lease-lost", "the run was taken over by another runner");
			else this.#stopAll("shutdown", `cannot record worker event: ${errorMessage(error)}`);
		}
	}

	/**
	 * Takes every settled attempt and stores its files; the store records them afterwards. A task
	 * whose files cannot be stored (a full disk, say) fails with that error; the run goes on.
	 */
	async #prepareSettled(): Promise<Prepared[]> {
		const prepared: Prepared[] = [];
		for (const item of this.#settled.splice(0)) {
			const { result } = item.outcome;
			if (!result || this.#stopping === "lease-lost") {
				prepared.push({ ...item, artifacts: [item.live.promptArtifact] });
				continue;
			}
			try {
				prepared.push({ ...item, artifacts: await storeAttemptFiles(this.#deps.files, item.live, result) });
			} catch (error) {
				const failure = new Error(`cannot store the task's files: ${errorMessage(error)}`);
				prepared.push({ ...item, outcome: { error: failure }, artifacts: [item.live.promptArtifact] });
			}
		}
		return prepared;
	}

	#commit({ index: i, live, outcome, artifacts }: Prepared): void {
		this.#running.delete(i);
		this.#slots.release(i);
		if (this.#stopping === "lease-lost") return;

		const stop = outcome.error instanceof StopReason ? outcome.error : undefined;
		if (stop && (stop.kind === "cancel" || stop.kind === "abort" || stop.kind === "shutdown")) {
			const cause = stop.kind === "abort" ? "abort" : "cancel";
			this.#settle(i, live, {
				attemptStatus: "cancelled",
				to: TaskStatus.Cancelled,
				cause,
				error: stop.message,
				artifacts,
			});
			return;
		}
		if (stop) {
			const kind = stop.kind === "timeout" ? "timed-out" : "stalled";
			this.#fail(i, live, { attemptStatus: kind, failure: { message: stop.message, retryable: true }, artifacts });
			return;
		}
		if (outcome.error !== undefined) {
			const failure = { message: `worker error: ${errorMessage(outcome.error)}`, retryable: false };
			this.#fail(i, live, { attemptStatus: "failed", failure, artifacts });
			return;
		}
		const result = outcome.result as WorkerResult;
		const until = this.#tasks.specs[i]?.until;
		if (result.ok && this.#tasks.specs[i]?.expand) this.#expand(i, live, result, artifacts);
		else if (!result.ok && until && until.iteration < until.maxIterations && !this.#stopping) {
			const error = `the goal is not met yet: ${result.error?.message ?? "the check failed"}`;
			this.#settle(i, live, {
				attemptStatus: "failed",
				to: TaskStatus.Failed,
				cause: "settle",
				error,
				result,
				artifacts,
			});
			this.#nextIteration(i, result.text);
		} else if (!result.ok && until) {
			const message = `the goal is not met after ${until.iteration} passes: ${result.error?.message ?? "the check failed"}`;
			this.#fail(i, live, { attemptStatus: "failed", failure: { message, retryable: false }, result, artifacts });
		} else if (result.ok) {
			const problems = this.#driver?.check(this.#tasks.id(i), result.text) ?? [];
			if (problems.length > 0) {
				const failure = { message: `the answer does not match its schema: ${problems.join("; ")}`, retryable: true };
				this.#fail(i, live, {
					attemptStatus: "failed",
					failure: { ...failure, evidence: problems.join("\n") },
					result,
					artifacts,
				});
				return;
			}
			const ending = { attemptStatus: "completed", to: TaskStatus.Completed, cause: "settle", error: null } as const;
			this.#settle(i, live, { ...ending, result, artifacts });
			this.#slots.complete(i, (d) => this.#tasks.status[d] === TaskStatus.Queued);
		} else {
			const failure = result.error ?? { message: "worker failed", retryable: false };
			this.#fail(i, live, { attemptStatus: "failed", failure, result, artifacts });
		}
	}

	#settle(i: number, live: LiveAttempt, ending: Ending): void {
		const { result } = ending;
		this.#deps.store.settle(this.#lease, {
			taskId: this.#tasks.id(i),
			attemptId: live.attemptId,
			attemptStatus: ending.attemptStatus,
			taskStatus: ending.to,
			cause: ending.cause,
			error: ending.error,
			...(ending.retryable !== undefined ? { retryable: ending.retryable } : {}),
			exitCode: result?.exitCode ?? null,
			...(result ? { usage: result.usage } : {}),
			...(ending.evidence !== undefined ? { evidence: ending.evidence } : {}),
			...(result && (result.ok || result.text !== "")
				? { result: { excerpt: result.text.slice(0, DEFAULT_PROMPT_LIMITS.perDependency), chars: result.text.length } }
				: {}),
			artifacts: ending.artifacts ?? [],
		});
		this.#tasks.status[i] = ending.to;
		if (isTerminalTask(ending.to))
			this.#ended.push({ taskId: this.#tasks.id(i), status: ending.to, error: ending.error });
		this.#budget.settle(i, result?.usage ?? ZERO_USAGE);
		this.#checkBudget();
	}

	/**
	 * A failed attempt: queued again at once on the agent's next fallback model when retryable and
	 * one is left (that attempt is not counted against the retries), else after a backoff when
	 * retryable and allowed, else failed.
	 */
	#fail(
		i: number,
		live: LiveAttempt,
		how: { attemptStatus: string; failure: WorkerFailure; result?: WorkerResult; artifacts: ArtifactRecord[] },
	): void {
		const { attemptStatus, failure, result, artifacts } = how;
		const spec = this.#tasks.specs[i] as TaskSpec;
		const evidence = failure.evidence !== undefined ? { evidence: failure.evidence } : {};
		const allowed = spec.retries ?? this.#run.options.retries;
		const models = modelChain(spec.agent);
		const modelIndex = this.#tasks.modelIndex[i] ?? 0;
		const fallback = models[modelIndex + 1];
		const used = (this.#tasks.attempts[i] ?? 1) - (this.#tasks.baseAttempts[i] ?? 0) - modelIndex;
		if (failure.retryable && !this.#stopping && (fallback !== undefined || used <= allowed)) {
			const { retryPolicy, random } = this.#deps.options;
			const delay = fallback !== undefined ? 0 : backoffDelay(retryPolicy, used, random());
			if (fallback !== undefined) this.#tasks.modelIndex[i] = modelIndex + 1;
			const message =
				fallback !== undefined
					? `${failure.message}; falling back to model ${fallback}`
					: `${failure.message}; retry ${used} of ${allowed} in ${formatDuration(delay)}`;
			const ending = {
				attemptStatus,
				to: TaskStatus.Queued,
				cause: "backoff",
				error: message,
				retryable: true,
			} as const;
			this.#settle(i, live, { ...ending, ...(result ? { result } : {}), ...evidence, artifacts });
			this.#backoffs.set(
				i,
				setTimeout(() => {
					this.#backoffs.delete(i);
					if (!this.#stopping) this.#slots.requeue(i);
					this.#wake();
				}, delay),
			);
			return;
		}
		this.#settle(i, live, {
			...evidence,
			attemptStatus,
			to: TaskStatus.Failed,
			cause: "settle",
			error: failure.message,
			retryable: failure.retryable,
			...(result ? { result } : {}),
			artifacts,
		});
		this.#firstFailure ??= `task ${spec.id} failed: ${failure.message}`;
		const policy = this.#run.options.failure;
		if (policy === FailurePolicy.Abort) this.#stopAll("abort", `aborted: task ${spec.id} failed`);
		else {
			this.#skipDownstream(i);
			if (policy === FailurePolicy.Drain && !this.#stopping) {
				this.#stopping = "drain";
				this.#stopMessage = `not started: task ${spec.id} failed and the run is draining`;
				this.#clearBackoffs();
			}
		}
	}

	#skipDownstream(i: number): void {
		const changes: TaskChange[] = [];
		for (const d of downstreamOf(this.#tasks.dag, i)) {
			if (this.#tasks.status[d] !== TaskStatus.Queued) continue;
			this.#tasks.status[d] = TaskStatus.Skipped;
			changes.push({
				taskId: this.#tasks.id(d),
				to: TaskStatus.Skipped,
				cause: "dependency-failed",
				error: `dependency ${this.#tasks.id(i)} failed`,
			});
		}
		this.#deps.store.transitionTasks(this.#lease, changes);
	}

	#cancel(reason: string): void {
		if (this.#stopping === "cancel" || this.#stopping === "lease-lost") return;
		this.#stopAll("cancel", reason);
	}

	/** Stops the run: no new starts, no pending retries, every running worker aborted. */
	#stopAll(kind: Exclude<Stopping, "drain">, message: string): void {
		if (this.#stopping === "lease-lost") return;
		this.#stopping = kind;
		this.#stopMessage = message;
		this.#deadline = this.#deps.options.now() + this.#deps.options.cleanupMs;
		this.#clearBackoffs();
		for (const live of this.#running.values()) live.stop(new StopReason(kind, message));
		this.#driver?.stop(message);
		this.#wake();
	}

	#stopKind(): StopReason["kind"] {
		return this.#stopping === "drain" || this.#stopping === undefined ? "shutdown" : this.#stopping;
	}

	#clearBackoffs(): void {
		for (const timer of this.#backoffs.values()) clearTimeout(timer);
		this.#backoffs.clear();
	}

	/** Workers that did not end within the cleanup time are given up: their tasks are cancelled. */
	#abandonPastDeadline(): void {
		if (this.#running.size === 0 || this.#deps.options.now() < this.#deadline) return;
		for (const [i, live] of this.#running) {
			this.#running.delete(i);
			this.#slots.release(i);
			if (this.#stopping === "lease-lost") continue;
			const message = `worker did not stop within ${formatDuration(this.#deps.options.cleanupMs)}`;
			this.#settle(i, live, { attemptStatus: "lost", to: TaskStatus.Cancelled, cause: "cancel", error: message });
		}
	}

	#wake(): void {
		this.#woken = true;
		this.#wakeUp?.();
	}

	async #sleep(): Promise<void> {
		if (!this.#woken) await new Promise<void>((resolve) => (this.#wakeUp = resolve));
		this.#wakeUp = undefined;
		this.#woken = false;
	}

	/**
	 * After an error in the loop itself: end every worker, then record the run as failed from what
	 * the store holds (a failed batch leaves this runner's memory ahead of the store).
	 */
	async #shutdown(error: unknown): Promise<void> {
		const leaseLost = this.#stopping === "lease-lost" || isCrewError(error, ErrorCode.LeaseLost);
		this.#stopAll(leaseLost ? "lease-lost" : "shutdown", `runner error: ${errorMessage(error)}`);
		const pending = [...this.#running.values()].map((live) => live.done);
		const timeout = new Promise((resolve) => setTimeout(resolve, this.#deps.options.cleanupMs).unref());
		await Promise.race([Promise.all(pending), timeout]);
		if (leaseLost) return;
		try {
			this.#deps.store.abandonRun(this.#lease, this.#stopMessage);
		} catch (secondary) {
			// The caller must see the original error; the run then reads as interrupted once this
			// runner is gone, and `crew resume` recovers it.
			void secondary;
		}
	}

	#finish(): RunStatus {
		const leftover: TaskChange[] = [];
		const cancelling = this.#stopping === "cancel" || this.#stopping === "abort" || this.#stopping === "shutdown";
		for (let i = 0; i < this.#tasks.status.length; i++) {
			if (this.#tasks.status[i] !== TaskStatus.Queued && this.#tasks.status[i] !== TaskStatus.Waiting) continue;
			const to = cancelling ? TaskStatus.Cancelled : TaskStatus.Skipped;
			this.#tasks.status[i] = to;
			const error = this.#stopMessage || "not started: a dependency did not complete";
			leftover.push({ taskId: this.#tasks.id(i), to, cause: cancelling ? "cancel" : "drain", error });
		}
		this.#deps.store.transitionTasks(this.#lease, leftover);
		let final: RunStatus = RunStatus.Completed;
		let error: string | null = null;
		const outcome = this.#driver?.outcome;
		if (this.#stopping === "cancel") {
			final = RunStatus.Cancelled;
			error = this.#stopMessage;
		} else if (this.#driver && (outcome?.ok !== true || this.#stopping)) {
			final = RunStatus.Failed;
			error = this.#budgetStop ?? (outcome?.ok === false ? outcome.error : this.#stopMessage);
		} else if (this.#driver) {
			final = RunStatus.Completed;
		} else if (this.#tasks.status.some((s, i) => s !== TaskStatus.Completed && !this.#tasks.superseded(i))) {
			final = RunStatus.Failed;
			const open = this.#tasks.status.filter((s, i) => s !== TaskStatus.Completed && !this.#tasks.superseded(i)).length;
			error =
				this.#budgetStop ??
				this.#firstFailure ??
				(this.#stopMessage || `${open} of ${this.#tasks.status.length} tasks did not complete`);
		}
		this.#deps.store.finishRun(this.#lease, final, "settle", error || null);
		return final;
	}
}
