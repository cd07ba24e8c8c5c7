import type { Project } from "../config/project.js";
import { estimateLine, estimateRun, type RunEstimate, type TaskSample } from "../core/run-estimate.js";
import type { Plan } from "./planner.js";
import { RunReader } from "./run-reader.js";

/** A run's estimate as every surface gives it: the figures, and the line people read. */
export type PlanEstimate = RunEstimate & { readonly line: string };

/**
 * What a run of `plan` should cost and take, from `history` (see `RunReader.taskHistory`); null
 * for a workflow script, whose tasks are made as it runs.
 */
export function estimatePlan(plan: Plan, history: readonly TaskSample[]): PlanEstimate | null {
	if (plan.options.script) return null;
	const estimate = estimateRun(
		{
			workflow: plan.workflow,
			concurrency: plan.options.concurrency,
			morePasses: Math.max(0, (plan.tasks.find((t) => t.until)?.until?.maxIterations ?? 1) - 1),
			tasks: plan.tasks.map((t) => ({
				id: t.id,
				stepId: t.stepId,
				agent: t.agent.name,
				runtime: plan.options.runtime ?? t.agent.runtime,
				model: t.agent.model ?? null,
				dependsOn: t.dependsOn,
				...(t.expand ? { expands: true } : {}),
			})),
		},
		history,
	);
	return { ...estimate, line: estimateLine(estimate) };
}

/** `estimatePlan` from the history of `project`'s store. */
export function estimateFromStore(plan: Plan, project: Project): PlanEstimate | null {
	if (plan.options.script) return null;
	const reader = new RunReader(project);
	try {
		return estimatePlan(plan, reader.taskHistory());
	} finally {
		reader.close();
	}
}
