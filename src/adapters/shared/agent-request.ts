// An agent-facing request for one agent on one task: its checks, its wait, and the one-task run it starts.

import type { Settings } from "../../config/settings.js";
import { CrewError, ErrorCode } from "../../core/errors.js";
import type { Crew } from "../../engine/crew.js";
import { agentWorkflowName, DEFAULT_AGENT } from "../../engine/planning/agent-workflow.js";
import { MOST_WAIT_SECONDS } from "../mcp/tool-specs.js";
import { startCallerRun } from "./background-runner.js";
import { checkPlanModel } from "./model-check.js";
import { checkAskedSandbox, type RunAsker } from "./run-asker.js";
import { type RunAsk, runInput } from "./run-input.js";

/** Longest a foreground agent call waits for its run, in ms: under agent clients' tool timeouts. */
export const AGENT_WAIT_MS = MOST_WAIT_SECONDS * 1000;

/**
 * What an agent-facing surface may ask of one agent on one task: the task's text, as given; the
 * agent (default `executor`); the run options one task can use; `session`, the caller's session
 * id, recorded with the run; and whether to wait for its end (at most `waitMs`, default and most
 * `AGENT_WAIT_MS`) and answer its result too.
 */
export type AgentRequest = Pick<
	RunAsk,
	| "runtime"
	| "model"
	| "thinking"
	| "defaultModel"
	| "defaultThinking"
	| "workspace"
	| "budgetTokens"
	| "budgetUsd"
	| "timeout"
	| "stallTimeout"
	| "sandbox"
> & {
	readonly task: string;
	readonly agent?: string;
	readonly session?: string;
	readonly wait?: boolean;
	readonly waitMs?: number;
};

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
 * settings, as `crew agent` does, and hands it to a background runner, recording who asked.
 */
export async function startAgentRun(
	crew: Crew,
	settings: Settings,
	request: AgentRequest,
	asker: RunAsker,
): Promise<AgentStarted> {
	const agent = request.agent ?? DEFAULT_AGENT;
	const { task, agent: _agent, session: _session, wait: _wait, waitMs: _waitMs, ...ask } = request;
	checkAskedSandbox(asker, ask.sandbox, settings, crew.runtimes.sandbox);
	const plan = await crew.plan(runInput({ ...ask, goal: task, workflow: agentWorkflowName(agent) }, settings));
	await checkPlanModel(plan, ask.model, settings);
	const { runId, runner, warnings } = await startCallerRun(crew, plan, settings.warnings, asker);
	return {
		runId,
		taskId: plan.tasks[0]?.id ?? agent,
		agent,
		status: runner.status,
		workflow: plan.workflow,
		warnings,
	};
}
