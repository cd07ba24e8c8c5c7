// Planning warnings for thinking levels that an agent's runtime has no equivalent of.

import type { AgentSpec } from "../../core/types.js";
import type { Diagnostic } from "../../resources/frontmatter.js";
import type { RuntimeRegistry } from "../../runtimes/runtime-registry.js";
import { checkedRuntime } from "./runtime-check.js";

/**
 * One warning per runtime whose agent CLI has no equivalent of a thinking level its agents are
 * given: those agents run at the CLI's default. `runtime` is the run's override of every agent's;
 * a dry run is checked as the run it stands for.
 */
export function thinkingWarnings(
	agents: readonly AgentSpec[],
	runtime: string | undefined,
	runtimes: RuntimeRegistry,
): Diagnostic[] {
	const lost = new Map<string, { levels: Set<string>; agents: Set<string>; file: string }>();
	for (const agent of agents) {
		const name = checkedRuntime(runtime, agent.runtime);
		const level = agent.thinking;
		if (level === undefined || !runtimes.has(name)) continue;
		if (runtimes.get(name).takesThinking?.(level) !== false) continue;
		const entry = lost.get(name) ?? { levels: new Set(), agents: new Set(), file: agent.source?.file ?? "" };
		entry.levels.add(level);
		entry.agents.add(agent.name);
		lost.set(name, entry);
	}
	return [...lost].map(([name, { levels, agents: names, file }]) => ({
		level: "warning",
		file,
		message: `runtime ${name} has no thinking level ${[...levels].join(" or ")}: ${names.size === 1 ? "agent" : "agents"} ${[...names].join(", ")} run${names.size === 1 ? "s" : ""} at ${name}'s default`,
	}));
}
