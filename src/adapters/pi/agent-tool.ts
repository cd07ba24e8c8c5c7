// The pi `agent` tool: one agent on one task through crew, in the foreground or the background.

import type { ExtensionContext, ToolDefinition } from "@mariozechner/pi-coding-agent";
import { CrewError, ErrorCode } from "../../core/errors.js";
import { inert } from "../../core/terminal-text.js";
import { MOST_WAIT_SECONDS, MOST_WAITED_RUNS, TOOL_SPECS } from "../mcp/tool-specs.js";
import type { CrewSession } from "./crew-session.js";
import { toolParameters } from "./tool-parameters.js";

interface AgentAnswer {
	readonly runId: string;
	readonly status: string;
	readonly ended?: boolean;
	readonly error?: string | null;
	readonly result?: string;
	readonly results?: readonly { readonly taskId: string; readonly status: string; readonly result?: string }[];
}

/**
 * One agent on one task, through crew: in the foreground the answer is the agent's result; in the
 * background a run id at once, which `join` waits for (several at once as a batch). A run whose
 * result an answer carried is not reported again; one left in the background reports its end.
 */
export function agentTool(session: CrewSession): ToolDefinition {
	const parameters = toolParameters(TOOL_SPECS.crew_agent, {
		join: {
			type: "array",
			items: { type: "string" },
			minItems: 1,
			maxItems: MOST_WAITED_RUNS,
			description:
				"instead of a task: the run ids of agents started in the background, to wait for and get their results",
		},
		timeoutSeconds: {
			type: "integer",
			minimum: 0,
			maximum: MOST_WAIT_SECONDS,
			description: `with join: the longest to wait; default and most ${MOST_WAIT_SECONDS}`,
		},
	});
	return {
		name: "agent",
		label: "Agent",
		description:
			"Run one coding agent on one task with crew (default agent: executor), on this session's model unless you name one; the run is stored, budgeted and cancellable like any crew run. In the foreground (default) the answer is the agent's result. With background: true the answer is its run id at once; start several that way, then call agent with join: [their run ids] to wait for all of them and get their results. A background agent not joined reports its end into this session.",
		parameters: { ...parameters, required: [] } as never,
		async execute(_toolCallId, raw, _signal, _onUpdate, ctx: ExtensionContext) {
			const { join, timeoutSeconds, ...request } = raw as {
				join?: string[];
				timeoutSeconds?: number;
			} & Record<string, unknown>;
			if (join !== undefined) {
				const wait = { runIds: join, ...(timeoutSeconds !== undefined ? { timeoutSeconds } : {}) };
				const waited = (await session.holding(join, () => session.call(ctx.cwd, "crew_wait", wait))) as {
					runs: AgentAnswer[];
					timedOut: boolean;
				};
				return answer(session, waited.runs, waited);
			}
			if (typeof request.task !== "string" || request.task.trim() === "") {
				throw new CrewError(
					ErrorCode.InvalidInput,
					"agent needs a 'task' (what the agent is to do), or 'join' with run ids",
				);
			}
			const started = (await session.call(ctx.cwd, "crew_agent", {
				...session.runContext(ctx),
				...request,
			})) as unknown as AgentAnswer;
			if (!started.ended) session.watch(ctx.cwd, started.runId);
			return answer(session, [started], started);
		},
	};
}

function answer(session: CrewSession, runs: readonly AgentAnswer[], details: object) {
	const ended = runs.filter((r) => r.ended).map((r) => r.runId);
	session.answered(ended);
	const text = inert(runs.map(runText).join("\n\n"));
	return { content: [{ type: "text" as const, text }], details: { ...details, reported: ended } };
}

function runText(run: AgentAnswer): string {
	if (!run.ended) {
		return `crew run ${run.runId} is ${run.status}; agent with join: ["${run.runId}"] waits for its result, or its report comes here when it ends.`;
	}
	const head = `crew run ${run.runId} ended ${run.status}${run.error ? `: ${run.error}` : ""}`;
	if (run.result !== undefined) return `${head}\n${run.result}`;
	const results = (run.results ?? []).map((r) => `## ${r.taskId} (${r.status})\n${r.result ?? ""}`);
	return [head, ...results].join("\n");
}
