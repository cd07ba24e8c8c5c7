// The run store's writes: runs, tasks, leases, approvals and events, each change one IMMEDIATE transaction.

import type { BudgetLimits } from "../core/budget.js";
import { CrewError, ErrorCode } from "../core/errors.js";
import type { ArtifactRecord, EventRecord, ParentLink } from "../core/records.js";
import { redact, redactDeep, redactOptional, redactTask } from "../core/redact.js";
import { frozenEvents } from "../core/spec-contract.js";
import {
	type Cause,
	checkRunTransition,
	checkTaskTransition,
	isTerminalRun,
	isTerminalTask,
	RunStatus,
	type TaskStatus,
} from "../core/status.js";
import { storedOptions } from "../core/stored-options.js";
import type { TaskSpec } from "../core/types.js";
import type { Db } from "./database.js";
import { isLeaseHolderAlive, type Lease } from "./lease.js";
import { RunAttempts } from "./run-attempts.js";
import type { LeaseOptions, NewRun, TaskChange } from "./run-changes.js";
import { RunForks } from "./run-forks.js";
import { RunIntegrations } from "./run-integrations.js";
import { RunQueries } from "./run-queries.js";
import { type RunStatements, runStatements } from "./run-statements.js";
import { ScriptMail } from "./script-mail.js";
import { TaskMessages } from "./task-messages.js";
import { TaskQuestions } from "./task-questions.js";
import { Transactions } from "./transactions.js";
import { UsageRecords } from "./usage-records.js";
import { ViewRows } from "./view-rows.js";

/**
 * The run store's writes. Each method is one IMMEDIATE transaction; the ones a runner makes are
 * fenced by its lease epoch, so a runner whose lease was taken over cannot write.
 */
export class RunStore {
	readonly queries: RunQueries;
	readonly #now: () => number;
	readonly #s: RunStatements;
	readonly #usage: UsageRecords;
	readonly #rows: ViewRows;
	readonly #tx: Transactions;
	/** Messages for running agents; questions they ask a person; mail of workflow scripts. */
	readonly messages: TaskMessages;
	readonly questions: TaskQuestions;
	readonly mail: ScriptMail;
	readonly forks: RunForks;
	/** Each task's attempts: started, reported on, ended. */
	readonly attempts: RunAttempts;
	/** The run's integration, and collisions foreseen before it. */
	readonly integrations: RunIntegrations;

	/** `onEvent` hears every event this store writes, after its transaction commits. */
	constructor(db: Db, options: { now?: () => number; onEvent?: (runId: string, event: EventRecord) => void } = {}) {
		this.#now = options.now ?? Date.now;
		this.#tx = new Transactions(db, options.onEvent);
		this.queries = new RunQueries(db);
		this.#s = runStatements(db);
		this.#usage = new UsageRecords(db);
		this.#rows = new ViewRows(db);
		const writes = {
			write: <T>(fn: () => T) => this.#tx.write(fn),
			event: (runId: string, type: string, taskId: string | null, data: Record<string, unknown>) =>
				this.#event(runId, type, taskId, data),
			fence: (lease: Lease) => this.#fence(lease),
			time: () => this.#iso(),
		};
		this.messages = new TaskMessages(db, writes);
		this.mail = new ScriptMail(db, writes);
		this.integrations = new RunIntegrations(db, writes);
		this.forks = new RunForks(db, {
			...writes,
			move: (runId, taskId, to, cause) => this.#moveTask(runId, { taskId, to, cause, error: null }),
		});
		this.attempts = new RunAttempts(
			{
				...writes,
				move: (runId, change) => this.#moveTask(runId, change),
				artifact: (runId, artifact) => this.#artifact(runId, artifact),
			},
			this.#s,
			this.#usage,
		);
		this.questions = new TaskQuestions(db, {
			...writes,
			// A task asks while it runs, and runs again when its agent has the answer.
			move: (runId, taskId, to, error) =>
				this.#moveTask(runId, { taskId, to, cause: to === "waiting" ? "ask" : "dispatch", error }),
		});
	}

	#iso(): string {
		return new Date(this.#now()).toISOString();
	}

