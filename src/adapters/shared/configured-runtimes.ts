// The standard runtimes with the user's agent CLI programs and the variables passed to agents.

import type { AgentCliName, Settings } from "../../config/settings.js";
import { RuntimeRegistry } from "../../runtimes/runtime-registry.js";

/**
 * The standard runtimes with the user's agent CLI programs (over `CREW_PI`, `CREW_CLAUDE`,
 * `CREW_CODEX`) and the variables the user passes to agents (with `CREW_PASS_ENV`'s).
 */
export function configuredRuntimes(settings: Settings, env: NodeJS.ProcessEnv = process.env): RuntimeRegistry {
	const passed = [env.CREW_PASS_ENV ?? "", ...(settings.passEnv ?? [])].filter((v) => v !== "").join(",");
	const program = (name: AgentCliName) => {
		const file = settings.programs?.[name];
		return file ? { [name]: { command: [file] } } : {};
	};
	return RuntimeRegistry.standard({
		env: passed === "" ? env : { ...env, CREW_PASS_ENV: passed },
		...program("pi"),
		...program("claude"),
		...program("codex"),
	});
}
