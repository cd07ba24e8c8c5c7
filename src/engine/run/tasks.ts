// A run's task table as its runner holds it: specs, graph, statuses, attempts, model fallbacks and skips.

import { buildDag, type Dag } from "../../core/dag.js";
import { downstreamOf } from "../../core/ready-queue.js";
import { type RetryDecision, type RetryPolicy, retryDecision } from "../../core/retry-policy.js";
import { type SlotLimits, SlotQueue } from "../../core/slot-queue.js";
import { satisfiesDependents, TaskStatus } from "../../core/status.js";
import type { AgentSpec, TaskSpec } from "../../core/types.js";
import type { TaskChange } from "../../store/run-changes.js";
import type { RunBackoffs } from "./backoffs.js";

/**
 * A run's task table as its runner holds it, by task index: specs, graph, statuses, attempt counts
 * and places in each agent's model chain. It grows when a planner or an `--until` pass adds tasks.
 */
export class RunTasks {
	readonly specs: TaskSpec[];
	dag: Dag;
	readonly status: TaskStatus[];
	readonly attempts: number[];
	/** Attempts each task had when this runner took the run: retry budgets count from here. */
	readonly baseAttempts: number[];
	/** Each task's place in its agent's model chain ([model, ...fallbackModels]) for its next attempt. */
	readonly modelIndex: number[];
	readonly #runId: string;

	constructor(runId: string, specs: TaskSpec[], records: readonly { status: TaskStatus; attempts: number }[]) {
		this.#runId = runId;
		this.specs = specs;
		this.dag = buildDag(specs, `run ${runId}`);
		this.status = records.map((t) => t.status);
		this.attempts = records.map((t) => t.attempts);
		this.baseAttempts = [...this.attempts];
		this.modelIndex = records.map(() => 0);
	}

	id(i: number): string {
		return this.dag.ids[i] as string;
	}

	/** Whether a dependency of task `i` ended without completing, so it cannot run. */
	blocked(i: number): boolean {
		return (this.dag.dependencies[i] ?? []).some((d) => {
			const s = this.status[d];
			return (
				s === TaskStatus.Failed ||
				s === TaskStatus.Cancelled ||
				s === TaskStatus.Skipped ||
				s === TaskStatus.Interrupted
			);
		});
	}

	/** Queued tasks behind a task that did not complete are skipped: their changes to record. */
	skipBlocked(): TaskChange[] {
		// In graph order, so a task skipped here blocks its own dependents in turn.
		return this.#skip(this.dag.order, (i) => this.blocked(i), "a dependency did not complete");
	}

	/** Queued tasks downstream of failed task `i` are skipped: their changes to record. */
	skipDownstream(i: number): TaskChange[] {
		return this.#skip(downstreamOf(this.dag, i), () => true, `dependency ${this.id(i)} failed`);
	}