	/**
	 * Run `runId`, just created and not started, was delegated by `parent`'s agent, asking what `key`
	 * names: recorded on both runs, as `run.delegated` on it and `task.delegated` on its parent.
	 */
	recordDelegation(runId: string, parent: ParentLink, key: string): void {
		this.#tx.write(() => {
			this.#s.delegated.run(parent.runId, parent.taskId, parent.attempt, key, runId);
			this.#event(runId, "run.delegated", null, { ...parent });
			this.#event(parent.runId, "task.delegated", parent.taskId, { runId, attempt: parent.attempt });
		});
	}

	/** Groups changes into one commit, each still whole or not at all: a busy run's per-task cost stays low. */
	batch<T>(fn: () => T): T {
		return this.#tx.write(fn);
	}

	/** `batch`, waiting at most `waitMs` for another connection's write lock: undefined, `fn` not called, while held. */
	tryBatch<T>(fn: () => T, waitMs: number): { readonly value: T } | undefined {
		return this.#tx.tryWrite(fn, waitMs);
	}

	#fence(lease: Lease): void {
		const row = this.#s.epoch.get(lease.runId);
		if (!row) throw new CrewError(ErrorCode.NotFound, `no run '${lease.runId}'`);
		if (row.epoch !== lease.epoch) {
			throw new CrewError(
				ErrorCode.LeaseLost,
				`run ${lease.runId} was taken over by another runner (epoch ${row.epoch}, this runner holds ${lease.epoch})`,
			);
		}
	}

	#event(runId: string, type: string, taskId: string | null, data: Record<string, unknown>): number {
		const time = this.#iso();
		const seq = (this.#s.nextSeq.get(time, runId) as { last_seq: number }).last_seq;
		const kept = redactDeep(data);
		this.#s.event.run(runId, seq, time, type, taskId, JSON.stringify(kept));
		if (taskId !== null) this.#rows.event(runId, seq, taskId, { type, data: kept });
		this.#tx.heard(runId, { seq, time, type, taskId, data: kept });
		return seq;
	}

	#moveTask(runId: string, change: TaskChange): void {
		const row = this.#s.taskStatus.get(runId, change.taskId);
		if (!row) throw new CrewError(ErrorCode.NotFound, `run ${runId} has no task '${change.taskId}'`);
		checkTaskTransition(change.taskId, row.status as TaskStatus, change.to, change.cause);
		const terminal = isTerminalTask(change.to);
		this.#s.moveTask.run(change.to, terminal ? this.#iso() : null, redactOptional(change.error), runId, change.taskId);
		this.#event(runId, `task.${change.to}`, change.taskId, {
			from: row.status,
			cause: change.cause,
			...(change.error ? { error: change.error } : {}),
		});
		// A task that has ended waits for no answer, whichever way it ended.
		if (terminal) this.questions.withdrawAsked(runId, change.taskId, `task ${change.taskId} is ${change.to}`);
	}

	#moveRun(runId: string, to: RunStatus, cause: Cause, error: string | null, data: Record<string, unknown> = {}): void {
		const row = this.#s.runStatus.get(runId);
		if (!row) throw new CrewError(ErrorCode.NotFound, `no run '${runId}'`);
		checkRunTransition(runId, row.status as RunStatus, to, cause);
		const terminal = isTerminalRun(to);
		this.#s.moveRun.run(to, this.#iso(), terminal ? this.#iso() : null, redactOptional(error), runId);
		this.#event(runId, `run.${to}`, null, { from: row.status, cause, ...(error ? { error } : {}), ...data });
	}

	/**
	 * Records a new run, the specs frozen into its tasks first (see `RunQueries.requirements`). Goal
	 * and task texts are stored redacted, so prompts never carry secrets; options as `storedOptions`
	 * keeps them; command lines as the resource files wrote them, since they must run.
	 */
	createRun(given: NewRun): void {
		const run = {
			...given,
			goal: redact(given.goal),
			tasks: given.tasks.map((t) => redactTask(t)),
			options: storedOptions(given.options),
		};
		this.#tx.write(() => {
			const time = this.#iso();
			this.#s.insertRun.run(run.id, run.goal, run.team, run.workflow, JSON.stringify(run.options), time, time);
			for (const [idx, task] of run.tasks.entries()) {
				this.#s.insertTask.run(run.id, idx, task.id, task.stepId, task.role);
				this.#usage.role(run.id, task.role);
				this.#s.insertTaskData.run(run.id, task.id, JSON.stringify(task));
				for (const e of frozenEvents(task.specs)) this.#event(run.id, e.type, task.id, e.data);
			}
			const created = { goal: run.goal, team: run.team, workflow: run.workflow, tasks: run.tasks.length };
			this.#rows.created(run.id, this.#event(run.id, "run.created", null, created));
		});
	}

	/**
	 * Claims the run for this process. Fails with LEASE_HELD while another live runner holds it; a
	 * run whose runner is gone is first recorded as interrupted.
	 */
	acquireLease(runId: string, options: LeaseOptions): Lease {
		return this.#tx.write(() => {
			const run = this.queries.getRun(runId);
			const active = run.status === RunStatus.Running || run.status === RunStatus.Waiting;
			if (run.lease && active) {
				if (isLeaseHolderAlive(run.lease, this.#now(), options.staleAfterMs)) {
					throw new CrewError(
						ErrorCode.LeaseHeld,
						`run ${runId} is already being run by pid ${run.lease.pid} on ${run.lease.host}`,
					);
				}
				this.#moveRun(runId, RunStatus.Interrupted, "runner-lost", `runner pid ${run.lease.pid} is gone`);
			}
			const { holder } = options;
			const epoch = (
				this.#s.takeLease.get(holder.pid, holder.host, holder.startTime, this.#now(), runId) as {
					epoch: number;
				}
			).epoch;
			this.#moveRun(runId, RunStatus.Running, options.cause, null, { epoch, pid: holder.pid, host: holder.host });
			return { runId, epoch };
		});
	}

	heartbeat(lease: Lease): void {
		const changed = this.#s.heartbeat.run(this.#now(), lease.runId, lease.epoch).changes;
		if (changed === 0) this.#tx.write(() => this.#fence(lease));
	}

	/** Asks the run's runner to cancel; returns false when the run had already ended. */
	requestCancel(runId: string, reason: string): boolean {
		return this.#tx.write(() => {
			const run = this.queries.getRun(runId);
			if (isTerminalRun(run.status) && run.status !== RunStatus.Interrupted) return false;
			this.#s.cancelRequest.run(reason, runId);
			this.#event(runId, "run.cancel-requested", null, { reason });
			return true;
		});
	}

	/** Sets the run's budget caps, from any process; the event keeps the caps before and after. */
	setBudget(runId: string, budget: BudgetLimits): void {
		this.#tx.write(() => {
			const before = this.queries.getRun(runId).options.budget ?? {};
			this.#s.setBudget.run(JSON.stringify(budget), runId);
			this.#event(runId, "run.budget-changed", null, { from: before, to: budget });
		});
	}

	cancelRequested(runId: string): string | null {
		return this.#s.cancelRequested.get(runId)?.cancel_requested ?? null;
	}

	/**
	 * Adds a planner's tasks to its running run, after the tasks already there, and makes the
	 * planner's dependents wait for them too: all in the caller's transaction with the planner's
	 * completion, so a plan is either wholly in the run or not at all. A workflow script's new tasks
	 * (with the specs frozen into them) come the same way, without a planner. A task the run already
	 * has is left as it is.
	 */
	expandRun(
		lease: Lease,
		plannerId: string | null,
		tasks: readonly TaskSpec[],
		dependents: readonly { readonly taskId: string; readonly dependsOn: readonly string[] }[],
		eventType = "plan.expanded",
	): void {
		this.#tx.write(() => {
			this.#fence(lease);
			let idx = this.#s.nextIdx.get(lease.runId)?.next ?? 0;
			const added: string[] = [];
			for (const task of tasks) {
				if (this.#s.taskStatus.get(lease.runId, task.id)) continue;
				this.#s.insertTask.run(lease.runId, idx++, task.id, task.stepId, task.role);
				this.#usage.role(lease.runId, task.role);
				this.#s.insertTaskData.run(lease.runId, task.id, JSON.stringify(redactTask(task)));
				for (const e of frozenEvents(task.specs)) this.#event(lease.runId, e.type, task.id, e.data);
				added.push(task.id);
			}
			for (const d of dependents) this.#s.setDependsOn.run(JSON.stringify(d.dependsOn), lease.runId, d.taskId);
			const changed = dependents.map((d) => d.taskId);
			const seq = this.#event(lease.runId, eventType, plannerId, { tasks: added, dependents: changed });
			this.#rows.specs(lease.runId, seq, [...added, ...changed]);
		});
	}

	/**
	 * Approves every task of the run that waits for approval, from any process; the runner (or
	 * the next one) lets them start. Returns their ids.
	 */
	approve(runId: string): string[] {
		return this.#tx.write(() => {
			const waiting = this.#s.waitingTasks.all(runId).map((row) => row.id);
			if (waiting.length === 0) return [];
			this.#s.approveTasks.run(this.#iso(), runId);
			this.#rows.touch(runId, this.#event(runId, "approval.granted", null, { tasks: waiting }), waiting);
			return waiting;
		});
	}

	/** A task reached its approval gate: it waits, and the event says what awaits approval. */
	awaitApproval(lease: Lease, taskId: string, what: string): void {
		this.#tx.write(() => {
			this.#fence(lease);
			this.#moveTask(lease.runId, { taskId, to: "waiting", cause: "dispatch", error: what });
			this.#event(lease.runId, "approval.requested", taskId, { what });
		});
	}

	/** The run has nothing to do but wait for approval (`waiting`), or has work again (`running`). */
	setWaiting(lease: Lease, waiting: boolean): void {
		this.#tx.write(() => {
			this.#fence(lease);
			const from = this.#s.runStatus.get(lease.runId)?.status;
			const to = waiting ? RunStatus.Waiting : RunStatus.Running;
			if (from !== to) this.#moveRun(lease.runId, to, "dispatch", null);
		});
	}

	transitionTasks(lease: Lease, changes: readonly TaskChange[]): void {
		if (changes.length === 0) return;
		this.#tx.write(() => {
			this.#fence(lease);
			for (const change of changes) this.#moveTask(lease.runId, change);
		});
	}

	/**
	 * Lets go of a run that waits for a person, leaving it `waiting`: whoever approves starts a
	 * runner for it, as for a run whose runner is gone.
	 */
	releaseWaitingRun(lease: Lease): void {
		this.#tx.write(() => {
			this.#fence(lease);
			this.#s.releaseLease.run(lease.runId);
		});
	}

	finishRun(lease: Lease, to: RunStatus, cause: Cause, error: string | null = null): void {
		this.#tx.write(() => {
			this.#fence(lease);
			this.#moveRun(lease.runId, to, cause, error);
			this.#s.releaseLease.run(lease.runId);
		});
	}

	/**
	 * Ends a run that has no live runner (e.g. cancel of an interrupted run), without a lease. Fails
	 * with CONFLICT when a runner took the run since `epoch` was read.
	 */
	finishOrphanedRun(
		runId: string,
		epoch: number,
		to: RunStatus,
		cause: Cause,
		changes: readonly TaskChange[],
		error: string,
	): void {
		this.#tx.write(() => {
			if (this.#s.epoch.get(runId)?.epoch !== epoch)
				throw new CrewError(ErrorCode.Conflict, `run ${runId} was just taken by a runner`);
			for (const change of changes) this.#moveTask(runId, change);
			this.#s.loseAllAttempts.run(this.#iso(), redactOptional(error), runId);
			this.#moveRun(runId, to, cause, error);
			// A runner that read the run before this change must not take it afterwards.
			this.#s.bumpEpoch.run(runId);
			this.#s.releaseLease.run(runId);
		});
	}

	/**
	 * Ends a run its runner cannot carry on: open attempts are marked lost, unfinished tasks
	 * cancelled with `error`, and the run failed, all in one transaction, reading state from the
	 * store rather than from the runner's memory.
	 */
	abandonRun(lease: Lease, error: string): void {
		this.#tx.write(() => {
			this.#fence(lease);
			this.#s.loseAllAttempts.run(this.#iso(), redactOptional(error), lease.runId);
			for (const task of this.queries.listTasks(lease.runId)) {
				if (task.status === "queued" || task.status === "running" || task.status === "waiting")
					this.#moveTask(lease.runId, { taskId: task.id, to: "cancelled", cause: "cancel", error });
			}
			this.#moveRun(lease.runId, RunStatus.Failed, "settle", error);
			this.#s.releaseLease.run(lease.runId);
		});
	}

	appendEvent(lease: Lease, type: string, taskId: string | null, data: Record<string, unknown>): number {
		return this.#tx.write(() => {
			this.#fence(lease);
			return this.#event(lease.runId, type, taskId, data);
		});
	}

	recordArtifacts(lease: Lease, artifacts: readonly ArtifactRecord[]): void {
		this.#tx.write(() => {
			this.#fence(lease);
			for (const artifact of artifacts) this.#artifact(lease.runId, artifact);
		});
	}

	#artifact(runId: string, a: ArtifactRecord): void {
		this.#s.artifact.run(runId, a.path, a.taskId, a.kind, a.size, a.sha256, a.createdAt);
	}
}
