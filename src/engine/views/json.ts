// JSON shapes of runs, events and usage for `crew status --json`, other `--json` output and the HTTP API.

import type { EventRecord, ParentLink, RunRecord, TaskRecord } from "../../core/records.js";
import type { RunStatus } from "../../core/status.js";
import type { IntegrationRecord } from "../../core/types.js";
import { addUsage, type Usage } from "../../core/usage.js";
import type { PagedRun } from "../../store/run-pages.js";
import type { RunQueries } from "../../store/run-queries.js";

/** Usage as `crew status --json` gives it. */
export interface UsageJson {
	readonly inputTokens: number;
	readonly outputTokens: number;
	readonly cacheReadTokens: number;
	readonly cacheWriteTokens: number;
	readonly costUsd: number;
	/** Present when the figures are a lower bound: an attempt in them used more than its agent reported. */
	readonly partial?: true;
}

/** The parsed `crew status --json` of a run: see `RunReader.statusJson`. */
export interface StatusJson {
	readonly run: {
		readonly id: string;
		readonly status: RunStatus;
		readonly goal: string;
		readonly team: string | null;
		readonly workflow: string;
		readonly createdAt: string;
		readonly updatedAt: string;
		/** When the run ended; null while it has not. */
		readonly finishedAt: string | null;
		readonly usage: UsageJson;
		readonly usageByRole: Readonly<Record<string, UsageJson>>;
		readonly usageByModel: Readonly<Record<string, UsageJson>>;
		readonly error: string | null;
		/** How a worktree run's branches came together; null for a run without worktrees, or before its end. */
		readonly integration: IntegrationRecord | null;
		/** The attempt whose agent delegated the run; absent for any other run. */
		readonly parent?: ParentLink;
		/** For a run whose agents delegated: what it spent itself, what its delegated runs spent, and those runs. */
		readonly usageOwn?: UsageJson;
		readonly usageNested?: UsageJson;
		readonly children?: readonly ChildJson[];
	};
	readonly tasks: readonly (Pick<
		TaskRecord,
		"id" | "stepId" | "role" | "status" | "attempts" | "startedAt" | "finishedAt" | "error"
	> & { readonly usage: UsageJson })[];
}

/** A run a task delegated, as its parent's `crew status --json` lists it. */
export interface ChildJson {
	readonly runId: string;
	readonly taskId: string;
	readonly attempt: number;
	readonly status: RunStatus;
	readonly workflow: string;
	readonly goal: string;
	readonly goalLength: number;
	readonly error: string | null;
	readonly usage: UsageJson;
}

/** An event as `crew events --json` and the HTTP API give it. */
export function eventJson(event: EventRecord): object {
	return {
		seq: event.seq,
		time: event.time,
		type: event.type,
		...(event.taskId ? { taskId: event.taskId } : {}),
		data: event.data,
	};
}

/** The run part of `crew status --json`, `GET /api/runs/<id>` and `crew_status`: its goal whole. */
export function runSummary(run: RunRecord): object {
	const { id, status, goal, team, workflow, createdAt, updatedAt, finishedAt, error, integration, forkedFrom } = run;
	const forked = forkedFrom ? { forkedFrom } : {};
	const parent = run.parent ? { parent: run.parent } : {};
	const scheduled = run.options.schedule ? { schedule: run.options.schedule } : {};
	const overApi = run.options.startedOver ? { startedOver: run.options.startedOver } : {};
	const foreseen = run.foreseen.length > 0 ? { foreseen: run.foreseen } : {};
	return {
		id,
		status,
		goal,
		team,
		workflow,
		createdAt,
		updatedAt,
		finishedAt,
		error,
		integration,
		...forked,
		...parent,
		...scheduled,
		...overApi,
		...runOffers(run),
		...foreseen,
	};
}

/**
 * What a reader may offer to do with run `run`: no task of a run a runner holds (`heldBy`, its
 * pid) is retried, and a workflow script's run (`script`, its file) is neither forked nor replayed.
 */
export function runOffers(run: RunRecord): { heldBy?: number; script?: string } {
	return {
		...(run.lease ? { heldBy: run.lease.pid } : {}),
		...(run.options.script ? { script: run.options.script.file } : {}),
	};
}

/** Characters of a goal that lists of runs give: a list stays small whatever its runs' goals. */
export const LISTED_GOAL_CHARS = 500;

/**
 * A goal as lists of runs give it: its first 500 characters (UTF-16 units, never half of a
 * character), and the whole goal's length, so a reader can tell whether to ask the run for all.
 */
export function listedGoal(goal: string): { goal: string; goalLength: number } {
	let shown = goal.slice(0, LISTED_GOAL_CHARS);
	if (shown.length < goal.length && /[\ud800-\udbff]$/.test(shown)) shown = shown.slice(0, -1);
	return { goal: shown, goalLength: goal.length };
}

/**
 * A run as `crew runs --json` and `GET /api/runs` list it: `runSummary` with its goal listed, its
 * tasks by outcome and what it spent.
 */
export function listedRun({ run, tasks, usage }: PagedRun): object {
	return { ...runSummary(run), ...listedGoal(run.goal), tasks, usage };
}

function mapValues<A, B>(record: Record<string, A>, fn: (value: A) => B): Record<string, B> {
	return Object.fromEntries(Object.entries(record).map(([key, value]) => [key, fn(value)]));
}

/**
 * What a run spent, as `crew status --json` gives it: `usage` and its sums by role and by model
 * count the runs its agents delegated too; a run that delegated has `usageOwn` and
 * `usageNested` apart, and its `children`, each under the task that delegated it.
 */
export function spentJson(q: RunQueries, runId: string): object {
	const own = q.usage(runId);
	const children = q.delegations.children(runId);
	const nested = q.delegations.nested(runId);
	const by = usageWithNested(q, runId);
	return {
		usage: usageJson(addUsage(own, nested)),
		usageByRole: usageByJson(by.role),
		usageByModel: usageByJson(by.model),
		...(children.length > 0
			? {
					usageOwn: usageJson(own),
					usageNested: usageJson(nested),
					children: children.map(({ usage, goal, ...child }) => ({
						...child,
						...listedGoal(goal),
						usage: usageJson(usage),
					})),
				}
			: {}),
	};
}

/** A run's usage by role and by model, the runs below it counted too. */
export function usageWithNested(
	q: RunQueries,
	runId: string,
): { role: Record<string, Usage>; model: Record<string, Usage> } {
	const by = q.usageBy(runId);
	const below = q.delegations.nestedBy(runId);
	return { role: sumBy(by.role, below.role), model: sumBy(by.model, below.model) };
}

function sumBy(a: Record<string, Usage>, b: Record<string, Usage>): Record<string, Usage> {
	const sum = { ...a };
	for (const [key, usage] of Object.entries(b)) sum[key] = sum[key] ? addUsage(sum[key], usage) : usage;
	return sum;
}

/** Usage as `crew status --json` shows it, for a task or a whole run. */
export function usageJson(usage: Usage): UsageJson {
	return {
		inputTokens: usage.input,
		outputTokens: usage.output,
		cacheReadTokens: usage.cacheRead,
		cacheWriteTokens: usage.cacheWrite,
		costUsd: usage.cost,
		...(usage.partial ? { partial: true as const } : {}),
	};
}

/** Usage by role or by model, as `crew status --json` shows it. */
export function usageByJson(by: Record<string, Usage>): Record<string, UsageJson> {
	return mapValues(by, usageJson);
}
