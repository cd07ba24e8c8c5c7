// The runs a run's agents delegate while it runs: how many at once, within what budget, and stopped with it.

import type { BudgetView } from "../../core/budget.js";
import { CrewError, ErrorCode } from "../../core/errors.js";
import { type NestingSettings, nestedRunning, nestingRefusal } from "../../core/nesting.js";
import type { RunRecord } from "../../core/records.js";
import type { Usage } from "../../core/usage.js";
import type { Delegating, TaskRequest } from "../../runtimes/worker-runtime.js";
import type { Delegate } from "./delegate-run.js";

/** What a run lends its agents' delegations: the engine's delegate, the user's limits, its budget. */
export interface RunChildrenDeps {
	readonly run: RunRecord;
	readonly delegate: Delegate;
	/** The user's `nesting`; without it no agent of the run may delegate. */
	readonly nesting: NestingSettings | undefined;
	/** The run's own depth in crew runs: its workers are one deeper. */
	readonly depth: number;
	/** What the run has spent and has left. */
	readonly budget: () => BudgetView;
	/** Counts what a child of task `taskId` spent as that task's, against the run's caps. */
	readonly spend: (taskId: string, usage: Usage) => void;
}

/**
 * The delegated runs of one run that are running now. An attempt's agent may delegate while its
 * depth is below the user's `nesting.maxDepth`; at most `maxRunning` children run at once, more are
 * refused at once rather than queued; each child's caps are what the run has left; and every
 * child stops when the run's budget is spent or the run stops.
 */
export class RunChildren {
	readonly #deps: RunChildrenDeps;
	readonly #running = new Set<AbortController>();

	constructor(deps: RunChildrenDeps) {
		this.#deps = deps;
	}

	/** How `request`'s agent delegates, or undefined when it may not (its depth is the user's limit). */
	for(request: TaskRequest): Delegating | undefined {
		const depth = this.#deps.depth + 1;
		if (nestingRefusal("delegation", depth, this.#deps.nesting?.maxDepth) !== undefined) return undefined;
		return async (ask, { signal, started }) => {
			const most = nestedRunning(this.#deps.nesting, this.#deps.run.options.concurrency);
			if (this.#running.size >= most) {
				throw new CrewError(
					ErrorCode.Conflict,
					`run ${this.#deps.run.id} has ${this.#running.size} delegated runs running, its most at once (nesting.maxRunning in your user config.json, else half its concurrency): wait for one to end`,
				);
			}
			const view = this.#deps.budget();
			if (view.tokensLeft === 0 || view.usdLeft === 0) {
				throw new CrewError(
					ErrorCode.Conflict,
					`run ${this.#deps.run.id}'s budget is spent: nothing is left to delegate`,
				);
			}
			const stop = new AbortController();
			this.#running.add(stop);
			try {
				return await this.#deps.delegate({
					parent: { runId: request.runId, taskId: request.taskId, attempt: request.attempt },
					parentRun: this.#deps.run,
					ask,
					left: {
						...(view.tokensLeft !== undefined ? { tokens: view.tokensLeft } : {}),
						...(view.usdLeft !== undefined ? { usd: view.usdLeft } : {}),
					},
					cwd: request.cwd,
					depth,
					readOnly: depth > 1 && this.#deps.nesting?.deepWrites !== true,
					sandbox: request.sandbox?.level ?? "off",
					signal: AbortSignal.any([signal, stop.signal]),
					started,
					onSpend: (usage) => this.#deps.spend(request.taskId, usage),
				});
			} finally {
				this.#running.delete(stop);
			}
		};
	}

	/** Stops every child running now, saying `why` (the run's budget is spent, or the run stops). */
	stopAll(why: string): void {
		for (const stop of this.#running) stop.abort(new CrewError(ErrorCode.Cancelled, why));
	}
}
