import type { AgentSpec } from "./types.js";

/**
 * What an agent makes this machine run beyond an agent CLI under crew's permissions, run as
 * `runtime`: its command line, for a command agent; `permissions: full`; else nothing.
 */
export function agentRuns(agent: AgentSpec, runtime: string): string | undefined {
	if (runtime === "command") return agent.command;
	return agent.permissions === "full"
		? "permissions: full (Codex danger-full-access, Claude Code bypassPermissions)"
		: undefined;
}
