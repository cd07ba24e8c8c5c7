// The tool names an agent's `tools:` may use, and which of them each runtime knows.

import { ASK_TOOL } from "./asked.js";

/**
 * The tool names an agent's `tools:` may use: pi's own, which crew maps onto each runtime's. Names
 * in Claude Code's capitalised spelling pass to Claude as they are.
 */
export const AGENT_TOOLS: readonly string[] = ["read", "bash", "edit", "write", "grep", "find", "ls"];

/**
 * The tools crew itself gives the agents it runs, in every agent runtime: listed in `tools:` or
 * not, each comes with the attempts that may use it (`ask` with a step whose agents may ask).
 */
export const CREW_TOOLS: readonly string[] = [ASK_TOOL];

/**
 * The tools a pi agent delegates with, inside a run whose runner takes delegations: an agent whose
 * `tools:` is a list gets those it names.
 */
export const DELEGATION_TOOLS: readonly string[] = ["agent", "team"];

/** Whether an agent's tool list means "every tool the CLI has". */
export function allTools(tools: readonly string[] | undefined): boolean {
	return tools === undefined || tools.some((t) => t === "*" || t === "all");
}

/** Whether the name may be a tool of a pi extension the agent names: not a Claude Code spelling. */
export function isExtensionTool(name: string): boolean {
	return /^[a-z][a-z0-9_-]*$/.test(name);
}

/**
 * Whether some runtime knows the tool: one of `AGENT_TOOLS`, one crew gives (`CREW_TOOLS`), or a
 * capitalised (Claude) name.
 */
export function isKnownTool(name: string): boolean {
	return (
		AGENT_TOOLS.includes(name) ||
		CREW_TOOLS.includes(name) ||
		DELEGATION_TOOLS.includes(name) ||
		/^[A-Z][A-Za-z]*$/.test(name) ||
		name === "*" ||
		name === "all"
	);
}
