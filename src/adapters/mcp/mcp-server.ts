// The MCP server of crew: one tool per action over the runs of the project it serves.

import { McpServer, type ToolCallback } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import type { CallToolResult, ServerNotification, ServerRequest } from "@modelcontextprotocol/sdk/types.js";
import { type ZodRawShape, z } from "zod";
import { loadSettings } from "../../config/settings.js";
import { DELEGATE_SOCKET_VARIABLE, delegationAsk, fencedAnswer } from "../../core/delegation.js";
import { CrewError, ErrorCode, errorMessage } from "../../core/errors.js";
import { nestingDepth, nestingRefusal } from "../../core/nesting.js";
import { inert } from "../../core/terminal-text.js";
import { delegate } from "../shared/delegation-client.js";
import type { WaitOptions } from "../shared/run-waiting.js";
import { scheduleTool } from "../shared/schedule-tool.js";
import type { TeamActions } from "../shared/team-actions.js";
import { MOST_WAIT_SECONDS, TOOL_SPECS, type ToolName } from "./tool-specs.js";

/**
 * crew as an MCP server: one tool per action over the runs of the project it serves. Every answer
 * is the same object twice, as JSON text and as structured content. A run starts detached and
 * `crew_run` returns at once; a cancel waits at most 10 s for the runner to confirm, so no call
 * outlasts a client's timeout.
 */
/**
 * One answer as JSON text and as structured content. The text has no control character a
 * terminal acts on (clients print it): JSON escapes C0 already, and DEL and C1 are escaped too.
 * A promise is refused by its type: an action not awaited would answer `{}`.
 */
