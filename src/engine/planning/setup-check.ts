// Planning warnings for agent setup keys a runtime has no equivalent of, and for skills found nowhere.

import type { SetupKey } from "../../core/agent-setup.js";
import type { AgentSpec } from "../../core/types.js";
import type { Diagnostic } from "../../resources/frontmatter.js";
import { skillPath } from "../../runtimes/agent/skills.js";
import type { RuntimeRegistry } from "../../runtimes/runtime-registry.js";
import { checkedRuntime } from "./runtime-check.js";

/**
 * What a run's agents ask of their CLIs that will not happen: one warning per runtime and setup
 * key it has no equivalent of, naming the agents that set it, and one per skill found in none of
 * the skill folders (seen from `cwd`, with this process's `HOME`), which the agent goes without.
 * `runtime` is the run's override of every agent's; a dry run is checked as the run it stands for.
 */
export function setupWarnings(
	agents: readonly AgentSpec[],
	runtime: string | undefined,
	runtimes: RuntimeRegistry,
	cwd: string,
): Diagnostic[] {
	const ignored = new Map<string, { key: SetupKey; runtime: string; agents: Set<string>; file: string }>();
	const missing = new Map<string, { agents: Set<string>; file: string }>();
	for (const agent of agents) {
		const setup = agent.setup;
		const name = checkedRuntime(runtime, agent.runtime);
		if (setup === undefined || !runtimes.has(name)) continue;
		const file = agent.source?.file ?? "";
		for (const key of runtimes.get(name).ignores?.(setup) ?? []) {
			const entry = ignored.get(`${name} ${key}`) ?? { key, runtime: name, agents: new Set(), file };
			entry.agents.add(agent.name);
			ignored.set(`${name} ${key}`, entry);
		}
		if (runtimes.get(name).ignores?.(setup).includes("skills") !== false) continue;
		for (const skill of setup.skills ?? []) {
			if (skillPath(skill, cwd, process.env)) continue;
			const entry = missing.get(skill) ?? { agents: new Set(), file };
			entry.agents.add(agent.name);
			missing.set(skill, entry);
		}
	}
	const who = (names: Set<string>) => `${names.size === 1 ? "agent" : "agents"} ${[...names].join(", ")}`;
	return [
		...[...ignored.values()].map(({ key, runtime: name, agents: names, file }) => ({
			level: "warning" as const,
			file,
			message: `runtime ${name} has no equivalent of ${key}: ${who(names)} ${names.size === 1 ? "runs" : "run"} without it`,
		})),
		...[...missing].map(([skill, { agents: names, file }]) => ({
			level: "warning" as const,
			file,
			message: `skill '${skill}' of ${who(names)} is in none of .crew/skills, .pi/skills, .agents/skills, ~/.pi/agent/skills, ~/.agents/skills: it is left out`,
		})),
	];
}
