// The files a repository's git config brings in (`include.path`, `includeIf.*.path`): config as much as its own.

import { existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { gitRunSync } from "../git.js";

/** How deep includes are followed; git's own limit is 10. */
const MAX_DEPTH = 10;

/**
 * The files that `config` (a git config file) includes, and those they include in turn, whatever
 * their condition: each is config to every git run in the repository, wherever it lies. Paths
 * are resolved as git resolves them: relative to the including file's folder, `~/` from the home.
 */
export function configIncludes(config: string): string[] {
	const found: string[] = [];
	const seen = new Set<string>([config]);
	let files = [config];
	for (let depth = 0; depth < MAX_DEPTH && files.length > 0; depth++) {
		const next: string[] = [];
		for (const file of files) {
			for (const path of includedBy(file)) {
				if (seen.has(path)) continue;
				seen.add(path);
				found.push(path);
				next.push(path);
			}
		}
		files = next;
	}
	return found;
}

/** The paths `file` includes directly; none when it does not exist or names no include. */
function includedBy(file: string): string[] {
	if (!existsSync(file) || !/include/i.test(readFileSync(file, "utf8"))) return [];
	const listed = gitRunSync(dirname(file), [
		"config",
		"--file",
		file,
		"--null",
		"--get-regexp",
		"^include(if\\..+)?\\.path$",
	]);
	// Exit 1: no such key. Any other failure is a config git cannot read, which git will refuse too.
	if (listed.code !== 0) return [];
	return listed.stdout
		.split("\0")
		.filter((entry) => entry !== "")
		.map((entry) => entry.slice(entry.indexOf("\n") + 1))
		.map((path) => (path.startsWith("~/") ? join(homedir(), path.slice(2)) : path))
		.map((path) => (isAbsolute(path) ? path : resolve(dirname(file), path)));
}
