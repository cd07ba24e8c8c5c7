import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import type { CallToolResult, ServerNotification, ServerRequest } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { loadSettings } from "../../config/settings.js";
import { CrewError, ErrorCode, errorMessage } from "../../core/errors.js";
import { nestingDepth, nestingRefusal } from "../../core/nesting.js";
import { AGENT_WAIT_MS } from "../agent-request.js";
import { MAX_WAITED_RUNS, type WaitOptions } from "../run-waiting.js";
import type { TeamActions } from "../team-actions.js";

const runId = z.string().min(1).describe("a run id, as crew_run or crew_status gave it");
const goal = z.string().min(1).describe("what the run is for, in words");
const workflow = z
	.string()
	.min(1)
	.optional()
	.describe(
		"a workflow name (see crew_list) or a path to a workflow file; default: the team's defaultWorkflow, and without a team the default team's",
	);
const team = z
	.string()
	.min(1)
	.optional()
	.describe(
		"a team name or path; without it, each role runs the agent of its name, or with no workflow either, the default team",
	);
/** A limit as the CLI takes it: 0, or a duration such as 500ms, 30s, 5m or 1h. */
const limit = z.string().min(1).optional();

/**
 * crew as an MCP server: one tool per action over the runs of the project it serves. Every answer
 * is the same object twice, as JSON text and as structured content. A run starts detached and
 * `crew_run` returns at once; a cancel waits at most 10 s for the runner to confirm, so no call
 * outlasts a client's timeout.
 */
/** One answer as JSON text and as structured content. */
function reply(result: object): CallToolResult {
	return { content: [{ type: "text", text: JSON.stringify(result) }], structuredContent: { ...result } };
}

/**
 * Throws unless `tool` may start a run here: inside a crew worker only as deep as the user's own
 * config allows (`nesting.maxDepth`), so a worker cannot make its run grow without bound.
 */
function checkNesting(actions: TeamActions, env: NodeJS.ProcessEnv, tool: string): void {
	const refusal = nestingRefusal(tool, nestingDepth(env), loadSettings(actions.project, env).nesting?.maxDepth);
	if (refusal) throw new CrewError(ErrorCode.Conflict, refusal);
}

/** Time between progress notifications while a call waits for runs, in ms. */
const PROGRESS_EVERY_MS = 10_000;

/**
 * A wait that ends when the client cancels the call, and tells a client that asked for progress
 * that it goes on every 10 s, so a client whose timeout restarts on progress does not give up.
 */
function waitOptions(extra: RequestHandlerExtra<ServerRequest, ServerNotification>): WaitOptions {
	const token = extra._meta?.progressToken;
	let next = PROGRESS_EVERY_MS;
	return {
		signal: extra.signal,
		...(token !== undefined
			? {
					onProgress: (waitedMs: number) => {
						if (waitedMs < next) return;
						next = waitedMs + PROGRESS_EVERY_MS;
						extra
							.sendNotification({
								method: "notifications/progress",
								params: { progressToken: token, progress: Math.floor(waitedMs / 1000), message: "waiting for the run" },
							})
							.catch((error: unknown) => {
								// The wait goes on: its answer reaches the client, or fails, as any answer does.
								process.stderr.write(`crew mcp: a progress notice was not sent: ${errorMessage(error)}\n`);
							});
					},
				}
			: {}),
	};
}

