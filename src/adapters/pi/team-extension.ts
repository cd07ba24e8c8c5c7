// The pi extension of crew: the `team` and `agent` tools and the `/crew` command.

import type { ExtensionAPI, ExtensionContext } from "@mariozechner/pi-coding-agent";
import { CrewError, ErrorCode } from "../../core/errors.js";
import { inert } from "../../core/terminal-text.js";
import { TOOL_SPECS } from "../mcp/tool-specs.js";
import { agentTool } from "./agent-tool.js";
import { answerText } from "./answer-text.js";
import { crewCommand } from "./crew-command.js";
import { CrewSession } from "./crew-session.js";
import { delegationPolicy } from "./delegation-policy.js";
import { actionOf, actionParameters } from "./tool-parameters.js";

/** The actions that start or restart a run: the session follows them and reports their end. */
const FOLLOWED = new Set(["run", "goal", "resume", "approve", "retry", "fork", "replay"]);
/** The actions that take the session's model as the agents' default, and record the session. */
const IN_SESSION = new Set(["run", "goal", "plan"]);
/** The actions that record the session with the run they make, and take nothing else of it. */
const SESSION_ONLY = new Set(["fork", "replay"]);
/** crew's tools that the `agent` tool offers rather than `team`. */
const AGENT_TOOLS = new Set(["crew_agent", "crew_wait"]);

/**
 * crew inside pi: a `team` tool with an action for each of crew's tools, run by a `crew mcp`
 * child for the session's repository (so crew's native modules never load into pi's own Node),
 * and a `/crew` command for the person. A run the tool starts is followed, and its report comes
 * into the session when it ends — also when the session was closed meanwhile and is reopened.
 *
 * Inside crew's own pi workers (their environment names a crew run) it offers nothing: crew
 * loads its delegation extension there itself, when the user's nesting limit allows it.
 */
export default function teamExtension(pi: ExtensionAPI): void {
	if (process.env.CREW_RUN_ID !== undefined) return;
	const session = new CrewSession(pi);
	const specs = Object.fromEntries(Object.entries(TOOL_SPECS).filter(([tool]) => !AGENT_TOOLS.has(tool)));
	const tools: Record<string, string> = Object.fromEntries(Object.keys(specs).map((tool) => [actionOf(tool), tool]));

	pi.on("session_start", async (_event, ctx) => {
		await session.start(ctx).catch((error: unknown) => notifyFailure(ctx, error));
	});
	pi.on("session_compact", async (_event, ctx) => {
		await session.remind(ctx).catch((error: unknown) => notifyFailure(ctx, error));
	});
	pi.on("session_shutdown", async () => {
		await session.close();
	});
	pi.on("before_agent_start", async (event, ctx) => {
		const policy = delegationPolicy(ctx.cwd);
		return policy ? { systemPrompt: `${event.systemPrompt}\n\n${policy}` } : undefined;
	});

	pi.registerTool({
		name: "team",
		label: "Team",
		description:
			"Run a team of coding agents with crew, in this repository. Actions: list (agents, teams, workflows), plan (the tasks a run would have, with its estimated cost), run (start a run in the background; its report comes back into this session when it ends), status, events, result (a task's result), cancel, resume, approve, reject, and the rest of crew's actions. A team pays off for work that splits into parts or needs review; for one focused task the agent tool is cheaper.",
		promptSnippet: "Run a team of coding agents on a goal with crew: plan, run in the background, follow, read results",
		promptGuidelines: [
			"Use team with action list to see the workflows, then action plan to see the tasks and the estimated cost, then action run with a goal; its report arrives in this session when it ends.",
		],
		parameters: actionParameters(specs) as never,
		async execute(_toolCallId, raw, _signal, _onUpdate, ctx) {
			const { action, ...args } = raw as { action: string } & Record<string, unknown>;
			const tool = tools[action];
			if (!tool) {
				throw new CrewError(
					ErrorCode.InvalidInput,
					`unknown team action '${String(action)}': expected ${Object.keys(tools).join(", ")}`,
				);
			}
			const answer = await session.call(ctx.cwd, tool, {
				...(IN_SESSION.has(action) ? session.runContext(ctx) : {}),
				...(SESSION_ONLY.has(action) ? { session: session.runContext(ctx).session } : {}),
				...args,
			});
			const runId = typeof answer.runId === "string" ? answer.runId : undefined;
			if (runId && FOLLOWED.has(action) && answer.started !== false) session.watch(ctx.cwd, runId);
			return { content: [{ type: "text" as const, text: inert(answerText(action, answer)) }], details: answer };
		},
	});

	pi.registerTool(agentTool(session));
	pi.registerCommand("crew", crewCommand(session));
}

function notifyFailure(ctx: ExtensionContext, error: unknown): void {
	ctx.ui.notify(inert(`crew: ${error instanceof Error ? error.message : String(error)}`), "warning");
}
