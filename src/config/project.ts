// A project: the repository around a folder, and where crew keeps its files there in `.crew/`.

import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

/** Where a repository keeps crew's files. */
export interface Project {
	readonly root: string;
	readonly crewDir: string;
	readonly dbFile: string;
	readonly runsDir: string;
}

/** State crew writes that a repository should not track; resources in `.crew/` stay tracked. */
const IGNORED_STATE = ["crew.db", "crew.db-*", "runs/", "worktrees/"];

/** The project around `cwd`: the nearest folder with `.crew/` or `.git`, else `cwd` itself. */
export function findProject(cwd: string): Project {
	const start = resolve(cwd);
	let dir = start;
	for (;;) {
		if (existsSync(join(dir, ".crew")) || existsSync(join(dir, ".git"))) return projectAt(dir);
		const parent = dirname(dir);
		if (parent === dir) return projectAt(start);
		dir = parent;
	}
}

export function projectAt(root: string): Project {
	const crewDir = join(root, ".crew");
	return { root, crewDir, dbFile: join(crewDir, "crew.db"), runsDir: join(crewDir, "runs") };
}

/** Creates `.crew/`; returns whether it was created. */
export function ensureCrewDir(project: Project): boolean {
	const created = !existsSync(project.crewDir);
	mkdirSync(project.crewDir, { recursive: true });
	return created;
}

/** crew's state in a repository as patterns of its root, for `info/exclude`. */
export const STATE_PATTERNS: readonly string[] = IGNORED_STATE.map((pattern) => `/.crew/${pattern}`);

/**
 * Writes `.crew/.gitignore` for crew's state, to be committed with the resources beside it, so
 * that every clone of the repository ignores it; returns whether it was written.
 */
export function writeCrewIgnore(project: Project): boolean {
	const ignore = join(project.crewDir, ".gitignore");
	if (existsSync(ignore)) return false;
	mkdirSync(project.crewDir, { recursive: true });
	writeFileSync(ignore, `${IGNORE_HEADING}\n${IGNORED_STATE.join("\n")}\n`);
	return true;
}

export const IGNORE_HEADING = "# crew's run state; agents/, teams/, workflows/ and config.json stay tracked";
