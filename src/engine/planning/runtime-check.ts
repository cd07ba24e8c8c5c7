// Planning's runtime checks: which runtime an agent is checked for, and what keeps it from running.

import { didYouMean } from "../../core/near-names.js";
import type { RuntimeRegistry } from "../../runtimes/runtime-registry.js";

/**
 * Whether the run's runtime replaces its agents' own when they are checked. A dry run stands for
 * the run without it, so its agents are checked as they would run there: what that run refuses or
 * warns of, the dry run does too.
 */
export function overridesAgents(override: string | undefined): override is string {
	return override !== undefined && override !== "dry-run";
}

/** The runtime an agent is checked for when a run is planned (see `overridesAgents`). */
export function checkedRuntime(override: string | undefined, agentRuntime: string): string {
	return overridesAgents(override) ? override : agentRuntime;
}

/**
 * What keeps an agent from running, or undefined: a runtime this crew does not have, or a command
 * agent without its command line. `crew run` refuses on it and `crew validate` reports it, in the
 * same words.
 */
export function runtimeProblem(
	agent: { readonly name: string; readonly runtime: string; readonly command?: string },
	file: string,
	runtimes: RuntimeRegistry,
): string | undefined {
	if (!runtimes.has(agent.runtime)) {
		return `agent '${agent.name}' (${file}) uses runtime '${agent.runtime}', which is not available: available are ${runtimes.names().join(", ")}${didYouMean(agent.runtime, runtimes.names())} (set runtime: in the agent, or pass --runtime)`;
	}
	if (agent.runtime === "command" && !agent.command?.trim()) {
		return `agent '${agent.name}' (${file}) has runtime 'command' but no command: line`;
	}
	return undefined;
}
