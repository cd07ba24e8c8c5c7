// Inside a crew worker, pi's `agent` and `team` tools: work handed to the worker's runner, within its run.

import type { ToolDefinition } from "@mariozechner/pi-coding-agent";
import { type DelegationAsk, delegationAsk, fencedAnswer } from "../../core/delegation.js";
import { inert } from "../../core/terminal-text.js";
import { delegate } from "../shared/delegation-client.js";

const BUDGET = {
	type: "integer",
	minimum: 1,
	description: "the most tokens it may spend; never more than this run has left",
} as const;
const MODEL = { type: "string", description: "its model, provider/id; default: the agent's own" } as const;

/**
 * The tools a pi agent inside a crew worker delegates with, through its runner's socket: `agent`
 * (one agent on one task) and `team` (a team's workflow on a goal). Each waits for the delegated
 * run's end; its answer is the run's result fenced as another agent's words. The run counts in
 * this run's budget, stops with it, and is listed under this task.
 */
export function delegationTools(socket: string): ToolDefinition[] {
	return [
		delegationTool(socket, {
			name: "agent",
			label: "Agent",
			description:
				"Hand one task to another coding agent (default: executor) as a run inside this crew run, and wait for its result. It spends from this run's budget and is stopped with it.",
			properties: {
				task: { type: "string", description: "what the agent is to do, whole" },
				agent: { type: "string", description: "the agent, by name (crew list agents)" },
				model: MODEL,
				budgetTokens: BUDGET,
			},
			required: ["task"],
			ask: ({ task, agent, model, budgetTokens }) => ({ task, agent, model, budgetTokens }),
		}),
		delegationTool(socket, {
			name: "team",
			label: "Team",
			description:
				"Hand a goal to a team of coding agents (a crew workflow) as a run inside this crew run, and wait for its result. It spends from this run's budget and is stopped with it.",
			properties: {
				goal: { type: "string", description: "what the team is to reach, whole" },
				team: { type: "string", description: "the team, by name" },
				workflow: { type: "string", description: "the workflow, by name" },
				model: MODEL,
				budgetTokens: BUDGET,
				concurrency: { type: "integer", minimum: 1, description: "its tasks running at once" },
			},
			required: ["goal"],
			ask: ({ goal, team, workflow, model, budgetTokens, concurrency }) => ({
				task: goal,
				team,
				workflow,
				model,
				budgetTokens,
				concurrency,
			}),
		}),
	];
}

interface ToolShape {
	readonly name: string;
	readonly label: string;
	readonly description: string;
	readonly properties: Record<string, object>;
	readonly required: readonly string[];
	readonly ask: (given: Record<string, unknown>) => Record<string, unknown>;
}

function delegationTool(socket: string, shape: ToolShape): ToolDefinition {
	return {
		name: shape.name,
		label: shape.label,
		description: shape.description,
		parameters: { type: "object", properties: shape.properties, required: shape.required } as never,
		async execute(_toolCallId, raw, signal) {
			const given = Object.fromEntries(
				Object.entries(shape.ask(raw as Record<string, unknown>)).filter(([, value]) => value !== undefined),
			);
			const ask: DelegationAsk = delegationAsk(given);
			const answer = await delegate(socket, ask, signal ? { signal } : {});
			return { content: [{ type: "text" as const, text: inert(fencedAnswer(answer)) }], details: answer };
		},
	};
}
