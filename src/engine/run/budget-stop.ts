// The budget stopping a run: a warning at 80% of a cap, the stop once a cap is reached, and the error it leaves.

import type { RunBudget } from "../../core/budget.js";
import { FailurePolicy } from "../../core/types.js";
import type { Usage } from "../../core/usage.js";
import type { Lease } from "../../store/lease.js";
import type { RunStore } from "../../store/run-store.js";
import type { RunStop } from "./stop.js";

export interface BudgetStopDeps {
	readonly store: RunStore;
	readonly lease: Lease;
	readonly budget: RunBudget;
	readonly stop: RunStop;
	/** The run's failure policy: `abort` cancels running tasks when the budget is spent; any other lets them finish. */
	readonly failure: FailurePolicy;
	/** Hears that the budget stopped the run, and why: what its agents delegated stops too. */
	readonly onSpent?: (why: string) => void;
}

/**
 * Watches a run's spending against its caps: records a `budget.warning` event the first time
 * spending reaches 80% of a cap, and once a cap is reached (or a task's reservation cannot fit)
 * records `budget.exhausted` and stops the run, once. Its events are written in the caller's write.
 */
export class RunBudgetStop {
	readonly #deps: BudgetStopDeps;
	/** Set when the budget stopped the run: its error then quotes the spend once every attempt has ended. */
	#stopped = false;

	constructor(deps: BudgetStopDeps) {
		this.#deps = deps;
	}

	/** The run's error when the budget stopped it, quoting what it spent by now; undefined when it did not. */
	get error(): string | undefined {
		return this.#stopped ? `budget: ${this.#deps.budget.describe()}` : undefined;
	}

	/** Counts what task `index`'s worker reported spending, then checks the caps. */
	report(index: number, usage: Usage): void {
		this.#deps.budget.report(index, usage);
		this.check();
	}

	/** Warns once at 80% of a cap, and stops the run once a cap is reached. */
	check(): void {
		if (this.#reached()) this.spent();
	}

	/**
	 * Stops the run for its budget: running tasks finish, or are cancelled when the policy is abort.
	 * Does nothing when the run already stops, for its budget or otherwise.
	 */
	spent(): void {
		const { store, lease, budget, stop } = this.#deps;
		if (this.#stopped || stop.kind) return;
		this.#stopped = true;
		const message = `not started: the budget is spent (${budget.describe()})`;
		store.appendEvent(lease, "budget.exhausted", null, { spent: budget.describe() });
		this.#deps.onSpent?.(`the budget of run ${lease.runId} is spent (${budget.describe()})`);
		if (this.#deps.failure === FailurePolicy.Abort) stop.all("abort", message);
		else stop.drain(message);
	}

	/** Records a warning the first time spending reaches 80% of a cap; whether a cap is reached. */
	#reached(): boolean {
		const { store, lease, budget } = this.#deps;
		if (!budget.limited) return false;
		if (budget.takeWarning()) store.appendEvent(lease, "budget.warning", null, { spent: budget.describe() });
		return budget.exhausted();
	}
}
