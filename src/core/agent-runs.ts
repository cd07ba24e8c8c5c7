// What an agent makes this machine run beyond an agent CLI under crew's permissions.

import type { AgentSpec } from "./types.js";

/**
 * What an agent makes this machine run beyond an agent CLI under crew's permissions, run as
 * `runtime`: its command line, for a command agent; the pi extensions it names (code pi loads
 * and runs); `permissions: full`; else nothing.
 */
export function agentRuns(agent: AgentSpec, runtime: string): string | undefined {
	if (runtime === "command") return agent.command;
	const runs = [
		...(runtime === "pi" && agent.setup?.extensions?.length
			? [`extensions: ${agent.setup.extensions.join(", ")}`]
			: []),
		...(agent.permissions === "full"
			? ["permissions: full (Codex danger-full-access, Claude Code bypassPermissions)"]
			: []),
	];
	return runs.length > 0 ? runs.join("; ") : undefined;
}
