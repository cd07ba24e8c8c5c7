// A plan summarised as `crew plan --json`, MCP and pi give it: tasks, order, levels and critical path.

import { buildDag, criticalPath, levels } from "../../core/dag.js";
import { taskOrder } from "../../core/task-order.js";
import type { PlanEstimate } from "../../engine/planning/estimate.js";
import type { Plan } from "../../engine/planning/plan-input.js";

/** A plan as `crew plan --json`, the MCP server and the pi extension give it. */
export interface PlanSummary {
	readonly goal: string;
	readonly team: string | null;
	readonly workflow: string;
	readonly tasks: readonly {
		id: string;
		role: string;
		agent: string;
		runtime: string;
		model: string | null;
		/** The agent's thinking level; absent: the CLI's default. */
		thinking?: string;
		dependsOn: readonly string[];
		level: number;
		expands?: true;
		approval?: true;
		/** `true` for a check by verdict, else the check's command. */
		verify?: true | string;
	}[];
	/** A topological order of the task ids. */
	readonly order: readonly string[];
	/** Task ids by level: each level's tasks can run in parallel once the levels before it are done. */
	readonly parallelGroups: readonly (readonly string[])[];
	readonly criticalPath: readonly string[];
	readonly diagnostics: Plan["diagnostics"];
	/** A workflow script's run has no tasks before it runs: the script's file and the roles it may call. */
	readonly script?: { readonly file: string; readonly roles: readonly string[] };
	/** What the run should cost and take, from this repository's history. */
	readonly estimate?: PlanEstimate;
}

export function planSummary(plan: Plan, estimate?: PlanEstimate | null): PlanSummary {
	const script = plan.options.script;
	if (script) {
		const { goal, team, workflow, diagnostics } = plan;
		const roles = Object.keys(script.roles);
		return {
			goal,
			team,
			workflow,
			tasks: [],
			order: [],
			parallelGroups: [],
			criticalPath: [],
			diagnostics,
			script: { file: script.file, roles },
			...(estimate ? { estimate } : {}),
		};
	}
	const dag = buildDag(plan.tasks, `workflow ${plan.workflow}`);
	const level = levels(dag);
	const depth = Math.max(...level) + 1;
	const id = (i: number) => dag.ids[i] as string;
	const tasks = plan.tasks.map((t, i) => ({
		id: t.id,
		role: t.role,
		agent: t.agent.name,
		runtime: plan.options.runtime ?? t.agent.runtime,
		model: t.agent.model ?? null,
		...(t.agent.thinking ? { thinking: t.agent.thinking } : {}),
		dependsOn: t.dependsOn,
		level: level[i] ?? 0,
		...(t.expand ? { expands: true as const } : {}),
		...(t.approval ? { approval: true as const } : {}),
		...(t.verify ? { verify: t.verify.kind === "verdict" ? (true as const) : t.verify.command } : {}),
	}));
	return {
		goal: plan.goal,
		team: plan.team,
		workflow: plan.workflow,
		tasks,
		order: taskOrder(plan.tasks).map((t) => t.id),
		parallelGroups: Array.from({ length: depth }, (_, l) => dag.order.filter((i) => level[i] === l).map(id)),
		criticalPath: criticalPath(dag).map(id),
		diagnostics: plan.diagnostics,
		...(estimate ? { estimate } : {}),
	};
}
