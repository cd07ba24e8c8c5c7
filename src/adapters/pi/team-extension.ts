import { setTimeout as sleep } from "node:timers/promises";
import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";
import { Type } from "typebox";
import { findProject } from "../../config/project.js";
import { CrewError, ErrorCode } from "../../core/errors.js";
import { isTerminalRun } from "../../core/status.js";
import { TeamActions } from "../team-actions.js";
import { runReport, statusText } from "./run-report.js";

const ACTIONS = ["run", "plan", "status", "events", "result", "cancel", "resume", "approve", "list"] as const;
type Action = (typeof ACTIONS)[number];

/** Time between reads of a watched run's status, in ms. */
const WATCH_MS = 1000;
/** Longest `status` with `wait` waits, in seconds, unless told otherwise. */
const DEFAULT_WAIT_S = 600;

const Params = Type.Object({
	action: Type.Unsafe<Action>({ type: "string", enum: [...ACTIONS], description: "what to do" }),
	goal: Type.Optional(Type.String({ description: "run, plan: what the team should achieve" })),
	workflow: Type.Optional(
		Type.String({
			description:
				"run, plan: a workflow name (see action list) or path; default: the team's defaultWorkflow, without a team the default team's",
		}),
	),
	team: Type.Optional(Type.String({ description: "run, plan: a team name or path" })),
	runtime: Type.Optional(Type.String({ description: "run: one runtime for every agent (pi, claude, codex, command)" })),
	concurrency: Type.Optional(Type.Integer({ minimum: 1, maximum: 64, description: "run: most tasks at once" })),
	timeout: Type.Optional(
		Type.String({ description: "run: wall-clock limit of each task attempt, e.g. 30m; 0: none; default 2h" }),
	),
	stallTimeout: Type.Optional(
		Type.String({ description: "run: limit on an attempt's time without output, e.g. 5m; 0: none; default 10m" }),
	),
	args: Type.Optional(
		Type.Record(Type.String(), Type.Unknown(), { description: "run: a workflow script's arguments (its args schema)" }),
	),
	runId: Type.Optional(Type.String({ description: "the run (status: default the latest)" })),
	task: Type.Optional(Type.String({ description: "result: a task id or step id" })),
	since: Type.Optional(Type.Integer({ minimum: 0, description: "events: the last seq already seen" })),
	kind: Type.Optional(
		Type.Unsafe<"agents" | "teams" | "workflows">({ type: "string", enum: ["agents", "teams", "workflows"] }),
	),
	wait: Type.Optional(Type.Boolean({ description: "status: wait until the run ends" })),
	timeoutSeconds: Type.Optional(Type.Integer({ minimum: 1, description: "status with wait: give up after this long" })),
});

type Params = {
	action: Action;
	goal?: string;
	workflow?: string;
	team?: string;
	runtime?: string;
	concurrency?: number;
	timeout?: string;
	stallTimeout?: string;
	args?: Record<string, unknown>;
	runId?: string;
	task?: string;
	since?: number;
	kind?: "agents" | "teams" | "workflows";
	wait?: boolean;
	timeoutSeconds?: number;
};

function need<T>(value: T | undefined, name: string, action: string): T {
	if (value === undefined || value === "") {
		throw new CrewError(ErrorCode.InvalidInput, `team ${action} needs '${name}'`);
	}
	return value;
}

function text(body: string, details: object) {
	return { content: [{ type: "text" as const, text: body }], details };
}

/**
 * crew inside pi: a `team` tool that plans, starts, follows and steers team runs in the session's
 * repository, through the same engine and store as the `crew` CLI. A run the tool starts (or
 * resumes, or approves) is watched, and when it ends its report is sent into the session, which
 * starts a turn if the agent is idle.
 *
 * Inside crew's own pi workers (their environment names a crew run) the tool is not offered: a
 * worker that could start teams would let one run grow without bound.
 */
