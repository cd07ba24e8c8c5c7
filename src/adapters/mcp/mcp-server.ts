import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { loadSettings } from "../../config/settings.js";
import { CrewError, ErrorCode } from "../../core/errors.js";
import { nestingDepth, nestingRefusal } from "../../core/nesting.js";
import type { TeamActions } from "../team-actions.js";
import { runParameters } from "./run-parameters.js";

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
const task = z.string().min(1).describe("a task id or step id");

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
			inputSchema: { goal, workflow, team, ...runParameters },
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
				...runParameters,
				session: z
					.string()
					.optional()
					.describe("your session's id, recorded with the run; crew_runs with it lists this session's runs"),
			},
		},
		async (args) => {
			checkNesting(actions, env, "crew_run");
			return reply(await actions.run(args));
		},
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
			inputSchema: { runId, task },
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
	tool(
		"crew_retry",
		{
			description:
				"Run a failed, cancelled or skipped task of an ended run again (with the dependents it skipped), in the background.",
			inputSchema: { runId, task },
		},
		async ({ runId, task }) => {
			checkNesting(actions, env, "crew_retry");
			return reply(await actions.retry(runId, task));
		},
	);
	tool(
		"crew_runs",
		{
			description:
				"The runs of this repository, newest first, each with its status, end time, a summary of its tasks and what to do next.",
			inputSchema: {
				session: z.string().optional().describe("only the runs started with this session id"),
				limit: z.number().int().min(1).max(1000).optional().describe("at most this many runs (default 20)"),
			},
		},
		(filter) => reply(actions.runs(filter)),
	);
	tool(
		"crew_recommend",
		{
			description: "The team and workflow whose routing hints fit a goal, and why; nothing runs.",
			inputSchema: { goal },
		},
		({ goal }) => reply(actions.recommend(goal)),
	);
	tool(
		"crew_validate",
		{
			description:
				"Check every agent, team and workflow this repository sees and how they refer to each other: counts and diagnostics.",
			inputSchema: {},
		},
		() => reply(actions.validate()),
	);
	tool(
		"crew_doctor",
		{
			description:
				"What this machine offers crew: runtimes, their versions, credentials (names only), the store's health; each failed check with its fix.",
			inputSchema: {
				smoke: z.boolean().optional().describe("also make one small real model call per agent CLI the agents use"),
			},
		},
		async ({ smoke }) => reply(await actions.doctor(smoke === true)),
	);
	tool(
		"crew_worktrees",
		{
			description: "A run's task worktrees, their branches, and whether they hold uncommitted work.",
			inputSchema: { runId },
		},
		async ({ runId }) => reply(await actions.worktrees(runId)),
	);
	tool(
		"crew_merge",
		{
			description:
				"Merge a worktree run's integration branch crew/<runId> into the repository's current branch (clean work tree only).",
			inputSchema: {
				runId,
				partial: z
					.boolean()
					.optional()
					.describe("merge what the branch holds although some tasks' work is missing from it"),
			},
		},
		async ({ runId, partial }) => reply(await actions.merge(runId, partial === true)),
	);
	tool(
		"crew_export",
		{
			description: "Write an ended run, its records and files, to one JSON bundle in the repository; returns its path.",
			inputSchema: {
				runId,
				file: z
					.string()
					.min(1)
					.optional()
					.describe("a path inside the repository; default <runId>.crew-run.json at its root"),
			},
		},
		async ({ runId, file }) => reply(await actions.export(runId, file)),
	);
	return server;
}
