// How crew starts an agent CLI on this machine, as its runtimes do, and the rule that chose the program.

import { join } from "node:path";
import { userConfigDir } from "../../config/resource-layers.js";
import type { AgentCliName, Settings } from "../../config/settings.js";
import { bundledPi } from "../../runtimes/pi/cli.js";
import { onPath } from "../../runtimes/process/program-path.js";

/** How crew starts an agent CLI: the program, the file that runs, and the rule that chose it. */
export interface CliProgram {
	readonly command: readonly string[];
	readonly file: string;
	readonly rule: string;
}

/**
 * How crew starts each agent CLI, as its runtimes do: the program in the user's config, else
 * `CREW_PI` / `CREW_CLAUDE` / `CREW_CODEX`, else the CLI on PATH, else (pi only) crew's own.
 */
export function cliProgram(name: AgentCliName, settings: Settings | undefined, env: NodeJS.ProcessEnv): CliProgram {
	const configured = settings?.programs?.[name];
	if (configured) {
		const rule = `runtimes.${name} in ${join(userConfigDir(env), "config.json")}`;
		return { command: [configured], file: configured, rule };
	}
	const variable = `CREW_${name.toUpperCase()}`;
	const given = env[variable];
	if (given) return { command: [given], file: given, rule: variable };
	const found = onPath(name, env.PATH ?? "");
	if (found) return { command: [found], file: found, rule: `${name} on PATH` };
	const bundled = name === "pi" ? bundledPi() : undefined;
	if (!bundled) return { command: [name], file: name, rule: `${name} on PATH` };
	return { command: bundled, file: bundled[1] as string, rule: "crew's own pi, as none is on PATH" };
}