	#skip(indices: Iterable<number>, when: (i: number) => boolean, error: string): TaskChange[] {
		const changes: TaskChange[] = [];
		for (const i of indices) {
			if (this.status[i] !== TaskStatus.Queued || !when(i)) continue;
			this.status[i] = TaskStatus.Skipped;
			changes.push({ taskId: this.id(i), to: TaskStatus.Skipped, cause: "dependency-failed", error });
		}
		return changes;
	}

	/**
	 * Tasks a driver asks for again: those that ended without an outcome of their own (interrupted,
	 * cancelled) queue up; completed and failed ones keep it. Returns the changes to record.
	 */
	claim(ids: readonly string[]): TaskChange[] {
		const changes: TaskChange[] = [];
		const again: readonly TaskStatus[] = [TaskStatus.Interrupted, TaskStatus.Cancelled, TaskStatus.Skipped];
		for (const id of ids) {
			const i = this.dag.indexOf.get(id);
			if (i === undefined || !again.includes(this.status[i] as TaskStatus)) continue;
			this.status[i] = TaskStatus.Queued;
			changes.push({ taskId: id, to: TaskStatus.Queued, cause: "resume" });
		}
		return changes;
	}

	/** Tasks that never started end: cancelled when the run is, else skipped. Returns the changes to record. */
	endUnstarted(cancelled: boolean, error: string): TaskChange[] {
		const to = cancelled ? TaskStatus.Cancelled : TaskStatus.Skipped;
		const changes: TaskChange[] = [];
		for (let i = 0; i < this.status.length; i++) {
			if (this.status[i] !== TaskStatus.Queued && this.status[i] !== TaskStatus.Waiting) continue;
			this.status[i] = to;
			changes.push({ taskId: this.id(i), to, cause: cancelled ? "cancel" : "drain", error });
		}
		return changes;
	}

	/**
	 * The slots over the current graph, under the run's limits: tasks in `running` hold theirs;
	 * a queued task may start once its dependencies allow, unless it waits out a retry's backoff
	 * or is one a script does not want yet.
	 */
	slots(
		limits: SlotLimits,
		backoffs: RunBackoffs,
		wanted: (taskId: string) => boolean,
		running: Iterable<number>,
	): SlotQueue {
		const slots = new SlotQueue(
			this.dag,
			this.specs.map((spec) => spec.role),
			limits,
			(i) => satisfiesDependents(this.status[i] as TaskStatus),
			(i) => this.status[i] === TaskStatus.Queued && !this.blocked(i) && !backoffs.has(i) && wanted(this.id(i)),
		);
		for (const i of running) slots.occupy(i);
		return slots;
	}

	/** Task `i`'s retries count from its next attempt, as they do after a resume. */
	countAfresh(i: number): void {
		this.baseAttempts[i] = this.attempts[i] ?? 0;
	}

	/**
	 * What follows a failed attempt of task `i`: its agent's next fallback model at once when the
	 * failure is `retryable` and one is left (not counted against the retries, and the task moves
	 * on to it), else a retry after a backoff when retryable and allowed, else failure.
	 */
	afterFailure(
		i: number,
		retryable: boolean,
		options: { readonly retries: number; readonly policy: RetryPolicy; readonly random: () => number },
	): RetryDecision {
		const spec = this.specs[i] as TaskSpec;
		const modelIndex = this.modelIndex[i] ?? 0;
		const next = retryDecision({
			retryable,
			fallback: modelChain(spec.agent)[modelIndex + 1],
			used: (this.attempts[i] ?? 1) - (this.baseAttempts[i] ?? 0) - modelIndex,
			allowed: spec.retries ?? options.retries,
			policy: options.policy,
			random: options.random,
		});
		if (next.kind === "fallback") this.modelIndex[i] = modelIndex + 1;
		return next;
	}

	/** Task `i`'s dependents wait for `ids` too; returns their new dependencies, to record. */
	waitAlsoFor(i: number, ids: readonly string[]): { taskId: string; dependsOn: readonly string[] }[] {
		return (this.dag.dependents[i] ?? []).map((d) => {
			const spec = this.specs[d] as TaskSpec;
			const dependsOn = [...spec.dependsOn, ...ids];
			this.specs[d] = { ...spec, dependsOn };
			return { taskId: spec.id, dependsOn };
		});
	}

	/** The tasks of `specs` the run does not have yet: adding a task twice is a no-op. */
	newOnes(specs: readonly TaskSpec[]): TaskSpec[] {
		return specs.filter((spec) => !this.dag.indexOf.has(spec.id));
	}

	/** New queued tasks after the ones there (see `newOnes`); the graph is rebuilt. */
	add(added: readonly TaskSpec[]): void {
		for (const spec of added) {
			this.specs.push(spec);
			this.status.push(TaskStatus.Queued);
			this.attempts.push(0);
			this.baseAttempts.push(0);
			this.modelIndex.push(0);
		}
		this.dag = buildDag(this.specs, `run ${this.#runId}`);
	}
}

/** The models an agent's attempts go through: its model, then its fallbacks in order. */
export function modelChain(agent: AgentSpec): readonly string[] {
	return agent.model ? [agent.model, ...(agent.fallbackModels ?? [])] : [];
}
