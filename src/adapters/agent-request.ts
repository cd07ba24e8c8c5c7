import { runLimits, type Settings } from "../config/settings.js";
import { CrewError, ErrorCode } from "../core/errors.js";
import { agentWorkflowName, DEFAULT_AGENT } from "../engine/agent-workflow.js";
import type { Crew } from "../engine/crew.js";
import type { PlanInput } from "../engine/planner.js";
import { startBackgroundRunner } from "./background-runner.js";
import { MOST_WAIT_SECONDS } from "./mcp/tool-specs.js";

/** Longest a foreground agent call waits for its run, in ms: under agent clients' tool timeouts. */
export const AGENT_WAIT_MS = MOST_WAIT_SECONDS * 1000;

/** What an agent-facing surface may ask of one agent on one task. */
export interface AgentRequest {
	/** What the agent is to do: the task's text, as given. */
	readonly task: string;
	/** The agent's name. Default `executor`. */
	readonly agent?: string;
	readonly runtime?: PlanInput["runtime"];
	readonly model?: PlanInput["model"];
	readonly workspace?: PlanInput["workspace"];
	/** Caps on the run's tokens and cost (US dollars); the user's config caps apply too. */
	readonly budgetTokens?: number;
	readonly budgetUsd?: number;
	/** Limits on each attempt: `0` or a duration such as `30m`. */
	readonly timeout?: string;
	readonly stallTimeout?: string;
	/** Wait for the run to end and answer its result too. Default false. */
	readonly wait?: boolean;
	/** With `wait`, the longest to wait, in ms; default and most: `AGENT_WAIT_MS`. */
	readonly waitMs?: number;
}

export interface AgentStarted {
	readonly runId: string;
	readonly taskId: string;
	readonly agent: string;
	readonly status: string;
	readonly workflow: string;
	readonly warnings: string[];
}

/** The wait an agent request asks for, in ms, or a clear error. */
export function agentWaitMs(request: AgentRequest): number {
	const ms = request.waitMs ?? AGENT_WAIT_MS;
	if (!Number.isInteger(ms) || ms < 0 || ms > AGENT_WAIT_MS) {
		throw new CrewError(
			ErrorCode.InvalidInput,
			`invalid wait ${JSON.stringify(request.waitMs)}: expected 0 to ${AGENT_WAIT_MS} ms`,
		);
	}
	return ms;
}

/**
 * Plans and creates the one-task run of `request` (workflow `agent:<name>`) under the user's
 * settings, as `crew agent` does, and hands it to a background runner.
 */
export async function startAgentRun(crew: Crew, settings: Settings, request: AgentRequest): Promise<AgentStarted> {
	const agent = request.agent ?? DEFAULT_AGENT;
	const budget = {
		...settings.budget,
		...(request.budgetTokens !== undefined ? { tokens: request.budgetTokens } : {}),
		...(request.budgetUsd !== undefined ? { usd: request.budgetUsd } : {}),
	};
	const plan = await crew.plan({
		goal: request.task,
		workflow: agentWorkflowName(agent),
		...(request.runtime !== undefined ? { runtime: request.runtime } : {}),
		...(request.model !== undefined ? { model: request.model } : {}),
		...(request.workspace !== undefined ? { workspace: request.workspace } : {}),
		...runLimits({ timeout: request.timeout, stallTimeout: request.stallTimeout }, settings),
		...(settings.setup ? { setup: settings.setup } : {}),
		...(settings.queue ? { queue: settings.queue } : {}),
		concurrencyCap: settings.maxConcurrency,
		budget,
	});
	const runId = crew.create(plan);
	const runner = await startBackgroundRunner(crew, runId, ["--if-queued"]);
	const warnings = [
		...settings.warnings,
		...plan.diagnostics.filter((d) => d.level === "warning").map((d) => `${d.file}: ${d.message}`),
	];
	return {
		runId,
		taskId: plan.tasks[0]?.id ?? agent,
		agent,
		status: runner.status,
		workflow: plan.workflow,
		warnings,
	};
}
