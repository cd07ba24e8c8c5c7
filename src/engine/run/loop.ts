// The run loop: admits ready tasks, starts their workers and records each change until the run ends.

import { RunBudget } from "../../core/budget.js";
import { CrewError, ErrorCode, errorMessage, isCrewError } from "../../core/errors.js";
import type { AttemptRecord, RunRecord } from "../../core/records.js";
import type { SlotQueue } from "../../core/slot-queue.js";
import { RunStatus, TaskStatus } from "../../core/status.js";
import { addUsage } from "../../core/usage.js";
import type { WorkerEvent } from "../../runtimes/worker-runtime.js";
import type { Lease } from "../../store/lease.js";
import { RunChildren } from "../delegation/run-children.js";
import { RunAdmission } from "./admission.js";
import { RunBackoffs } from "./backoffs.js";
import { RunBudgetStop } from "./budget-stop.js";
import { RunCommits } from "./commits.js";
import type { RunLoopDeps } from "./deps.js";
import type { RunDriver } from "./driver.js";
import { foresightFor, type RunForesight } from "./foresight.js";
import { RunGrowth } from "./growth.js";
import { RunIntegration } from "./integration.js";
import type { LiveAttempt } from "./live-attempt.js";
import { runOutcome } from "./outcome.js";
import { RunQuestions } from "./questions.js";
import { ReplayPace } from "./replay-pace.js";
import { RunStarts } from "./starts.js";
import { RunSteering } from "./steering.js";
import { RunStop } from "./stop.js";
import { RunTasks } from "./tasks.js";
import { startTicker } from "./ticker.js";
import { Wakeup } from "./wakeup.js";
import { recordWorkerEvent } from "./worker-events.js";
import { RunWorkers } from "./workers.js";
import { RunWrites } from "./writes.js";

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
	readonly #budgetStop: RunBudgetStop;
	readonly #admission: RunAdmission;
	#slots: SlotQueue;
	readonly #workers: RunWorkers;
	/** Every write this runner makes while it runs goes through here: see `RunWrites`. */
	readonly #writes: RunWrites;
	readonly #backoffs = new RunBackoffs();
	readonly #stop: RunStop;
	readonly #starts: RunStarts;
	/** Records what each ended attempt means: see `RunCommits`. */
	readonly #commits: RunCommits;
	readonly #wakeup = new Wakeup();
	/** Makes the run's tasks as it goes, when a workflow script does. */
	readonly #driver: RunDriver | undefined;
	/** Attempts a dead runner left running elsewhere, followed again rather than run again. */
	readonly #followed: readonly AttemptRecord[];
	/** Return `waiting`, leaving the run waiting without a runner, once only a person can let it go on. */
	readonly #releaseWhenWaiting: boolean;
	readonly #integration: RunIntegration;
	readonly #growth: RunGrowth;
	readonly #steering: RunSteering;
	/** Looks for collisions between tasks' changes while they work; absent outside worktree mode. */
	readonly #foresight: RunForesight | undefined;
	readonly #questions: RunQuestions;
	/** The runs its agents delegated that run now; absent when they may not delegate. */
	readonly #children: RunChildren | undefined;
	/** In a replay, the recorded run's order, which it keeps. */
	readonly #pace: ReplayPace | undefined;

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
		const spent = addUsage(queries.usage(lease.runId), queries.delegations.nested(lease.runId));
		this.#budget = new RunBudget(this.#run.options.budget, spent, deps.onSpend);
		const { delegation } = deps;
		this.#children = delegation
			? new RunChildren({
					...delegation,
					depth: this.#run.options.nested?.depth ?? delegation.depth,
					run: this.#run,
					budget: () => this.#budget.view(),
					spend: (taskId, usage) => this.#budgetStop.report(this.#tasks.dag.indexOf.get(taskId) ?? -1, usage),
				})
			: undefined;
		this.#admission = new RunAdmission(deps.store, lease, this.#tasks, this.#budget);
		this.#workers = new RunWorkers(deps, this.#run, {
			onEvent: (live, event) => this.#onWorkerEvent(live, event),
			onSettled: () => this.#wake(),
			onAsk: (live, question) => this.#questions.ask(live, question),
			delegating: (request) => this.#children?.for(request),
		});
		this.#slots = this.#slotQueue();
		const replay = this.#run.options.replay;
		const pace = {
			tasks: this.#tasks,
			backoffs: () => this.#backoffs.size,
			driven: driver !== undefined,
			cancelled: replay?.cancelled,
			cancel: (reason: string) => this.#stop.cancel(reason),
		};
		this.#pace = replay?.attempts ? new ReplayPace(replay.attempts, replay.live, pace) : undefined;
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
			onStoreError: (message) => this.#stop.all("shutdown", message),
		});
		this.#foresight = foresightFor(this.#run, {
			store: deps.store,
			writes: this.#writes,
			lease,
			tasks: this.#tasks,
			worktrees: deps.worktrees,
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
			onStoreError: (message) => this.#stop.all("shutdown", message),
		});
		this.#integration = new RunIntegration(
			{ store: deps.store, writes: this.#writes, branch: deps.integration },
			lease,
			this.#run,
			this.#tasks,
		);
		const { now, cleanupMs } = deps.options;
		const wake = () => this.#wake();
		this.#stop = new RunStop({ workers: this.#workers, backoffs: this.#backoffs, driver, now, cleanupMs, wake });
		const { failure } = this.#run.options;
		this.#budgetStop = new RunBudgetStop({
			store: deps.store,
			lease,
			budget: this.#budget,
			stop: this.#stop,
			failure,
			onSpent: (why) => this.#children?.stopAll(why),
		});
		this.#starts = new RunStarts({
			...deps,
			lease,
			run: this.#run,
			tasks: this.#tasks,
			budget: this.#budget,
			budgetStop: this.#budgetStop,
			admission: this.#admission,
			workers: this.#workers,
			stop: this.#stop,
			turn: this.#pace?.turn,
		});
		this.#commits = new RunCommits({
			...deps,
			lease,
			run: this.#run,
			tasks: this.#tasks,
			budget: this.#budget,
			backoffs: this.#backoffs,
			growth: this.#growth,
			questions: this.#questions,
			workers: this.#workers,
			stop: this.#stop,
			driver,
			slots: () => this.#slots,
			wake,
			checkBudget: () => this.#budgetStop.check(),
		});
	}

	#slotQueue(): SlotQueue {
		const wanted = (id: string) => this.#driver?.wants(id) ?? true;
		return this.#tasks.slots(this.#run.options, this.#backoffs, wanted, this.#workers.indices());
	}

	/** Runs until every task has settled or the run stops; returns the run's final status. */
	async execute(): Promise<RunStatus> {
		let released = false;
		const onAbort = () => this.#stop.cancel(errorMessage(this.#signal?.reason ?? "cancelled"));
		this.#signal?.addEventListener("abort", onAbort, { once: true });
		const stopTicker = startTicker(this.#deps.store, this.#writes, this.#lease, this.#deps.options, {
			onCancel: (reason) => this.#stop.cancel(reason),
			onStoreError: (message) => this.#stop.all("shutdown", message),
			onTick: () => {
				if (!this.#stop.leaseLost) {
					this.#steering.tick();
					this.#questions.tick();
				}
				if ((this.#stop.kind && this.#workers.size > 0) || this.#admission.awaiting > 0) this.#wake();
			},
		});
		try {
			this.#checkRuntimes();
			// Queued tasks behind a task that did not complete (after a retry of another) are skipped.
			await this.#writes.batch(() => this.#deps.store.transitionTasks(this.#lease, this.#tasks.skipBlocked()));
			if (this.#signal?.aborted) onAbort();
			await this.#starts.follow(this.#followed);
			if (this.#followed.length > 0) this.#slots = this.#slotQueue();
			this.#driver?.start({
				wake: () => this.#wake(),
				budget: () => this.#budget.view(),
				write: (fn) => this.#writes.write(fn),
			});
			for (;;) {
				const settled = [...(this.#pace?.release() ?? []), ...(await this.#workers.takeSettled(!this.#stop.leaseLost))];
				let taken = 0;
				// Settlements and new starts are recorded in one commit; workers start only after it,
				// so no worker ever runs without its attempt on record. The batch runs once the write
				// lock is had, so it runs once.
				const starts = await this.#writes.batch(() => {
					for (const item of settled) {
						if (this.#pace?.holds(item, this.#stop.kind !== undefined)) continue;
						this.#commits.commit(this.#pace?.settle(item) ?? item);
						taken++;
					}
					this.#commits.abandonPastDeadline();
					this.#checkDriver();
					if (this.#stop.kind) return [];
					if (this.#driver) this.#growth.drive(this.#driver);
					this.#admission.admitApproved(this.#slots);
					const filled = this.#starts.fill(this.#slots);
					// Workers whose agents wait for answers count as idle: only a person moves them.
					const asking = this.#questions.asking;
					const idle = this.#workers.size === asking && this.#backoffs.size === 0 && this.#slots.ready === 0;
					this.#admission.markWaiting(idle && filled.length === 0, asking);
					return filled;
				});
				for (const ended of this.#commits.ended.splice(0))
					this.#driver?.settled(ended.taskId, ended.status, ended.error);
				for (const start of starts) this.#starts.launch(start);
				if (this.#pace?.turned(taken > 0 || starts.length > 0, this.#workers.size)) this.#wake();
				const idle = this.#workers.size === 0 && this.#backoffs.size === 0;
				const driven = this.#driver === undefined || this.#driver.outcome !== undefined;
				if (idle && (this.#stop.kind || (this.#slots.ready === 0 && this.#admission.awaiting === 0 && driven))) {
					if (this.#stop.kind || !(await this.#resolveConflict())) break;
					continue;
				}
				// Only a person can let the run go on: a runner asked to leave then lets go of it.
				const personOnly = idle && !this.#stop.kind && this.#slots.ready === 0 && this.#admission.awaiting > 0;
				if (this.#releaseWhenWaiting && personOnly && !this.#driver) {
					released = true;
					break;
				}
				await this.#wakeup.sleep();
			}
		} catch (error) {
			await this.#shutdown(error);
			throw error;
		} finally {
			stopTicker();
			this.#signal?.removeEventListener("abort", onAbort);
		}
		await this.#foresight?.close(!this.#stop.leaseLost);
		if (released) {
			await this.#writes.batch(() => this.#deps.store.releaseWaitingRun(this.#lease));
			return RunStatus.Waiting;
		}
		if (this.#stop.leaseLost) {
			throw new CrewError(ErrorCode.LeaseLost, `run ${this.#lease.runId} was taken over by another runner`);
		}
		// A failure or the budget may have stopped the run first, as it had the recorded run before its cancel.
		if (this.#stop.kind !== "shutdown") this.#pace?.ended();
		if (this.#stop.kind === "cancel") await this.#integration.skip();
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

	/** A driver that failed stops the run: what runs finishes and is kept, nothing new starts. */
	#checkDriver(): void {
		const outcome = this.#driver?.outcome;
		if (outcome && !outcome.ok && !this.#stop.kind) this.#stop.drain(`not started: ${outcome.error}`);
	}

	/**
	 * What a worker reports is recorded as one write, made later, in order, when another process
	 * holds the store's write lock; its failure reaches `#writeFailed`.
	 */
	#onWorkerEvent(live: LiveAttempt, event: WorkerEvent): void {
		if (event.type === "activity" || this.#stop.leaseLost) return;
		if (event.type === "tool-end" || event.type === "output" || event.type === "commit") {
			this.#foresight?.changed(live.request.taskId);
		}
		this.#writes.write(() =>
			recordWorkerEvent(this.#deps.store, this.#lease, live, event, (usage) =>
				this.#budgetStop.report(this.#tasks.dag.indexOf.get(live.request.taskId) ?? -1, usage),
			),
		);
	}

	/** A write failed, or the store stayed locked as long as the lease lasts: the run stops. */
	#writeFailed(error: unknown): void {
		if (isCrewError(error, ErrorCode.LeaseLost))
			this.#stop.all("lease-lost", "the run was taken over by another runner");
		else if (this.#stop.kind !== "shutdown")
			this.#stop.all("shutdown", `cannot write to the store: ${errorMessage(error)}`);
	}

	#wake(): void {
		this.#wakeup.wake();
	}

	/**
	 * After an error in the loop itself: end every worker, then record the run as failed from what
	 * the store holds (a failed batch leaves this runner's memory ahead of the store).
	 */
	async #shutdown(error: unknown): Promise<void> {
		await this.#foresight?.close(false);
		const leaseLost = this.#stop.leaseLost || isCrewError(error, ErrorCode.LeaseLost);
		this.#stop.all(leaseLost ? "lease-lost" : "shutdown", `runner error: ${errorMessage(error)}`);
		await this.#workers.ended(this.#deps.options.cleanupMs);
		this.#writes.close();
		if (leaseLost) return;
		try {
			const abandon = () => this.#deps.store.abandonRun(this.#lease, this.#stop.message);
			await this.#writes.last(abandon, this.#deps.options.cleanupMs);
		} catch {
			// The caller must see the original error; the run then reads as interrupted once this runner is gone.
		}
	}

	#finish(): RunStatus {
		const cancelling = this.#stop.kind === "cancel" || this.#stop.kind === "abort" || this.#stop.kind === "shutdown";
		const replayed = this.#run.options.replay?.of;
		const unstarted =
			this.#stop.message ||
			(replayed ? `not started: run ${replayed} never started it` : "not started: a dependency did not complete");
		this.#deps.store.transitionTasks(this.#lease, this.#tasks.endUnstarted(cancelling, unstarted));
		// Superseded checks were answered by a later pass; a task that needs attention does not hold the run back.
		const counted = this.#tasks.status.filter((s) => s !== TaskStatus.Superseded && s !== TaskStatus.NeedsAttention);
		const { status: final, error } = runOutcome({
			cancelled: this.#stop.kind === "cancel",
			stopMessage: this.#stop.kind ? this.#stop.message : undefined,
			budgetStop: this.#budgetStop.error,
			firstFailure: this.#commits.firstFailure,
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