export default function teamExtension(pi: ExtensionAPI): void {
	if (process.env.CREW_RUN_ID !== undefined) return;
	const watches = new Map<string, NodeJS.Timeout>();

	const watch = (actions: TeamActions, runId: string) => {
		if (watches.has(runId)) return;
		const report = (content: string, details: object) => {
			clearInterval(timer);
			watches.delete(runId);
			pi.sendMessage(
				{ customType: "crew-run", content, display: true, details },
				{ deliverAs: "followUp", triggerTurn: true },
			);
		};
		const timer = setInterval(() => {
			try {
				if (!isTerminalRun(actions.status(runId).run.status)) return;
				const ended = runReport(actions, runId);
				report(ended.text, ended.status);
			} catch (error) {
				const message = error instanceof Error ? error.message : String(error);
				report(`crew stopped following run ${runId}: ${message}`, { runId, error: message });
			}
		}, WATCH_MS);
		// A watch never keeps pi running on its own.
		timer.unref();
		watches.set(runId, timer);
	};

	pi.on("session_shutdown", async () => {
		for (const timer of watches.values()) clearInterval(timer);
		watches.clear();
	});

	pi.registerTool({
		name: "team",
		label: "Team",
		description:
			"Run a team of coding agents with crew. Actions: list (agents, teams, workflows), plan (the tasks a run would have), run (start a run in the background; its report comes back into this session when it ends), status (a run and its tasks; wait=true waits for the end), events, result (a task's result), cancel, resume, approve.",
		promptSnippet: "Run a team of coding agents on a goal with crew: plan, run in the background, follow, read results",
		promptGuidelines: [
			"Use team with action list to see the workflows, then action run with a goal and a workflow to start a team run; its report arrives in this session when it ends.",
		],
		parameters: Params,
		async execute(_toolCallId, raw, signal, _onUpdate, ctx) {
			const params = raw as Params;
			const actions = new TeamActions(findProject(ctx.cwd));
			const { action } = params;
			switch (action) {
				case "list": {
					const rows = actions.list(params.kind);
					return text(rows.map((r) => `${r.kind} ${r.name} (${r.layer}): ${r.description}`).join("\n"), { rows });
				}
				case "plan": {
					const plan = actions.plan(runRequest(params, action));
					const groups = plan.parallelGroups.map((ids, i) => `${i + 1}. ${ids.join(", ")}`).join("\n");
					return text(`workflow ${plan.workflow}: ${plan.tasks.length} tasks, in order:\n${groups}`, plan);
				}
				case "run": {
					const started = await actions.run(runRequest(params, action));
					watch(actions, started.runId);
					return text(
						`Started crew run ${started.runId} (${started.tasks} tasks of workflow ${started.workflow}), now ${started.status}, in the background. Its report comes back here when it ends; team status shows it any time.`,
						started,
					);
				}
				case "status": {
					if (params.wait) {
						const runId = need(params.runId, "runId", action);
						await untilEnded(actions, runId, (params.timeoutSeconds ?? DEFAULT_WAIT_S) * 1000, signal);
					}
					const status = actions.status(params.runId);
					return text(statusText(status), status);
				}
				case "events": {
					const events = actions.events(need(params.runId, "runId", action), params.since ?? 0);
					return text(events.events.map((e) => JSON.stringify(e)).join("\n") || "no new events", events);
				}
				case "result": {
					const result = actions.result(need(params.runId, "runId", action), need(params.task, "task", action));
					return text(result.result || `task ${result.taskId} is ${result.status} and has no result`, result);
				}
				case "cancel":
					return done(await actions.cancel(need(params.runId, "runId", action), "cancelled from pi"));
				case "resume": {
					const resumed = await actions.resume(need(params.runId, "runId", action));
					if (resumed.started) watch(actions, resumed.runId);
					return done(resumed);
				}
				case "approve": {
					const approved = await actions.approve(need(params.runId, "runId", action));
					watch(actions, approved.runId);
					return done(approved);
				}
				default:
					throw new CrewError(
						ErrorCode.InvalidInput,
						`unknown team action '${String(action)}': expected ${ACTIONS.join(", ")}`,
					);
			}
		},
	});
}

function runRequest(params: Params, action: string) {
	return {
		goal: need(params.goal, "goal", action),
		...(params.workflow !== undefined && params.workflow !== "" ? { workflow: params.workflow } : {}),
		...(params.team !== undefined ? { team: params.team } : {}),
		...(params.runtime !== undefined ? { runtime: params.runtime } : {}),
		...(params.concurrency !== undefined ? { concurrency: params.concurrency } : {}),
		...(params.timeout !== undefined ? { timeout: params.timeout } : {}),
		...(params.stallTimeout !== undefined ? { stallTimeout: params.stallTimeout } : {}),
		...(params.args !== undefined ? { args: params.args } : {}),
	};
}

function done(result: { runId: string; status: string }) {
	return text(`run ${result.runId} is ${result.status}`, result);
}

async function untilEnded(actions: TeamActions, runId: string, limitMs: number, signal: AbortSignal | undefined) {
	const until = Date.now() + limitMs;
	while (!isTerminalRun(actions.status(runId).run.status) && Date.now() < until) {
		await sleep(500, undefined, signal ? { signal } : {});
	}
}
