// What `crew run` and agent-facing surfaces may ask of a run, made into the planner's input.

import { runLimits, type Settings } from "../../config/settings.js";
import type { SandboxLevel } from "../../core/sandbox-level.js";
import type { ThinkingLevel } from "../../core/thinking.js";
import type { FailurePolicy, IntegrationMode } from "../../core/types.js";
import type { ExecutionSettings } from "../../engine/history/fork.js";
import type { PlanInput } from "../../engine/planning/plan-input.js";

/**
 * What `crew run` and the agent-facing surfaces may ask of a run, named as their options are:
 * limits as the CLI takes them (`0` or a duration such as `30m`), budgets as separate amounts.
 */
export interface RunAsk {
	readonly goal: string;
	readonly workflow?: string;
	readonly team?: string;
	readonly runtime?: string;
	readonly model?: string;
	readonly thinking?: ThinkingLevel;
	/** The calling session's model and thinking level: for agents that name none. */
	readonly defaultModel?: string;
	readonly defaultThinking?: ThinkingLevel;
	readonly concurrency?: number;
	readonly failure?: FailurePolicy;
	readonly timeout?: string;
	readonly stallTimeout?: string;
	readonly retries?: number;
	readonly budgetTokens?: number;
	readonly budgetUsd?: number;
	readonly reserveTokens?: number;
	readonly reserveUsd?: number;
	readonly approvePlan?: boolean;
	/** `false`: the tasks' prompts go without the project's knowledge. */
	readonly knowledge?: boolean;
	/** `false`: a task's later attempt never continues the session of the one before. */
	readonly continue?: boolean;
	/** `false`: a worktree run's tasks' changes are not trial-merged while they work. */
	readonly foresight?: boolean;
	readonly workspace?: "shared" | "worktree";
	readonly allowDirty?: boolean;
	readonly allowShared?: boolean;
	readonly integration?: IntegrationMode;
	readonly until?: string;
	readonly untilJudged?: boolean;
	readonly judge?: string;
	readonly maxIterations?: number;
	readonly args?: unknown;
	readonly queue?: string;
	readonly repository?: string;
	readonly sandbox?: SandboxLevel;
}

/**
 * The plan's input of a run asked for with `ask`, on top of the user's settings: what is asked
 * wins over the config (limits, budgets, the queue, the sandbox); the setup hook and the concurrency cap come
 * from the config alone. Values are checked by the planner, so every surface refuses the same ones.
 */
export function runInput(
	ask: RunAsk,
	settings: Partial<
		Pick<Settings, "limits" | "budget" | "queue" | "setup" | "maxConcurrency" | "sandbox" | "sandboxHosts">
	>,
): PlanInput {
	const budget = {
		...settings.budget,
		...(ask.budgetTokens !== undefined ? { tokens: ask.budgetTokens } : {}),
		...(ask.budgetUsd !== undefined ? { usd: ask.budgetUsd } : {}),
		...(ask.reserveTokens !== undefined ? { reserveTokens: ask.reserveTokens } : {}),
		...(ask.reserveUsd !== undefined ? { reserveUsd: ask.reserveUsd } : {}),
	};
	return {
		goal: ask.goal,
		...(ask.workflow !== undefined ? { workflow: ask.workflow } : {}),
		...(ask.team !== undefined ? { team: ask.team } : {}),
		...(ask.model !== undefined ? { model: ask.model } : {}),
		...(ask.thinking !== undefined ? { thinking: ask.thinking } : {}),
		...(ask.defaultModel !== undefined ? { defaultModel: ask.defaultModel } : {}),
		...(ask.defaultThinking !== undefined ? { defaultThinking: ask.defaultThinking } : {}),
		...(ask.concurrency !== undefined ? { concurrency: ask.concurrency } : {}),
		...(ask.failure !== undefined ? { failure: ask.failure } : {}),
		...runLimits(ask, settings),
		...(ask.retries !== undefined ? { retries: ask.retries } : {}),
		...(ask.approvePlan ? { approvePlan: true } : {}),
		...(ask.knowledge === false ? { knowledge: false } : {}),
		...(ask.continue === false ? { continueSessions: false } : {}),
		...(ask.foresight === false ? { foresight: false } : {}),
		...(ask.workspace !== undefined ? { workspace: ask.workspace } : {}),
		...(ask.allowDirty ? { allowDirty: true } : {}),
		...(ask.allowShared ? { allowShared: true } : {}),
		...(ask.integration !== undefined ? { integration: ask.integration } : {}),
		...(ask.until !== undefined ? { until: ask.until } : {}),
		...(ask.untilJudged ? { untilJudged: true } : {}),
		...(ask.judge !== undefined ? { judge: ask.judge } : {}),
		...(ask.maxIterations !== undefined ? { maxIterations: ask.maxIterations } : {}),
		...(ask.args !== undefined ? { args: ask.args } : {}),
		...executionInput(ask, settings),
		...(settings.maxConcurrency !== undefined ? { concurrencyCap: settings.maxConcurrency } : {}),
		...(Object.keys(budget).length > 0 ? { budget } : {}),
	};
}

/**
 * How a run asked for with `ask` executes, on top of the user's settings (see `ExecutionSettings`):
 * a new run's, and a fork's or a replay's, which never take them from the record.
 */
export function executionInput(
	ask: Pick<RunAsk, "runtime" | "queue" | "repository" | "sandbox">,
	settings: Partial<Pick<Settings, "queue" | "setup" | "sandbox" | "sandboxHosts">>,
): ExecutionSettings {
	const sandbox = ask.sandbox ?? settings.sandbox;
	const queue = ask.queue ?? settings.queue;
	return {
		...(ask.runtime !== undefined ? { runtime: ask.runtime } : {}),
		...(queue !== undefined ? { queue } : {}),
		...(ask.repository !== undefined ? { repository: ask.repository } : {}),
		...(settings.setup ? { setup: settings.setup } : {}),
		...(sandbox !== undefined ? { sandbox } : {}),
		...(settings.sandboxHosts ? { sandboxHosts: settings.sandboxHosts } : {}),
	};
}
