import { buildDag, type Dag } from "../core/dag.js";
import { TaskStatus } from "../core/status.js";
import type { AgentSpec, TaskSpec } from "../core/types.js";

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

	/** A failed `--until` check that a later pass of the workflow answered. */
	superseded(i: number): boolean {
		const until = this.specs[i]?.until;
		return until !== undefined && this.specs.some((s) => (s.until?.iteration ?? 0) > until.iteration);
	}

	/** New queued tasks after the ones there; the graph is rebuilt. */
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
