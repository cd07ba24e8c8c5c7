// The project files pi loads only under its project trust, and the parsing of a printed version number.

import { existsSync } from "node:fs";
import { dirname, join, relative } from "node:path";

/**
 * The files of a working folder that pi loads as the project's own code and settings, which pi
 * 1.x loads only under its project trust: `.pi/settings.json`, `.pi/mcp.json`, `.pi`'s
 * extensions, skills, prompts, themes and system-prompt files, and `.agents/skills` in the folder
 * or any folder above it. Paths relative to `cwd`.
 */
export function piProjectResources(cwd: string): string[] {
	const own = [
		"settings.json",
		"mcp.json",
		"extensions",
		"skills",
		"prompts",
		"themes",
		"SYSTEM.md",
		"APPEND_SYSTEM.md",
	].map((name) => join(".pi", name));
	const found = own.filter((path) => existsSync(join(cwd, path)));
	for (let dir = cwd; ; dir = dirname(dir)) {
		const skills = join(dir, ".agents", "skills");
		if (existsSync(skills)) found.push(relative(cwd, skills));
		if (dirname(dir) === dir) break;
	}
	return found;
}

/** The first `major.minor.patch` a program printed, as numbers. */
export function parseVersion(text: string): readonly [number, number, number] | undefined {
	const match = /(\d+)\.(\d+)\.(\d+)/.exec(text);
	return match ? [Number(match[1]), Number(match[2]), Number(match[3])] : undefined;
}
