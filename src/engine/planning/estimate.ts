// Estimates of what a planned run should cost and take, from the tasks of earlier runs.

import type { Project } from "../../config/project.js";
import { estimateLine } from "../../core/estimate-line.js";
import { estimateRun, estimateScriptRun, type RunEstimate, type TaskSample } from "../../core/run-estimate.js";
import { RunReader } from "../views/reader.js";
import type { Plan } from "./plan-input.js";

/**
 * A run's estimate as every surface gives it: the figures, the attempts of its workflow's steps
 * in past runs that failed their spec checks before completing, and the line people read.
 */
export type PlanEstimate = RunEstimate & { readonly specCheckFailures: number; readonly line: string };

/** What a run of `plan` should cost and take, from `history` (see `RepoReader.taskHistory`). */
export function estimatePlan(plan: Plan, history: readonly TaskSample[]): PlanEstimate {
	const estimate = plan.options.script
		? estimateScriptRun(plan.workflow, history)
		: estimateRun(
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
	const steps = new Set(plan.tasks.map((t) => t.stepId));
	const specCheckFailures = history
		.filter((s) => s.workflow === plan.workflow && (plan.options.script || steps.has(s.stepId)))
		.reduce((n, s) => n + (s.specCheckFailures ?? 0), 0);
	const failing =
		specCheckFailures === 0
			? ""
			: `; ${specCheckFailures} past attempt${specCheckFailures === 1 ? "" : "s"} of its steps failed spec checks first`;
	return { ...estimate, specCheckFailures, line: `${estimateLine(estimate)}${failing}` };
}

/** `estimatePlan` from the history of `project`'s store. */
export function estimateFromStore(plan: Plan, project: Project): PlanEstimate {
	const reader = new RunReader(project);
	try {
		return estimatePlan(plan, reader.repo.taskHistory());
	} finally {
		reader.close();
	}
}
