// Which ready tasks may start now: approval gates, unanswered questions, overlapping write scopes and budget.

import type { RunBudget } from "../../core/budget.js";
import type { SlotQueue } from "../../core/slot-queue.js";
import { TaskStatus } from "../../core/status.js";
import type { TaskSpec } from "../../core/types.js";
import { scopesOverlap } from "../../core/write-scopes.js";
import type { Lease } from "../../store/lease.js";
import type { TaskChange } from "../../store/run-changes.js";
import type { RunStore } from "../../store/run-store.js";
import type { ReplayTurn } from "./replay-order.js";
import type { RunTasks } from "./tasks.js";

/**
 * Which ready tasks may start now, beyond free slots: a task waits at its approval gate until a
 * person approves it, for the answer to a question its agent asked under a runner that was lost
 * (asked once, never again), for running tasks whose write scopes it overlaps, and for its budget
 * reservation to fit.
 */
export class RunAdmission {
	readonly #store: RunStore;
	readonly #lease: Lease;
	readonly #tasks: RunTasks;
	readonly #budget: RunBudget;
	/** Tasks at their approval gate. */
	readonly #awaiting = new Set<number>();
	/** Tasks whose earlier attempt's question waits for an answer. */
	readonly #answering = new Set<number>();
	/** Whether the run is recorded as waiting for approval. */
	#waiting = false;

	constructor(store: RunStore, lease: Lease, tasks: RunTasks, budget: RunBudget) {
		this.#store = store;
		this.#lease = lease;
		this.#tasks = tasks;
		this.#budget = budget;
	}

	/** Tasks waiting for approval, or for an answer, before they start. */
	get awaiting(): number {
		return this.#awaiting.size + this.#answering.size;
	}

	/**
	 * Takes every task that may start now, reserving its budget; `spent` when a task's reservation
	 * does not fit and nothing runs that could free it: the budget is spent.
	 */
	take(
		slots: SlotQueue,
		running: ReadonlySet<number>,
		turn?: (i: number, alone: boolean) => ReplayTurn,
	): { admitted: number[]; spent: boolean } {
		const admitted: number[] = [];
		// Tasks whose write scopes overlap a running task's, or whose turn in a replay has not come,
		// put back once this turn is filled.
		const deferred: number[] = [];
		let spent = false;
		for (;;) {
			const i = slots.take((t) => this.#tasks.status[t] === TaskStatus.Queued);
			if (i === undefined) break;
			const spec = this.#tasks.specs[i] as TaskSpec;
			const replayed = turn?.(i, running.size === 0 && admitted.length === 0) ?? "now";
			if (replayed !== "now") {
				// A replay never starts what the recorded run never started: it stays queued, and ends unstarted.
				slots.release(i);
				if (replayed === "later") deferred.push(i);
				continue;
			}
			if (spec.approval && !this.#store.queries.isApproved(this.#lease.runId, spec.id)) {
				slots.release(i);
				const { runId } = this.#lease;
				const what = `waits for approval: crew approve ${runId} (or crew reject ${runId} --reason …)`;
				this.#store.awaitApproval(this.#lease, spec.id, what);
				this.#tasks.status[i] = TaskStatus.Waiting;
				this.#awaiting.add(i);
				continue;
			}
			const asked = this.#store.questions.open(this.#lease.runId, spec.id).find((q) => q.state === "asked");
			if (asked) {
				slots.release(i);
				this.#store.questions.wait(this.#lease, spec.id, asked);
				this.#tasks.status[i] = TaskStatus.Waiting;
				this.#answering.add(i);
				continue;
			}
			if (this.#clashes(spec, [...running, ...admitted])) {
				slots.release(i);
				deferred.push(i);
				continue;
			}
			const reservation = this.#budget.reservationFor(spec.agent.maxTokens);
			if (this.#budget.limited && !this.#budget.fits(reservation)) {
				slots.release(i);
				slots.requeue(i);
				spent = admitted.length === 0 && running.size === 0;
				break;
			}
			this.#budget.start(i, reservation);
			admitted.push(i);
		}
		for (const i of deferred) slots.requeue(i);
		return { admitted, spent };
	}

	/** Whether a task in the shared checkout would write where a busy one writes. */
	#clashes(spec: TaskSpec, busy: readonly number[]): boolean {
		if (!spec.writes || spec.worktree) return false;
		return busy.some((b) => {
			const other = this.#tasks.specs[b];
			return other?.writes !== undefined && !other.worktree && scopesOverlap(spec.writes ?? [], other.writes);
		});
	}

	/** Approved tasks leave their gate and queue up, as do tasks whose questions have answers. */
	admitApproved(slots: SlotQueue): void {
		const ids = this.#awaiting.size === 0 ? [] : this.#store.queries.approvedWaiting(this.#lease.runId);
		const released = ids.flatMap((id) => {
			const i = this.#tasks.dag.indexOf.get(id);
			return i !== undefined && this.#awaiting.delete(i) ? [i] : [];
		});
		for (const i of this.#answering) {
			const open = this.#store.questions.open(this.#lease.runId, this.#tasks.id(i));
			if (open.some((q) => q.state === "asked")) continue;
			this.#answering.delete(i);
			released.push(i);
		}
		const changes: TaskChange[] = released.map((i) => {
			this.#tasks.status[i] = TaskStatus.Queued;
			slots.requeue(i);
			return { taskId: this.#tasks.id(i), to: TaskStatus.Queued, cause: "dispatch" };
		});
		this.#store.transitionTasks(this.#lease, changes);
	}

	/**
	 * The run reads `waiting` while a person is all it waits for (`idle`: nothing else is going;
	 * `asking`: live attempts wait for answers), and `running` again after.
	 */
	markWaiting(idle: boolean, asking: number): void {
		const waiting = this.awaiting + asking > 0 && idle;
		if (waiting === this.#waiting) return;
		this.#store.setWaiting(this.#lease, waiting);
		this.#waiting = waiting;
	}
}
