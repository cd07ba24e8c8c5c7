// The rule that an agent-facing caller may tighten the user's sandbox level, never loosen it.

import type { Settings } from "../../config/settings.js";
import { CrewError, ErrorCode } from "../../core/errors.js";
import { isSandboxLevel, looser, type SandboxLevel } from "../../core/sandbox-level.js";

/**
 * Refuses a sandbox level an agent-facing surface (MCP, pi's tool) asks for that is looser than
 * the user's own: the caller is a model, which may have read the repository's files, so it may
 * tighten the user's level and never loosen it. The user's own is their config's, else this
 * machine's default. A level that is no level is left for the planner to name.
 */
export function checkAgentSandbox(
	asked: SandboxLevel | undefined,
	settings: Pick<Settings, "sandbox">,
	machine: { available(): boolean },
): void {
	if (asked === undefined || !isSandboxLevel(asked)) return;
	const own = settings.sandbox ?? (machine.available() ? "workspace" : "off");
	if (!looser(asked, own)) return;
	const whose = settings.sandbox ? "your config.json's" : "this machine's default";
	throw new CrewError(
		ErrorCode.InvalidInput,
		`sandbox '${asked}' is looser than '${own}', ${whose}: an agent may only tighten it; to loosen it, run \`crew run --sandbox ${asked}\` yourself or set "sandbox" in your config.json`,
	);
}
