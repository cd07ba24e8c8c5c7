// What a run should cost and take, estimated from completed tasks of the repository's past runs.

import { buildDag } from "./dag.js";
import { Heap } from "./heap.js";

/** One completed task of a past run, as the estimate reads it. */
export interface TaskSample {
	readonly runId: string;
	readonly workflow: string;
	readonly taskId: string;
	readonly stepId: string;
	readonly agent: string;
	/** The runtime its last attempt ran on: pi, claude, codex, command, dry-run. */
	readonly runtime: string;
	/** The model its plan named; null when its agent ran on its runtime's default. */
	readonly model: string | null;
	/** The planner whose plan added the task; null for a step of the workflow itself. */
	readonly plannedBy: string | null;
	/** Input, output and cache tokens of all its attempts. */
	readonly tokens: number;
	readonly costUsd: number;
	/** From its start to its end, in ms. */
	readonly durationMs: number;
	/** When it ended, in ms since the epoch. */
	readonly finishedAt: number;
	/** Its attempts that failed their spec checks before it completed. */
	readonly specCheckFailures?: number;
}

/** A task of the plan to estimate. */
export interface EstimateTask {
	readonly id: string;
	readonly stepId: string;
	readonly agent: string;
	readonly runtime: string;
	readonly model: string | null;
	readonly dependsOn: readonly string[];
	/** A planner: its plan adds tasks, unknown until it runs. */
	readonly expands?: boolean;
}

export interface EstimatePlan {
	readonly workflow: string;
	readonly tasks: readonly EstimateTask[];
	/** Tasks running at once. */
	readonly concurrency: number;
	/** Passes of the workflow an `--until` loop may make after the first; 0 or absent without one. */
	readonly morePasses?: number;
}

/** Where a task's figures come from, most specific first. */
export const EstimateSource = {
	/** Past runs of the same workflow step, agent, runtime and model. */
	Step: "step",
	/** Past tasks of the same agent on the same runtime and model, in any workflow. */
	AgentModel: "agent-model",
	/** Past tasks of the same agent on the same runtime, on any model. */
	Agent: "agent",
	/** `BUILTIN_TASK_ESTIMATE`: nothing in the history fits. */
	Default: "default",
} as const;
export type EstimateSource = (typeof EstimateSource)[keyof typeof EstimateSource];

interface Figures {
	readonly tokens: number;
	readonly costUsd: number;
	readonly durationMs: number;
}

/**
 * What one agent CLI's task is taken to cost when the history has nothing for it: a few rounds of
 * a coding agent reading files and answering, in tokens, dollars and ms.
 */
export const BUILTIN_TASK_ESTIMATE: Figures = { tokens: 8000, costUsd: 0.05, durationMs: 60_000 };

/**
 * A command's tokens are never counted (it reports none), and its time is anyone's guess (`echo`
 * or a test suite) until it has run here: none is guessed. A dry run runs nothing.
 */
const BUILTIN_BY_RUNTIME: Readonly<Record<string, Figures>> = {
	command: { tokens: 0, costUsd: 0, durationMs: 0 },
	"dry-run": { tokens: 0, costUsd: 0, durationMs: 0 },
};

export interface TaskEstimate {
	readonly id: string;
	readonly tokens: number;
	readonly costUsd: number;
	readonly durationMs: number;
	readonly from: EstimateSource;
	/** Past tasks the figures are the median of; 0 for the builtin defaults. */
	readonly samples: number;
}

export interface RunEstimate {
	/** The plan's tasks, and those its planners added in past runs (median). */
	readonly tasks: number;
	readonly tokens: number;
	readonly costUsd: number;
	/** Wall time along the graph with the concurrency limit, in ms. */
	readonly durationMs: number;
	/** The run may cost more (see `openEnds`): the figures are a lower bound. */
	readonly atLeast: boolean;
	/** What the figures leave out: a planner's tasks no past run shows, further `--until` passes. */
	readonly openEnds: readonly string[];
	/** One task of one agent: the median of the plan's tasks. */
	readonly directCallTokens: number;
	/** Past runs the figures come from. */
	readonly pastRuns: number;
	/** Tasks estimated from the builtin defaults. */
	readonly defaultTasks: number;
	/** Commands that have not run here: their time is not in `durationMs`. */
	readonly untimedCommands?: number;
	/** "from 5 past runs", "builtin defaults, no history here", … */
	readonly basis: string;
	readonly perTask: readonly TaskEstimate[];
}

function median(values: readonly number[]): number {
	const sorted = [...values].sort((a, b) => a - b);
	const mid = sorted.length >> 1;
	if (sorted.length % 2 === 1) return sorted[mid] as number;
	return ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
	const groups = new Map<string, T[]>();
	for (const item of items) {
		const k = key(item);
		const group = groups.get(k);
		if (group) group.push(item);
		else groups.set(k, [item]);
	}
	return groups;
}

