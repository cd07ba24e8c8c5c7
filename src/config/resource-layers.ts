// The folders crew reads agents, teams and workflows from: the builtin, user and project layers.

import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import type { ResourceLayer } from "../resources/resource-layer.js";
import { crewPackagePath } from "./crew-package.js";
import type { Project } from "./project.js";

/** crew's own agents, teams and workflows, shipped in the package. */
export function builtinDir(): string {
	return crewPackagePath("builtin");
}

/** crew's user config folder: `$XDG_CONFIG_HOME/crew`, or `~/.config/crew` when that is unset or empty. */
export function userConfigDir(env: NodeJS.ProcessEnv = process.env): string {
	const xdg = env.XDG_CONFIG_HOME?.trim();
	return join(xdg ? xdg : join(env.HOME || homedir(), ".config"), "crew");
}

/**
 * The user's resource folders, strongest first: crew's user config folder, then pi's agent folder
 * (`$PI_CODING_AGENT_DIR`, else `~/.pi/agent`), where pi-crew users keep theirs.
 */
export function userResourceDirs(env: NodeJS.ProcessEnv = process.env): string[] {
	return [userConfigDir(env), piAgentFolder(env)];
}

/** pi's agent folder: `$PI_CODING_AGENT_DIR`, else `~/.pi/agent`. */
export function piAgentFolder(env: NodeJS.ProcessEnv = process.env): string {
	return env.PI_CODING_AGENT_DIR?.trim() || join(env.HOME || homedir(), ".pi", "agent");
}

/**
 * Every resource layer of a project: the builtins, the user's folders, then the project's `.crew/`
 * and, where the repository already has `.pi/`, pi-crew's `.pi/teams/`.
 */
export function resourceLayers(project: Project, userDirs: readonly string[]): ResourceLayer[] {
	const layers: ResourceLayer[] = [{ layer: "builtin", dir: builtinDir() }];
	for (const dir of userDirs) layers.push({ layer: "user", dir });
	layers.push({ layer: "project", dir: project.crewDir });
	const pi = join(project.root, ".pi");
	if (existsSync(pi)) layers.push({ layer: "project", dir: join(pi, "teams") });
	return layers;
}
