// A replay runner's pace: attempts start and end only when their turn in the recorded run has come.

import { isTerminalTask, TaskStatus } from "../../core/status.js";
import type { ReplayedAttempt } from "../../core/types.js";
import type { Prepared } from "./live-attempt.js";
import { type Happened, ReplayOrder, type ReplayTurn } from "./replay-order.js";
import { StopReason } from "./stop-reason.js";
import type { RunTasks } from "./tasks.js";

/** What the run loop tells a replay's pace of itself. */
export interface PaceDeps {
	readonly tasks: RunTasks;
	/** Tasks waiting out a retry's backoff. */
	readonly backoffs: () => number;
	/** Whether a workflow script makes the run's tasks as it goes. */
	readonly driven: boolean;
	/** Why the recorded run was cancelled, when it was. */
	readonly cancelled: string | undefined;
	/** Cancels the run, with `reason`. */
	readonly cancel: (reason: string) => void;
}

/**
 * A replay's runner keeps the recorded run's order (see `ReplayOrder`): it starts a queued task
 * only when its turn has come, and holds a settled attempt's end until its turn. When nothing
 * moves and nothing runs or waits to, what the held ends wait for can no longer come, and they are
 * taken: a replay that went its own way still ends.
 */
export class ReplayPace {
	readonly #order: ReplayOrder;
	readonly #deps: PaceDeps;
	readonly #held: Prepared[] = [];
	/** Set when held ends wait for what can no longer come: they are taken on the next turn. */
	#force = false;

	constructor(attempts: Readonly<Record<string, readonly ReplayedAttempt[]>>, live: boolean, deps: PaceDeps) {
		this.#order = new ReplayOrder(attempts, live);
		this.#deps = deps;
	}

	/** The ends held back on the last turn, handed back to be looked at again. */
	release(): Prepared[] {
		return this.#held.splice(0);
	}

	/** Whether `item`'s end waits for its turn: it is then held. A stopping run takes every end. */
	holds(item: Prepared, stopping: boolean): boolean {
		if (this.#force || stopping) return false;
		const { taskId, attempt } = item.live.request;
		if (this.#order.mayEnd(taskId, attempt, this.#started, this.#ended)) return false;
		this.#held.push(item);
		return true;
	}

	/**
	 * `item` as its end is taken: an attempt the recorded run's cancel ended, cancelled, and the
	 * run with it, where the recorded run was.
	 */
	settle(item: Prepared): Prepared {
		const { cancelled } = this.#deps;
		const { taskId, attempt } = item.live.request;
		if (cancelled === undefined || this.#order.recorded(taskId, attempt)?.status !== "cancelled") return item;
		this.#deps.cancel(cancelled);
		return { ...item, outcome: { error: new StopReason("cancel", cancelled) } };
	}

	/**
	 * The replay has nothing more it may do: where the recorded run was cancelled (before it started
	 * what is left, or after its last task ended, before it had ended itself, whether or not a
	 * failure or its budget had stopped it by then), it ends cancelled.
	 */
	ended(): void {
		if (this.#deps.cancelled !== undefined) this.#deps.cancel(this.#deps.cancelled);
	}

	/**
	 * A turn of the loop ended, having `moved` (committed an end or started an attempt), with
	 * `running` workers (the held among them); returns whether the loop should turn again at once.
	 */
	turned(moved: boolean, running: number): boolean {
		if (this.#held.length === 0) return false;
		const still = running === this.#held.length && this.#deps.backoffs() === 0;
		this.#force = !moved && still;
		return moved || still;
	}

	/**
	 * Whether task `i`'s next attempt may start; `alone` when nothing else runs. A turn that waits
	 * for what can no longer come comes now, as does an attempt the run never made that a script
	 * waits for (its runtime then says it diverged).
	 */
	readonly turn = (i: number, alone: boolean): ReplayTurn => {
		const { tasks } = this.#deps;
		const turn = this.#order.turn(tasks.id(i), (tasks.attempts[i] ?? 0) + 1, this.#ended);
		const stuck = alone && this.#deps.backoffs() === 0 && (turn === "later" || this.#deps.driven);
		return stuck ? "now" : turn;
	};

	/** Whether attempt `number` of a task has started here, or never will. */
	readonly #started: Happened = (taskId, number) => {
		const { dag, attempts, status } = this.#deps.tasks;
		const i = dag.indexOf.get(taskId);
		return i === undefined || (attempts[i] ?? 0) >= number || isTerminalTask(status[i] as TaskStatus);
	};

	/** Whether attempt `number` of a task has ended here, or never will. */
	readonly #ended: Happened = (taskId, number) => {
		const { dag, attempts, status } = this.#deps.tasks;
		const i = dag.indexOf.get(taskId);
		if (i === undefined) return true;
		const made = attempts[i] ?? 0;
		const now = status[i] as TaskStatus;
		return made > number || isTerminalTask(now) || (made === number && now !== TaskStatus.Running);
	};
}