const keyOf = (...parts: readonly (string | null)[]): string => JSON.stringify(parts);

/** The samples that fit a task, most specific first, and where they come from. */
function fitting(
	task: EstimateTask,
	workflow: string,
	index: { step: Map<string, TaskSample[]>; agentModel: Map<string, TaskSample[]>; agent: Map<string, TaskSample[]> },
): { from: EstimateSource; samples: readonly TaskSample[] } {
	const step = index.step.get(keyOf(workflow, task.stepId, task.agent, task.runtime, task.model));
	if (step) return { from: EstimateSource.Step, samples: step };
	const agentModel = index.agentModel.get(keyOf(task.agent, task.runtime, task.model));
	if (agentModel) return { from: EstimateSource.AgentModel, samples: agentModel };
	const agent = index.agent.get(keyOf(task.agent, task.runtime));
	if (agent) return { from: EstimateSource.Agent, samples: agent };
	return { from: EstimateSource.Default, samples: [] };
}

/** What a planner's plan added in past runs of the workflow, per run, as medians; undefined without such runs. */
function plannedAdditions(
	planner: EstimateTask,
	workflow: string,
	samples: readonly TaskSample[],
): { tasks: number; tokens: number; costUsd: number; spanMs: number; runs: readonly string[] } | undefined {
	const ofWorkflow = samples.filter((s) => s.workflow === workflow);
	const planners = ofWorkflow.filter(
		(s) => s.plannedBy === null && s.stepId === planner.stepId && s.taskId === planner.id,
	);
	if (planners.length === 0) return undefined;
	const added = groupBy(
		ofWorkflow.filter((s) => s.plannedBy === planner.id),
		(s) => s.runId,
	);
	const perRun = planners.map((p) => {
		const children = added.get(p.runId) ?? [];
		const lastEnd = Math.max(p.finishedAt, ...children.map((c) => c.finishedAt));
		return {
			tasks: children.length,
			tokens: children.reduce((sum, c) => sum + c.tokens, 0),
			costUsd: children.reduce((sum, c) => sum + c.costUsd, 0),
			spanMs: lastEnd - p.finishedAt,
		};
	});
	return {
		tasks: Math.round(median(perRun.map((r) => r.tasks))),
		tokens: median(perRun.map((r) => r.tokens)),
		costUsd: median(perRun.map((r) => r.costUsd)),
		spanMs: median(perRun.map((r) => r.spanMs)),
		runs: planners.map((p) => p.runId),
	};
}

/**
 * Wall time of a graph whose node `i` takes `durations[i]` ms, started as the engine starts them:
 * at most `concurrency` at once, ready nodes by longest remaining path, ties in declaration order.
 */
function scheduledTime(plan: EstimatePlan, durations: readonly number[]): number {
	const dag = buildDag(plan.tasks, `workflow ${plan.workflow}`);
	const ready = new Heap<number>((a, b) =>
		dag.priority[a] !== dag.priority[b] ? (dag.priority[a] ?? 0) > (dag.priority[b] ?? 0) : a < b,
	);
	const running = new Heap<{ end: number; i: number }>((a, b) => (a.end !== b.end ? a.end < b.end : a.i < b.i));
	const waiting = dag.dependencies.map((deps) => deps.length);
	for (let i = 0; i < waiting.length; i++) if (waiting[i] === 0) ready.push(i);
	const slots = Math.max(1, plan.concurrency);
	let now = 0;
	for (;;) {
		while (running.size < slots && ready.size > 0) {
			const i = ready.pop() as number;
			running.push({ end: now + (durations[i] ?? 0), i });
		}
		const next = running.pop();
		if (!next) return now;
		now = next.end;
		for (const d of dag.dependents[next.i] ?? []) {
			waiting[d] = (waiting[d] ?? 0) - 1;
			if (waiting[d] === 0) ready.push(d);
		}
	}
}

/**
 * What a run of `plan` should cost and take, from `samples` (completed tasks of this repository's
 * recent runs). Each task takes the median of the samples that fit it best (`EstimateSource`): its
 * workflow step's on the same agent, runtime and model, else its agent's on that runtime and
 * model, else its agent's on that runtime, else the builtin defaults. A planner's additions are the
 * medians of what it added in past runs of the workflow; without such runs the estimate is a lower
 * bound. Time is along the graph with the concurrency limit, not a sum; per-role limits are not
 * modelled.
 */
