import { RunBudget } from "../core/budget.js";
import { formatDuration } from "../core/duration.js";
import { CrewError, ErrorCode, errorMessage, isCrewError } from "../core/errors.js";
import { retryNote } from "../core/retry-policy.js";
import { SlotQueue } from "../core/slot-queue.js";
import { isTerminalTask, RunStatus, satisfiesDependents, TaskStatus } from "../core/status.js";
import type { ArtifactRecord, AttemptRecord, RunRecord, TaskSpec } from "../core/types.js";
import { FailurePolicy } from "../core/types.js";
import type { RuntimeRegistry } from "../runtimes/runtime-registry.js";
import type { WorkerEvent, WorkerFailure, WorkerResult } from "../runtimes/worker-runtime.js";
import type { ArtifactFiles } from "../store/artifact-files.js";
import type { Lease } from "../store/lease.js";
import type { RunStore } from "../store/run-store.js";
import type { IntegrationBranch } from "../workspace/integration-branch.js";
import type { Worktrees } from "../workspace/worktrees.js";
import { judgeAttempt } from "./attempt-judgement.js";
import { followedStart, recordStart } from "./attempt-start.js";
import type { EngineOptions } from "./engine-options.js";
import { type Ending, type LiveAttempt, type Prepared, type Start, settlementOf } from "./live-attempt.js";
import { RunAdmission } from "./run-admission.js";
import { RunBackoffs } from "./run-backoffs.js";
import type { RunDriver } from "./run-driver.js";
import { plannedTasks, RunGrowth } from "./run-growth.js";
import { RunIntegration } from "./run-integration.js";
import { runOutcome } from "./run-outcome.js";
import { RunQuestions } from "./run-questions.js";
import { RunSteering } from "./run-steering.js";
import { modelChain, RunTasks } from "./run-tasks.js";
import { startTicker } from "./run-ticker.js";
import { RunWorkers } from "./run-workers.js";
import { RunWrites } from "./run-writes.js";
import { StopReason } from "./stop-reason.js";
import { recordWorkerEvent } from "./worker-events.js";

export interface RunLoopDeps {
	readonly store: RunStore;
	readonly files: ArtifactFiles;
	/** The project's `.crew` folder: hidden from sandboxed tasks, but for their own files. */
	readonly crewDir: string;
	readonly runtimes: RuntimeRegistry;
	readonly options: EngineOptions;
	readonly worktrees: Worktrees;
	readonly integration: IntegrationBranch;
	/** This machine's runtimes, where `runtimes` hands attempts to a queue. */
	readonly localRuntimes?: RuntimeRegistry;
	/** Whether the user trusts the project's own files to run, as decided when this runner started. */
	readonly trusted?: boolean;
}

type Stopping = "drain" | "abort" | "cancel" | "lease-lost" | "shutdown";

const COMPLETED = { attemptStatus: "completed", to: TaskStatus.Completed, cause: "settle", error: null } as const;
const NEEDS_ATTENTION = { attemptStatus: "failed", to: TaskStatus.NeedsAttention, cause: "settle" } as const;
/** A failed `--until` check with passes left: the next pass answers it. */
const SUPERSEDED = { attemptStatus: "failed", to: TaskStatus.Superseded, cause: "settle" } as const;

