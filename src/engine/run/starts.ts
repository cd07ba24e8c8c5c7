// Starting a run's attempts: starts recorded for tasks admitted now, a dead runner's attempts followed.

import type { RunBudget } from "../../core/budget.js";
import type { AttemptRecord, RunRecord } from "../../core/records.js";
import type { SlotQueue } from "../../core/slot-queue.js";
import { TaskStatus } from "../../core/status.js";
import { timed } from "../../core/timings.js";
import type { TaskSpec } from "../../core/types.js";
import type { Lease } from "../../store/lease.js";
import type { RunAdmission } from "./admission.js";
import { followedStart, recordStart } from "./attempt-start.js";
import type { RunBudgetStop } from "./budget-stop.js";
import type { RunLoopDeps } from "./deps.js";
import type { Start } from "./live-attempt.js";
import { ATTACH } from "./remote-runtimes.js";
import type { ReplayTurn } from "./replay-order.js";
import type { RunStop } from "./stop.js";
import { modelChain, type RunTasks } from "./tasks.js";
import type { RunWorkers } from "./workers.js";

export interface RunStartsDeps extends Pick<RunLoopDeps, "store" | "files" | "crewDir" | "trusted" | "options"> {
	readonly lease: Lease;
	readonly run: RunRecord;
	readonly tasks: RunTasks;
	readonly budget: RunBudget;
	readonly budgetStop: RunBudgetStop;
	readonly admission: RunAdmission;
	readonly workers: RunWorkers;
	readonly stop: RunStop;
	/** In a replay, whether task `i`'s next attempt may start now (see `ReplayPace`). */
	readonly turn: ((i: number, alone: boolean) => ReplayTurn) | undefined;
}

/**
 * Starts a run's attempts. Each task that may start now (see `RunAdmission`) has its attempt
 * recorded in the caller's batch and is marked running; its worker is launched once that batch
 * has committed, so no worker runs without its attempt on record. An attempt a dead runner left
 * running elsewhere is followed again instead, holding its slot and its budget reservation.
 */
export class RunStarts {
	readonly #deps: RunStartsDeps;

	constructor(deps: RunStartsDeps) {
		this.#deps = deps;
	}

	/** The attempts a dead runner left running elsewhere go on here, each holding its slot. */
	async follow(followed: readonly AttemptRecord[]): Promise<void> {
		const { tasks, run, budget } = this.#deps;
		for (const attempt of followed) {
			const index = tasks.dag.indexOf.get(attempt.taskId);
			if (index === undefined) continue;
			const spec = tasks.specs[index] as TaskSpec;
			const runtime = `${ATTACH}${attempt.runtime}`;
			const start = await followedStart(this.#deps, run, { index, spec, attempt, runtime });
			budget.start(index, budget.reservationFor(spec.agent.maxTokens), attempt.usage);
			this.launch(start);
		}
	}

	/** Records a start for every task that may start now; a spent budget stops the run. */
	fill(slots: SlotQueue): Start[] {
		const { tasks, lease, run } = this.#deps;
		const running = new Set(this.#deps.workers.indices());
		const { admitted, spent } = this.#deps.admission.take(slots, running, this.#deps.turn);
		if (spent) this.#deps.budgetStop.spent();
		return admitted.map((i) => {
			const spec = tasks.specs[i] as TaskSpec;
			const model = modelChain(spec.agent)[tasks.modelIndex[i] ?? 0];
			const start = timed(`${spec.id}: record its attempt's start`, () =>
				recordStart(this.#deps, lease, run, { index: i, spec, model }),
			);
			tasks.status[i] = TaskStatus.Running;
			tasks.attempts[i] = start.request.attempt;
			return start;
		});
	}

	/** Starts the worker of a recorded attempt; when the run already stops, it hears why at once. */
	launch(start: Start): void {
		const stop = this.#deps.stop.reason();
		this.#deps.workers.launch(start, this.#deps.tasks.specs[start.index] as TaskSpec, stop);
	}
}