export function estimateRun(plan: EstimatePlan, samples: readonly TaskSample[]): RunEstimate {
	const own = samples.filter((s) => s.plannedBy === null);
	const index = {
		step: groupBy(own, (s) => keyOf(s.workflow, s.stepId, s.agent, s.runtime, s.model)),
		agentModel: groupBy(samples, (s) => keyOf(s.agent, s.runtime, s.model)),
		agent: groupBy(samples, (s) => keyOf(s.agent, s.runtime)),
	};
	const runs = new Set<string>();
	let plannerUnknown = false;
	let extraTasks = 0;
	let extraTokens = 0;
	let extraCost = 0;
	const durations: number[] = [];
	const perTask = plan.tasks.map((task): TaskEstimate => {
		const { from, samples: fit } = fitting(task, plan.workflow, index);
		for (const s of fit) runs.add(s.runId);
		const figures =
			fit.length === 0
				? (BUILTIN_BY_RUNTIME[task.runtime] ?? BUILTIN_TASK_ESTIMATE)
				: {
						tokens: Math.round(median(fit.map((s) => s.tokens))),
						costUsd: median(fit.map((s) => s.costUsd)),
						durationMs: Math.round(median(fit.map((s) => s.durationMs))),
					};
		let durationMs = figures.durationMs;
		if (task.expands) {
			const added = plannedAdditions(task, plan.workflow, samples);
			if (added) {
				for (const r of added.runs) runs.add(r);
				extraTasks += added.tasks;
				extraTokens += added.tokens;
				extraCost += added.costUsd;
				// The planner's dependents wait for what it added.
				durationMs += added.spanMs;
			} else plannerUnknown = true;
		}
		durations.push(durationMs);
		return { id: task.id, ...figures, from, samples: fit.length };
	});
	const defaultTasks = perTask.filter((t) => t.from === EstimateSource.Default).length;
	const untimedCommands = plan.tasks.filter(
		(task, i) => task.runtime === "command" && perTask[i]?.from === EstimateSource.Default,
	).length;
	const morePasses = plan.morePasses ?? 0;
	const openEnds = [
		...(plannerUnknown ? ["what its planner adds"] : []),
		...(morePasses > 0 ? [`up to ${morePasses} more pass${morePasses === 1 ? "" : "es"} of the --until check`] : []),
	];
	return {
		tasks: plan.tasks.length + extraTasks,
		tokens: Math.round(perTask.reduce((sum, t) => sum + t.tokens, extraTokens)),
		costUsd: perTask.reduce((sum, t) => sum + t.costUsd, extraCost),
		durationMs: plan.tasks.length === 0 ? 0 : Math.round(scheduledTime(plan, durations)),
		atLeast: openEnds.length > 0,
		openEnds,
		directCallTokens: perTask.length === 0 ? 0 : Math.round(median(perTask.map((t) => t.tokens))),
		pastRuns: runs.size,
		defaultTasks,
		untimedCommands,
		basis: basisText(runs.size, defaultTasks, perTask.length),
		perTask,
	};
}

function basisText(pastRuns: number, defaultTasks: number, tasks: number): string {
	if (pastRuns === 0) return "builtin defaults, no history here";
	const from = `from ${pastRuns} past run${pastRuns === 1 ? "" : "s"}`;
	return defaultTasks === 0 ? from : `${from}; builtin defaults for ${defaultTasks} of ${tasks} tasks`;
}

/**
 * What a run of workflow script `workflow` should cost and take: its tasks are made as it runs,
 * so the figures are the medians of its past runs here as wholes (tasks, tokens, cost, and the
 * time from the first task's start to the last one's end); without any, the estimate says so.
 */
export function estimateScriptRun(workflow: string, samples: readonly TaskSample[]): RunEstimate {
	const runs = groupBy(
		samples.filter((s) => s.workflow === workflow),
		(s) => s.runId,
	);
	const perRun = [...runs.values()].map((tasks) => ({
		tasks: tasks.length,
		tokens: tasks.reduce((sum, t) => sum + t.tokens, 0),
		costUsd: tasks.reduce((sum, t) => sum + t.costUsd, 0),
		spanMs: Math.max(...tasks.map((t) => t.finishedAt)) - Math.min(...tasks.map((t) => t.finishedAt - t.durationMs)),
	}));
	const tokens = [...runs.values()].flat().map((t) => t.tokens);
	const of = (pick: (r: (typeof perRun)[number]) => number) => (perRun.length === 0 ? 0 : median(perRun.map(pick)));
	return {
		tasks: Math.round(of((r) => r.tasks)),
		tokens: Math.round(of((r) => r.tokens)),
		costUsd: of((r) => r.costUsd),
		durationMs: Math.round(of((r) => r.spanMs)),
		atLeast: perRun.length === 0,
		openEnds: perRun.length === 0 ? ["the tasks its script makes"] : [],
		directCallTokens: tokens.length === 0 ? 0 : Math.round(median(tokens)),
		pastRuns: perRun.length,
		defaultTasks: 0,
		basis: perRun.length === 0 ? "no past runs of this workflow here" : basisText(perRun.length, 0, 0),
		perTask: [],
	};
}
