// Where an agent's skills and extensions are found, and which project skills a sandboxed attempt is shown.

import { existsSync, realpathSync } from "node:fs";
import { basename, dirname, isAbsolute, join, resolve } from "node:path";
import type { AgentSetup } from "../../core/agent-setup.js";
import { piAgentDir } from "./credentials.js";

/**
 * The folders a skill named in an agent's `skills:` is looked for in, in order: the project's
 * (`.crew/skills`, `.pi/skills`, `.agents/skills`), then the user's (pi's `skills`,
 * `~/.agents/skills`). A skill is a folder holding `SKILL.md`.
 */
function skillFolders(cwd: string, env: NodeJS.ProcessEnv): string[] {
	const user = piAgentDir(env);
	return [
		join(cwd, ".crew", "skills"),
		join(cwd, ".pi", "skills"),
		join(cwd, ".agents", "skills"),
		...(user ? [join(user, "skills")] : []),
		...(env.HOME ? [join(env.HOME, ".agents", "skills")] : []),
	];
}

/** Where skill `name` is for an agent working in `cwd`: a path as it is, a name found; else undefined. */
export function skillPath(name: string, cwd: string, env: NodeJS.ProcessEnv): string | undefined {
	if (name.includes("/") || name.startsWith(".")) {
		const path = isAbsolute(name) ? name : resolve(cwd, name);
		return existsSync(path) ? path : undefined;
	}
	return skillFolders(cwd, env)
		.map((folder) => join(folder, name))
		.find((folder) => existsSync(join(folder, "SKILL.md")));
}

/** The agent's `extensions:`, without those `excludeExtensions:` names, as paths from `cwd`. */
export function agentExtensions(setup: AgentSetup, cwd: string): string[] {
	const excluded = new Set((setup.excludeExtensions ?? []).map((name) => name.toLowerCase()));
	const named = (path: string) => basename(path).toLowerCase();
	return (setup.extensions ?? [])
		.filter((path) => !excluded.has(named(path)) && !excluded.has(named(path).replace(/\.[cm]?[jt]s$/, "")))
		.map((path) => (isAbsolute(path) ? path : resolve(cwd, path)));
}

/**
 * The project's skills an agent names (`.crew/skills/<name>`): what a sandboxed attempt must be
 * shown, as crew's folder is hidden from it. Nothing else is: each is a real folder holding
 * `SKILL.md` directly in it, links resolved, so a file cannot name its way (or link its way) into
 * a hidden folder.
 */
export function projectSkills(setup: AgentSetup, cwd: string, env: NodeJS.ProcessEnv): string[] {
	const real = (path: string) => {
		try {
			return realpathSync(path);
		} catch {
			return undefined;
		}
	};
	const own = real(join(cwd, ".crew", "skills"));
	if (own === undefined) return [];
	return (setup.skills ?? []).flatMap((name) => {
		const found = skillPath(name, cwd, env);
		const path = found === undefined ? undefined : real(found);
		return path !== undefined && dirname(path) === own && existsSync(join(path, "SKILL.md")) ? [path] : [];
	});
}
