// Who asked for a run off the CLI, an agent or a person over the API, and what its record keeps of that.

import type { Settings } from "../../config/settings.js";
import type { SandboxLevel } from "../../core/sandbox-level.js";
import type { RunOrigin } from "../../core/types.js";
import type { Plan } from "../../engine/planning/plan-input.js";
import { checkAgentSandbox } from "./agent-sandbox.js";

/**
 * Who asked: an agent (through the MCP server or the pi extension), with its session id if it
 * gave one; or `api`, a person over `crew serve`'s HTTP API, whose asks are the user's own, as
 * on the CLI.
 */
export type RunAsker = { readonly session?: string } | "api";

/** What a run's options keep of `asker`: an agent's session as the caller's, or that a person asked over the API. */
export function originOf(asker: RunAsker): RunOrigin {
	return asker === "api" ? { startedOver: "api" } : { caller: asker };
}

/** `plan` with `origin` in its options: an agent's commands then count as the repository's own (see `runReach`). */
export function withOrigin(plan: Plan, origin: RunOrigin | undefined): Plan {
	return origin ? { ...plan, options: { ...plan.options, ...origin } } : plan;
}

/**
 * Refuses a sandbox level looser than the user's own when an agent asks for it (see
 * `checkAgentSandbox`); a person over the API may loosen it, as `crew run --sandbox` may.
 */
export function checkAskedSandbox(
	asker: RunAsker,
	asked: SandboxLevel | undefined,
	settings: Pick<Settings, "sandbox">,
	machine: { available(): boolean },
): void {
	if (asker !== "api") checkAgentSandbox(asked, settings, machine);
}