function reply<T extends object>(given: T extends PromiseLike<unknown> ? never : T): CallToolResult {
	const result: object = given;
	const text = JSON.stringify(result).replace(
		/[\u007f-\u009f]/g,
		(c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
	);
	return { content: [{ type: "text", text }], structuredContent: { ...result } };
}

/**
 * Throws unless `tool` may start a run here: inside a crew worker only as deep as the user's own
 * config allows (`nesting.maxDepth`), and then only through the worker's runner (see
 * `delegated`), so a worker cannot make its run grow without bound or spend beyond it.
 */
function checkNesting(actions: TeamActions, env: NodeJS.ProcessEnv, tool: string): void {
	const refusal = nestingRefusal(tool, nestingDepth(env), loadSettings(actions.project, env).nesting?.maxDepth);
	if (refusal) throw new CrewError(ErrorCode.Conflict, refusal);
	if (env.CREW_RUN_ID !== undefined) {
		throw new CrewError(
			ErrorCode.Conflict,
			`${tool} starts no run inside a crew worker: there, crew_run and crew_agent hand their run to the worker's runner`,
		);
	}
}

/**
 * Inside a crew worker whose runner takes delegations, `ask` handed to it: the answer, once the
 * delegated run ended, with its result fenced as another agent's words; undefined elsewhere.
 */
async function delegated(env: NodeJS.ProcessEnv, ask: Record<string, unknown>, signal: AbortSignal) {
	const socket = env[DELEGATE_SOCKET_VARIABLE];
	if (env.CREW_RUN_ID === undefined || !socket) return undefined;
	const given = Object.fromEntries(Object.entries(ask).filter(([, value]) => value !== undefined));
	const answer = await delegate(socket, delegationAsk(given), { signal });
	return reply({ ...answer, ended: true, result: fencedAnswer(answer) });
}

/**
 * A tool's parameters as one object that refuses any it does not take, naming those it does: a
 * misspelt parameter (`sandBox`) would otherwise be dropped, and its call run without it.
 */
function strictInput(tool: string, input: ZodRawShape) {
	const known = Object.keys(input).join(", ") || "none";
	return z.strictObject(input, {
		error: (issue) =>
			issue.code === "unrecognized_keys"
				? `unknown parameter ${issue.keys.join(", ")}: ${tool} takes ${known}`
				: undefined,
	});
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
	const tool = <N extends ToolName>(name: N, handler: ToolCallback<(typeof TOOL_SPECS)[N]["input"]>) => {
		const { description, input } = TOOL_SPECS[name];
		// An error's message, which can carry an agent's words, reaches the client as text: inert.
		const inertErrors = (async (...args: Parameters<typeof handler>) => {
			try {
				return await (handler as (...a: typeof args) => unknown)(...args);
			} catch (error) {
				if (error instanceof Error) error.message = inert(error.message);
				throw error;
			}
		}) as ToolCallback<ReturnType<typeof strictInput>>;
		server.registerTool(name, { description, inputSchema: strictInput(name, input) }, inertErrors);
	};
	tool("crew_list", ({ kind }) => reply({ resources: actions.list(kind) }));
	tool("crew_plan", async (args) => reply(await actions.plan(args)));
	tool("crew_run", async (args, extra) => {
		const { goal, team, workflow, model, budgetTokens, concurrency } = args;
		const ask = { task: goal, team, workflow, model, budgetTokens, concurrency };
		const handed = await delegated(env, ask, extra.signal);
		if (handed) return handed;
		checkNesting(actions, env, "crew_run");
		return reply(await actions.run(args));
	});
	tool("crew_goal", async (args) => {
		checkNesting(actions, env, "crew_goal");
		return reply(await actions.run({ ...args, untilJudged: true }));
	});
	tool("crew_agent", async ({ background, waitSeconds, ...request }, extra) => {
		const { task, agent, model, budgetTokens } = request;
		const handed = await delegated(env, { task, agent, model, budgetTokens }, extra.signal);
		if (handed) return handed;
		checkNesting(actions, env, "crew_agent");
		const wait = { wait: background !== true, ...(waitSeconds !== undefined ? { waitMs: waitSeconds * 1000 } : {}) };
		return reply(await actions.agent({ ...request, ...wait }, waitOptions(extra)));
	});
	tool("crew_wait", async ({ runIds, timeoutSeconds }, extra) =>
		reply(await actions.wait(runIds, (timeoutSeconds ?? MOST_WAIT_SECONDS) * 1000, waitOptions(extra))),
	);
	tool("crew_status", ({ runId, tasks, fields }) =>
		reply(actions.status(runId, { ...(tasks ? { tasks } : {}), ...(fields ? { fields } : {}) })),
	);
	tool("crew_events", ({ runId, since }) => reply(actions.events(runId, since)));
	tool("crew_result", ({ runId, task }) => reply(actions.result(runId, task)));
	tool("crew_cancel", async ({ runId }) => reply(await actions.cancel(runId, "cancelled through MCP")));
	tool("crew_resume", async ({ runId }) => {
		checkNesting(actions, env, "crew_resume");
		return reply(await actions.resume(runId));
	});
	tool("crew_approve", async ({ runId }) => {
		// Approving starts a runner when the run's is gone.
		checkNesting(actions, env, "crew_approve");
		return reply(await actions.approve(runId));
	});
	tool("crew_steer", async ({ runId, task, message }) => reply(await actions.steer(runId, task, message)));
	tool("crew_answer", async ({ runId, task, answer, question }) =>
		reply(await actions.answer(runId, task, answer, question)),
	);
	tool("crew_reject", async ({ runId, reason }) => reply(await actions.reject(runId, reason)));
	tool("crew_retry", async ({ runId, task }) => {
		checkNesting(actions, env, "crew_retry");
		return reply(await actions.retry(runId, task));
	});
	tool("crew_fork", async ({ runId, ...ask }) => {
		checkNesting(actions, env, "crew_fork");
		return reply(await actions.fork(runId, ask));
	});
	tool("crew_replay", async ({ runId, ...ask }) => {
		checkNesting(actions, env, "crew_replay");
		return reply(await actions.replay(runId, ask));
	});
	tool("crew_runs", (filter) => reply(actions.runs(filter)));
	tool("crew_inbox", () => reply(actions.inbox()));
	tool("crew_recommend", ({ goal }) => reply(actions.recommend(goal)));
	tool("crew_validate", () => reply(actions.validate()));
	tool("crew_doctor", async ({ smoke }) => reply(await actions.doctor(smoke === true)));
	tool("crew_worktrees", async ({ runId }) => reply(await actions.worktrees(runId)));
	tool("crew_merge", async ({ runId, partial }) => reply(await actions.merge(runId, partial === true)));
	tool("crew_export", async ({ runId, file }) => reply(await actions.export(runId, file)));
	tool("crew_schedule", async (args) => {
		if (args.op === "run") checkNesting(actions, env, "crew_schedule");
		return reply(await scheduleTool(actions.project, args));
	});
	tool("crew_scheduled", async () => reply(await scheduleTool(actions.project, { op: "list" })));
	return server;
}