/** The prefix of a runtime that follows an attempt already running elsewhere: `attach:<runtime>`. */
export const ATTACH = "attach:";

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
	/** Set when the budget stopped the run: its error then quotes the spend once every attempt has ended. */
	#budgetStopped = false;
	readonly #admission: RunAdmission;
	#slots: SlotQueue;
	readonly #workers: RunWorkers;
	/** Every write this runner makes while it runs goes through here: see `RunWrites`. */
	readonly #writes: RunWrites;
	readonly #backoffs = new RunBackoffs();
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
	/** Attempts a dead runner left running elsewhere, followed again rather than run again. */
	readonly #followed: readonly AttemptRecord[];
	/** Return `waiting`, leaving the run waiting without a runner, once only a person can let it go on. */
	readonly #releaseWhenWaiting: boolean;
	readonly #integration: RunIntegration;
	readonly #growth: RunGrowth;
	readonly #steering: RunSteering;
	readonly #questions: RunQuestions;

	constructor(
		deps: RunLoopDeps,
		lease: Lease,
		signal?: AbortSignal,
		driver?: RunDriver,
		followed: readonly AttemptRecord[] = [],
		releaseWhenWaiting = false,
	) {
		this.#deps = deps;
		this.#releaseWhenWaiting = releaseWhenWaiting;
		this.#lease = lease;
		this.#signal = signal;
		this.#driver = driver;
		this.#followed = followed;
		const queries = deps.store.queries;
		this.#run = queries.getRun(lease.runId);
		this.#writes = new RunWrites(deps.store, lease, {
			now: deps.options.now,
			retryMs: deps.options.pollMs,
			staleAfterMs: deps.options.staleAfterMs,
			lastBeat: this.#run.lease?.heartbeatAt ?? deps.options.now(),
			onError: (error) => this.#writeFailed(error),
		});
		this.#tasks = new RunTasks(lease.runId, queries.taskSpecs(lease.runId), queries.listTasks(lease.runId));
		this.#budget = new RunBudget(this.#run.options.budget, queries.usage(lease.runId));
		this.#admission = new RunAdmission(deps.store, lease, this.#tasks, this.#budget);
		this.#workers = new RunWorkers(deps, this.#run, {
			onEvent: (live, event) => this.#onWorkerEvent(live, event),
			onSettled: () => this.#wake(),
			onAsk: (live, question) => this.#questions.ask(live, question),
		});
		this.#slots = this.#slotQueue();
		this.#growth = new RunGrowth(deps.store, lease, this.#tasks, () => {
			this.#slots = this.#slotQueue();
		});
		this.#steering = new RunSteering({
			store: deps.store,
			writes: this.#writes,
			lease,
			live: (taskId) => this.#workers.find(taskId),
			status: (taskId) => {
				const i = this.#tasks.dag.indexOf.get(taskId);
				return i === undefined ? undefined : this.#tasks.status[i];
			},
			onStoreError: (message) => this.#stopAll("shutdown", message),
		});
		this.#questions = new RunQuestions({
			store: deps.store,
			writes: this.#writes,
			lease,
			moved: (taskId, to) => {
				const i = this.#tasks.dag.indexOf.get(taskId);
				if (i !== undefined) this.#tasks.status[i] = to;
				this.#wake();
			},
			onStoreError: (message) => this.#stopAll("shutdown", message),
		});
		this.#integration = new RunIntegration(
			{ store: deps.store, writes: this.#writes, branch: deps.integration },
			lease,
			this.#run,
			this.#tasks,
		);
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
			(i) => satisfiesDependents(this.#tasks.status[i] as TaskStatus),
			(i) =>
				this.#tasks.status[i] === TaskStatus.Queued &&
				!this.#tasks.blocked(i) &&
				!this.#backoffs.has(i) &&
				(this.#driver?.wants(this.#tasks.id(i)) ?? true),
		);
		for (const i of this.#workers.indices()) slots.occupy(i);
		return slots;
	}

	/** Runs until every task has settled or the run stops; returns the run's final status. */
	async execute(): Promise<RunStatus> {
		let released = false;
		const onAbort = () => this.#cancel(errorMessage(this.#signal?.reason ?? "cancelled"));
		this.#signal?.addEventListener("abort", onAbort, { once: true });
		const stopTicker = startTicker(this.#deps.store, this.#writes, this.#lease, this.#deps.options, {
			onCancel: (reason) => this.#cancel(reason),
			onStoreError: (message) => this.#stopAll("shutdown", message),
			onTick: () => {
				if (this.#stopping !== "lease-lost") {
					this.#steering.tick();
					this.#questions.tick();
				}
				if ((this.#stopping && this.#workers.size > 0) || this.#admission.awaiting > 0) this.#wake();
			},
		});
		try {
			this.#checkRuntimes();
			// Queued tasks behind a task that did not complete (after a retry of another) are skipped.
			await this.#writes.batch(() => this.#deps.store.transitionTasks(this.#lease, this.#tasks.skipBlocked()));
			if (this.#signal?.aborted) onAbort();
			await this.#follow();
			this.#driver?.start({
				wake: () => this.#wake(),
				budget: () => this.#budget.view(),
				write: (fn) => this.#writes.write(fn),
			});
			for (;;) {
				const settled = await this.#workers.takeSettled(this.#stopping !== "lease-lost");
				// Settlements and new starts are recorded in one commit; workers start only after it,
				// so no worker ever runs without its attempt on record. The batch runs once the write
				// lock is had, so it runs once.
				const starts = await this.#writes.batch(() => {
					for (const item of settled) this.#commit(item);
					this.#abandonPastDeadline();
					this.#checkDriver();
					if (this.#stopping) return [];
					if (this.#driver) this.#growth.drive(this.#driver);
					this.#admission.admitApproved(this.#slots);
					const filled = this.#fill();
					// Workers whose agents wait for answers count as idle: only a person moves them.
					const asking = this.#questions.asking;
					const idle = this.#workers.size === asking && this.#backoffs.size === 0 && this.#slots.ready === 0;
					this.#admission.markWaiting(idle && filled.length === 0, asking);
					return filled;
				});
				for (const ended of this.#ended.splice(0)) this.#driver?.settled(ended.taskId, ended.status, ended.error);
				for (const start of starts) this.#launch(start);
				const idle = this.#workers.size === 0 && this.#backoffs.size === 0;
				const driven = this.#driver === undefined || this.#driver.outcome !== undefined;
				if (idle && (this.#stopping || (this.#slots.ready === 0 && this.#admission.awaiting === 0 && driven))) {
					if (this.#stopping || !(await this.#resolveConflict())) break;
					continue;
				}
				// Only a person can let the run go on: a runner asked to leave then lets go of it.
				const personOnly = idle && !this.#stopping && this.#slots.ready === 0 && this.#admission.awaiting > 0;
				if (this.#releaseWhenWaiting && personOnly && !this.#driver) {
					released = true;
					break;
				}
				await this.#sleep();
			}
		} catch (error) {
			await this.#shutdown(error);
			throw error;
		} finally {
			stopTicker();
			this.#signal?.removeEventListener("abort", onAbort);
		}
		if (released) {
			await this.#writes.batch(() => this.#deps.store.releaseWaitingRun(this.#lease));
			return RunStatus.Waiting;
		}
		if (this.#stopping === "lease-lost") {
			throw new CrewError(ErrorCode.LeaseLost, `run ${this.#lease.runId} was taken over by another runner`);
		}
		if (this.#stopping === "cancel") await this.#integration.skip();
		else if (!this.#integration.recorded) await this.#integration.integrate(false);
		return await this.#writes.batch(() => this.#finish());
	}

	/**
	 * The run's work is done: its branches are integrated, and a conflict a resolution task may
	 * settle adds that task. Returns whether it did, so the run goes on.
	 */
	async #resolveConflict(): Promise<boolean> {
		const resolution = await this.#integration.integrate(true);
		if (!resolution) return false;
		await this.#writes.batch(() => this.#growth.add(null, [resolution], "integration.resolving"));
		return true;
	}

	#checkRuntimes(): void {
		for (const spec of this.#tasks.specs) this.#deps.runtimes.get(this.#run.options.runtime ?? spec.agent.runtime);
	}

	/** The attempts a dead runner left running elsewhere go on here, each holding its slot. */
	async #follow(): Promise<void> {
		for (const attempt of this.#followed) {
			const index = this.#tasks.dag.indexOf.get(attempt.taskId);
			if (index === undefined) continue;
			const spec = this.#tasks.specs[index] as TaskSpec;
			const runtime = `${ATTACH}${attempt.runtime}`;
			const start = await followedStart(this.#deps, this.#run, { index, spec, attempt, runtime });
			this.#budget.start(index, this.#budget.reservationFor(spec.agent.maxTokens), attempt.usage);
			this.#launch(start);
		}
		if (this.#followed.length > 0) this.#slots = this.#slotQueue();
	}

	/** Records a start for every task that may start now; a spent budget stops the run. */
	#fill(): Start[] {
		const { admitted, spent } = this.#admission.take(this.#slots, new Set(this.#workers.indices()));
		if (spent) this.#stopForBudget(`not started: the budget is spent (${this.#budget.describe()})`);
		return admitted.map((i) => {
			const start = recordStart(this.#deps, this.#lease, this.#run, {
				index: i,
				spec: this.#tasks.specs[i] as TaskSpec,
				model: modelChain((this.#tasks.specs[i] as TaskSpec).agent)[this.#tasks.modelIndex[i] ?? 0],
			});
			this.#tasks.status[i] = TaskStatus.Running;
			this.#tasks.attempts[i] = start.request.attempt;
			return start;
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
		this.#settle(i, live, { ...COMPLETED, result, artifacts });
		const dependents = this.#tasks.waitAlsoFor(
			i,
			planned.tasks.map((t) => t.id),
		);
		this.#growth.add(planner.id, planned.tasks, "plan.expanded", dependents);
	}

	/** A driver that failed stops the run: what runs finishes and is kept, nothing new starts. */
	#checkDriver(): void {
		const outcome = this.#driver?.outcome;
		if (outcome && !outcome.ok && !this.#stopping) this.#drain(`not started: ${outcome.error}`);
	}

	/** Stops the run for its budget: running tasks finish, or are cancelled when the policy is abort. */
	#stopForBudget(message: string): void {
		if (this.#budgetStopped || this.#stopping) return;
		this.#budgetStopped = true;
		this.#admission.budgetSpent();
		if (this.#run.options.failure === FailurePolicy.Abort) this.#stopAll("abort", message);
		else this.#drain(message);
	}

	/** Warns once at 80% of a cap, and stops the run once a cap is reached. */
	#checkBudget(): void {
		if (this.#admission.budgetReached())
			this.#stopForBudget(`not started: the budget is spent (${this.#budget.describe()})`);
	}

	#launch(start: Start): void {
		const stop = this.#stopping ? new StopReason(this.#stopKind(), this.#stopMessage) : undefined;
		this.#workers.launch(start, this.#tasks.specs[start.index] as TaskSpec, stop);
	}

	/**
	 * What a worker reports is recorded as one write, made later, in order, when another process
	 * holds the store's write lock; its failure reaches `#writeFailed`.
	 */
	#onWorkerEvent(live: LiveAttempt, event: WorkerEvent): void {
		if (event.type === "activity" || this.#stopping === "lease-lost") return;
		this.#writes.write(() =>
			recordWorkerEvent(this.#deps.store, this.#lease, live, event, (usage) => {
				this.#budget.report(this.#tasks.dag.indexOf.get(live.request.taskId) ?? -1, usage);
				this.#checkBudget();
			}),
		);
	}

	/** A write failed, or the store stayed locked as long as the lease lasts: the run stops. */
	#writeFailed(error: unknown): void {
		if (isCrewError(error, ErrorCode.LeaseLost))
			this.#stopAll("lease-lost", "the run was taken over by another runner");
		else if (this.#stopping !== "shutdown")
			this.#stopAll("shutdown", `cannot write to the store: ${errorMessage(error)}`);
	}

	#commit({ index: i, live, outcome, artifacts }: Prepared): void {
		this.#workers.release(i);
		this.#slots.release(i);
		if (this.#stopping === "lease-lost") return;
		this.#questions.ended(live, "its attempt ended before the answer reached it");
		const spec = this.#tasks.specs[i] as TaskSpec;
		const judged = judgeAttempt(outcome, spec, {
			stopping: this.#stopping !== undefined,
			problems: (answer) => this.#driver?.check(spec.id, answer) ?? [],
		});
		const result = "result" in judged && judged.result ? { result: judged.result } : {};
		switch (judged.kind) {
			case "cancelled":
				this.#settle(i, live, {
					attemptStatus: "cancelled",
					to: TaskStatus.Cancelled,
					cause: judged.cause,
					error: judged.error,
					artifacts,
				});
				return;
			case "failed":
				this.#fail(i, live, { attemptStatus: judged.attemptStatus, failure: judged.failure, ...result, artifacts });
				return;
			case "planned":
				this.#expand(i, live, judged.result, artifacts);
				return;
			case "not-met":
				this.#settle(i, live, { ...SUPERSEDED, error: judged.error, ...result, artifacts });
				this.#growth.nextPass(this.#tasks.specs[i] as TaskSpec, judged.result.text);
				return;
			case "attention":
				this.#settle(i, live, { ...NEEDS_ATTENTION, error: judged.error, ...result, artifacts });
				this.#slots.complete(i, (d) => this.#tasks.status[d] === TaskStatus.Queued);
				return;
			case "completed":
				this.#complete(i, live, judged.result, artifacts);
		}
	}

	/** A completed attempt; its answer becomes the run's shared file its step names (`output:`) only now. */
	#complete(i: number, live: LiveAttempt, result: WorkerResult, artifacts: ArtifactRecord[]): void {
		const spec = this.#tasks.specs[i] as TaskSpec;
		const shared: ArtifactRecord[] = [];
		try {
			if (spec.output !== undefined)
				shared.push(this.#deps.files.write(this.#run.id, spec.id, `shared/${spec.output}`, "output", result.text));
		} catch (error) {
			const failure = { message: `cannot store the task's files: ${errorMessage(error)}`, retryable: false };
			this.#fail(i, live, { attemptStatus: "failed", failure, result, artifacts });
			return;
		}
		this.#settle(i, live, { ...COMPLETED, result, artifacts: [...artifacts, ...shared] });
		this.#slots.complete(i, (d) => this.#tasks.status[d] === TaskStatus.Queued);
	}

	#settle(i: number, live: LiveAttempt, ending: Ending): void {
		const added = this.#deps.store.settle(this.#lease, settlementOf(this.#tasks.id(i), live.attemptId, ending));
		this.#tasks.status[i] = ending.to;
		if (isTerminalTask(ending.to))
			this.#ended.push({ taskId: this.#tasks.id(i), status: ending.to, error: ending.error });
		this.#budget.settle(i, added);
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
		const { retryPolicy, random } = this.#deps.options;
		const retrying = { retries: this.#run.options.retries, policy: retryPolicy, random };
		const next = this.#tasks.afterFailure(i, failure.retryable && !this.#stopping, retrying);
		if (next.kind !== "fail") {
			const error = retryNote(failure.message, next);
			const queued = { attemptStatus, to: TaskStatus.Queued, cause: "backoff", error, retryable: true } as const;
			this.#settle(i, live, { ...queued, ...(result ? { result } : {}), ...evidence, artifacts });
			this.#backoffs.wait(i, next.kind === "retry" ? next.delayMs : 0, () => {
				if (!this.#stopping) this.#slots.requeue(i);
				this.#wake();
			});
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
			this.#deps.store.transitionTasks(this.#lease, this.#tasks.skipDownstream(i));
			if (policy === FailurePolicy.Drain && !this.#stopping) {
				this.#drain(`not started: task ${spec.id} failed and the run is draining`);
			}
		}
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
		this.#backoffs.clear();
		this.#workers.stopAll(new StopReason(kind, message));
		this.#driver?.stop(message);
		this.#wake();
	}

	/** Running tasks finish and are kept; nothing new starts, no retry waits, the driver stops. */
	#drain(message: string): void {
		this.#stopping = "drain";
		this.#stopMessage = message;
		this.#backoffs.clear();
		this.#driver?.stop(message);
	}

	#stopKind(): StopReason["kind"] {
		return this.#stopping === "drain" || this.#stopping === undefined ? "shutdown" : this.#stopping;
	}

	/** Workers that did not end within the cleanup time are given up: their tasks are cancelled. */
	#abandonPastDeadline(): void {
		if (this.#workers.size === 0 || this.#deps.options.now() < this.#deadline) return;
		for (const [i, live] of this.#workers.abandonAll()) {
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
		await this.#workers.ended(this.#deps.options.cleanupMs);
		this.#writes.close();
		if (leaseLost) return;
		try {
			const abandon = () => this.#deps.store.abandonRun(this.#lease, this.#stopMessage);
			await this.#writes.last(abandon, this.#deps.options.cleanupMs);
		} catch {
			// The caller must see the original error; the run then reads as interrupted once this runner is gone.
		}
	}

	#finish(): RunStatus {
		const cancelling = this.#stopping === "cancel" || this.#stopping === "abort" || this.#stopping === "shutdown";
		const unstarted = this.#stopMessage || "not started: a dependency did not complete";
		this.#deps.store.transitionTasks(this.#lease, this.#tasks.endUnstarted(cancelling, unstarted));
		// Superseded checks were answered by a later pass; a task that needs attention does not hold the run back.
		const counted = this.#tasks.status.filter((s) => s !== TaskStatus.Superseded && s !== TaskStatus.NeedsAttention);
		const { status: final, error } = runOutcome({
			cancelled: this.#stopping === "cancel",
			stopMessage: this.#stopping ? this.#stopMessage : undefined,
			budgetStop: this.#budgetStopped ? `budget: ${this.#budget.describe()}` : undefined,
			firstFailure: this.#firstFailure,
			integration: this.#integration.incomplete(),
			...(this.#driver ? { driven: { outcome: this.#driver.outcome } } : {}),
			open: counted.filter((s) => s !== TaskStatus.Completed).length,
			total: this.#tasks.status.length,
		});
		this.#steering.refuseRest();
		this.#deps.store.finishRun(this.#lease, final, "settle", error);
		return final;
	}
}
