// `crew agent`: one agent on one task, as a run of the one-step workflow `agent:<name>`.

import type { Project } from "../../config/project.js";
import type { SandboxLevel } from "../../core/sandbox-level.js";
import { setAsideText } from "../../core/set-aside-text.js";
import { timed } from "../../core/timings.js";
import { agentWorkflowName, DEFAULT_AGENT } from "../../engine/planning/agent-workflow.js";
import { RunReader } from "../../engine/views/reader.js";
import { diagnosticText } from "../../resources/frontmatter.js";
import { startBackgroundRunner } from "../shared/background-runner.js";
import { delegationRoute } from "../shared/delegation-client.js";
import { RunEnding } from "../shared/run-ending.js";
import { runInput } from "../shared/run-input.js";
import { delegatedCommand, ignoredOptions } from "./delegated-command.js";
import { Exit, exitOfRun } from "./exit-codes.js";
import { readGoal } from "./goal-input.js";
import { print, printError } from "./print.js";
import { open, runHere } from "./run-commands.js";

function resultOf(project: Project, runId: string, taskId: string): ReturnType<RunReader["result"]> {
	const reader = new RunReader(project);
	try {
		return reader.result(runId, taskId);
	} finally {
		reader.close();
	}
}

export interface AgentFlags {
	/** The agent's name; default `executor`. */
	readonly agent?: string;
	readonly runtime?: string;
	readonly model?: string;
	readonly workspace?: "shared" | "worktree";
	readonly allowDirty?: boolean;
	readonly allowShared?: boolean;
	readonly sandbox?: SandboxLevel;
	readonly budgetTokens?: number;
	readonly budgetUsd?: number;
	readonly timeout?: string;
	readonly stallTimeout?: string;
	readonly background?: boolean;
	readonly json?: boolean;
}

/**
 * `crew agent "<task>"`: one agent on one task, as a run of the one-step workflow `agent:<name>`,
 * so it is stored, viewed, budgeted, cancelled and resumed as any run. In the foreground stdout
 * is the agent's result alone (progress goes to stderr on a terminal) and the exit code is the
 * run's; `--background` prints the run id at once.
 */
export async function agentCommand(argument: string, flags: AgentFlags): Promise<number> {
	const task = readGoal(argument, undefined);
	const agent = flags.agent ?? DEFAULT_AGENT;
	const socket = delegationRoute(process.env, "crew agent");
	if (socket) {
		const { model, budgetTokens, json, ...rest } = flags;
		const ask = { task, agent, ...(model ? { model } : {}), ...(budgetTokens ? { budgetTokens } : {}) };
		return await delegatedCommand(socket, ask, json === true, ignoredOptions(rest, ["agent"]));
	}
	const { crew, view, quiet, settings } = open({ json: true, detach: flags.background === true });
	try {
		const input = runInput({ ...flags, goal: task, workflow: agentWorkflowName(agent) }, settings);
		const plan = await timed("plan the run", () => crew.plan(input));
		for (const d of plan.diagnostics) printError(`crew: ${diagnosticText(d)}\n`);
		// Only a model the person named is checked, and only then is pi asked which it has.
		if (flags.model) await (await import("../shared/model-check.js")).checkPlanModel(plan, flags.model, settings);
		const runId = timed("record the run", () => crew.create(plan));
		const taskId = plan.tasks[0]?.id ?? agent;
		if (flags.background) {
			const runner = await startBackgroundRunner(crew, runId, ["--if-queued"]);
			if (flags.json) {
				const started = { runId, status: runner.status, taskId, agent, workflow: plan.workflow };
				print(`${JSON.stringify(started)}\n`);
			} else {
				print(`${runId}\n`);
				printError(
					`crew: agent ${agent} works on it in the background (pid ${runner.pid}); its result: crew result ${runId}\n`,
				);
			}
			return Exit.Ok;
		}
		const { listing, standing } = await timed("run it", () => runHere(crew, runId, view, quiet));
		const { task: record, text } = resultOf(crew.project, runId, taskId);
		const { run } = listing;
		if (flags.json) {
			const ended = { runId, taskId, agent, status: run.status, error: record.error ?? run.error, result: text };
			print(`${JSON.stringify(ended)}\n`);
		} else {
			print(text === "" || text.endsWith("\n") ? text : `${text}\n`);
			for (const aside of record.setAside ?? [])
				printError(`crew: warning: attempt ${aside.attempt}: ${setAsideText(aside)}\n`);
			if (standing.ending !== RunEnding.Completed) {
				const why = run.error ?? record.error;
				printError(`crew: run ${runId} ${run.status}${why ? `: ${why}` : ""}\n`);
				if (standing.next) printError(`next: ${standing.next}\n`);
			}
		}
		return exitOfRun(standing.ending);
	} finally {
		crew.close();
	}
}
