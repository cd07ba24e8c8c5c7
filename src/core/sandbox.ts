// Which sandbox a task's attempts get: the asks of its step, agent and team, with crew's state hidden.

import { type AttemptSandbox, looser, type SandboxAsk } from "./sandbox-level.js";
import { allTools } from "./tools.js";
import type { AgentSpec, RunOptions, TaskSpec } from "./types.js";

/**
 * The asks that decide a task's level, the most specific first: its step's (from the workflow or
 * script that made it), its agent's, its team's. The first one present wins over the run's level.
 */
export function sandboxAsks(task: TaskSpec, options: RunOptions): SandboxAsk[] {
	const step = stepAsk(task, options);
	return [
		...(step ? [step] : []),
		...(task.agent.sandbox ? [agentAsk(task.agent)] : []),
		...(options.sandbox?.team ? [options.sandbox.team] : []),
	];
}

/** What a task's step asks for, from the workflow or the script that made it. */
export function stepAsk(task: TaskSpec, options: RunOptions): SandboxAsk | undefined {
	const source = task.call ? options.script : options.source;
	return task.sandbox ? { level: task.sandbox, ...(source ? { source } : {}) } : undefined;
}

export function agentAsk(agent: AgentSpec): SandboxAsk {
	return { level: agent.sandbox ?? "off", ...(agent.source ? { source: agent.source } : {}) };
}

/** What crew keeps in its folder of a repository that no task may see: its store, every run's files, the worktrees. */
export const CREW_STATE: readonly string[] = [
	"crew.db",
	"crew.db-wal",
	"crew.db-shm",
	"crew.db-journal",
	"runs",
	"worktrees",
];

/**
 * The sandbox of a task's attempts, with crew's folder `crewDir` hidden but for its resources,
 * which show read-only; a run recorded without one runs unconfined, as it did then.
 */
export function taskSandbox(task: TaskSpec, options: RunOptions, crewDir: string): AttemptSandbox {
	const asked = sandboxAsks(task, options)[0]?.level ?? options.sandbox?.level ?? "off";
	// A delegated run's tasks are confined at least as its delegating attempt was.
	const least = options.nested?.sandbox;
	const level = least !== undefined && looser(asked, least) ? least : asked;
	const hosts = options.sandbox?.hosts ?? [];
	const readOnly = readOnlyAgent(task.agent) || options.nested?.readOnly === true;
	return { level, readOnly, hide: [crewDir], resources: crewDir, show: [options.cwd], hosts };
}

/**
 * Whether an agent changes nothing in its workspace: `permissions: read-only`, or a tool list
 * without a tool that writes (a shell writes).
 */
export function readOnlyAgent(agent: AgentSpec): boolean {
	if (agent.permissions === "read-only") return true;
	if (agent.runtime === "command" || allTools(agent.tools)) return false;
	return !agent.tools?.some((tool) => /^(write|edit|bash|multiedit|notebookedit)$/i.test(tool));
}