/** `env` is the server's environment: it says whether the server runs inside a crew worker. */
export function createMcpServer(
	actions: TeamActions,
	version: string,
	env: NodeJS.ProcessEnv = process.env,
): McpServer {
	const server = new McpServer({ name: "crew", version });
	const tool = server.registerTool.bind(server);
	tool(
		"crew_list",
		{
			description: "List the agents, teams and workflows this repository can use, with where each comes from.",
			inputSchema: { kind: z.enum(["agents", "teams", "workflows"]).optional().describe("only this kind") },
		},
		({ kind }) => reply({ resources: actions.list(kind) }),
	);
	tool(
		"crew_plan",
		{
			description:
				"Show the tasks a run would have (roles, agents, runtimes, dependencies, parallel groups, critical path); nothing runs.",
			inputSchema: { goal, workflow, team },
		},
		(args) => reply(actions.plan(args)),
	);
	tool(
		"crew_run",
		{
			description:
				"Start a team run in the background and return {runId, status} at once; follow it with crew_status or crew_events.",
			inputSchema: {
				goal,
				workflow,
				team,
				runtime: z
					.string()
					.min(1)
					.optional()
					.describe("run every agent with this runtime: pi, claude, codex, command or dry-run"),
				concurrency: z.number().int().min(1).max(64).optional().describe("most tasks running at once"),
				timeout: limit.describe(
					"wall-clock limit of each task attempt, e.g. 30m; 0: none; default: the user's config, else 2h",
				),
				stallTimeout: limit.describe(
					"limit on time an attempt may go without output, e.g. 5m; 0: none; default: the user's config, else 10m for agent CLIs",
				),
				args: z
					.record(z.string(), z.unknown())
					.optional()
					.describe("a workflow script's arguments, checked against its args schema"),
			},
		},
		async (args) => {
			checkNesting(actions, env, "crew_run");
			return reply(await actions.run(args));
		},
	);
	tool(
		"crew_agent",
		{
			description:
				"Run one agent on one task (a one-task crew run: stored, budgeted, cancellable like any run). In the foreground (default) it waits for the end, at most waitSeconds, and answers {runId, taskId, agent, status, ended, result}; if it has not ended by then, join it with crew_wait. With background: true it answers {runId, taskId, agent, status} at once; several in the background and one crew_wait with all their runIds run them as a batch.",
			inputSchema: {
				task: z.string().min(1).describe("what the agent is to do, in words: its whole prompt"),
				agent: z
					.string()
					.min(1)
					.optional()
					.describe("the agent's name (see crew_list agents); default: executor, crew's general implementer"),
				model: z.string().min(1).optional().describe("the agent's model, e.g. anthropic/claude-sonnet-4-5"),
				runtime: z.string().min(1).optional().describe("its runtime: pi, claude, codex, command or dry-run"),
				workspace: z
					.enum(["shared", "worktree"])
					.optional()
					.describe("worktree: it works in a git worktree of its own, its work on branch crew/<runId>"),
				budgetTokens: z.number().int().min(1).optional().describe("cap on the run's tokens; the agent stops there"),
				budgetUsd: z.number().positive().optional().describe("cap on the run's cost in US dollars"),
				timeout: limit.describe(
					"wall-clock limit of its attempt, e.g. 30m; 0: none; default: the user's config, else 2h",
				),
				stallTimeout: limit.describe(
					"limit on time its attempt may go without output, e.g. 5m; 0: none; default: the user's config, else 10m",
				),
				background: z.boolean().optional().describe("answer at once with the runId instead of waiting; default false"),
				waitSeconds: z
					.number()
					.int()
					.min(0)
					.max(AGENT_WAIT_MS / 1000)
					.optional()
					.describe("in the foreground, the longest to wait for the end; default and most 600"),
			},
		},
		async ({ background, waitSeconds, ...request }, extra) => {
			checkNesting(actions, env, "crew_agent");
			return reply(
				await actions.agent(
					{
						...request,
						wait: background !== true,
						...(waitSeconds !== undefined ? { waitMs: waitSeconds * 1000 } : {}),
					},
					waitOptions(extra),
				),
			);
		},
	);
	tool(
		"crew_wait",
		{
			description:
				"Wait until every listed run has ended (or waits for an approval), at most timeoutSeconds, and answer each run's {runId, status, ended, result}: a crew_agent run's result, a workflow script's result, or for other runs the results of their last tasks. timedOut: true when some had not ended; ask again.",
			inputSchema: {
				runIds: z.array(runId).min(1).max(MAX_WAITED_RUNS).describe("the runs to wait for, one or more"),
				timeoutSeconds: z
					.number()
					.int()
					.min(0)
					.max(AGENT_WAIT_MS / 1000)
					.optional()
					.describe("the longest to wait; default and most 600"),
			},
		},
		async ({ runIds, timeoutSeconds }, extra) =>
			reply(await actions.wait(runIds, (timeoutSeconds ?? AGENT_WAIT_MS / 1000) * 1000, waitOptions(extra))),
	);
	tool(
		"crew_status",
		{
			description: "A run (default: the latest) and all its tasks: {run, tasks}, as `crew status --json` gives them.",
			inputSchema: { runId: runId.optional() },
		},
		({ runId }) => reply(actions.status(runId)),
	);
	tool(
		"crew_events",
		{
			description: "A run's events after seq `since` (up to 200); ask again with `since` = the returned `next`.",
			inputSchema: { runId, since: z.number().int().min(0).optional().describe("the last seq already seen") },
		},
		({ runId, since }) => reply(actions.events(runId, since)),
	);
	tool(
		"crew_result",
		{
			description: "A task's result text, by task id or step id.",
			inputSchema: { runId, task: z.string().min(1).describe("a task id or step id") },
		},
		({ runId, task }) => reply(actions.result(runId, task)),
	);
	tool(
		"crew_cancel",
		{ description: "Cancel a run: its workers end and unfinished tasks are marked cancelled.", inputSchema: { runId } },
		async ({ runId }) => reply(await actions.cancel(runId, "cancelled through MCP")),
	);
	tool(
		"crew_resume",
		{
			description: "Continue an unfinished run in the background; finished tasks are never run again.",
			inputSchema: { runId },
		},
		async ({ runId }) => {
			checkNesting(actions, env, "crew_resume");
			return reply(await actions.resume(runId));
		},
	);
	tool(
		"crew_approve",
		{ description: "Approve what a run waits for (its approval gates), so those tasks start.", inputSchema: { runId } },
		async ({ runId }) => {
			// Approving starts a runner when the run's is gone.
			checkNesting(actions, env, "crew_approve");
			return reply(await actions.approve(runId));
		},
	);
	tool(
		"crew_reject",
		{
			description: "Refuse what a run waits for: the run is cancelled with the reason as its error.",
			inputSchema: { runId, reason: z.string().min(1).describe("why") },
		},
		async ({ runId, reason }) => reply(await actions.reject(runId, reason)),
	);
	return server;
}
