// A fingerprint of a work tree's content, to tell whether anything changed it between two moments.

import { createHash } from "node:crypto";
import { lstatSync, readFileSync, readlinkSync } from "node:fs";
import { join } from "node:path";
import { gitRun } from "./git.js";

/**
 * A fingerprint of the work tree at `cwd`: its HEAD, git's status of every changed and untracked
 * file, and the bytes of each of those (read here, never through git's filters, which a
 * repository's config could name). Equal fingerprints mean the same tracked content, the same
 * untracked files and the same commit; what git ignores is not seen. Undefined where git cannot
 * say (not a repository).
 */
export async function workspaceFingerprint(cwd: string): Promise<string | undefined> {
	const status = await gitRun(cwd, ["status", "--porcelain=v1", "-z", "--untracked-files=all"]);
	if (status.code !== 0) return undefined;
	const head = await gitRun(cwd, ["rev-parse", "--verify", "--quiet", "HEAD"]);
	const hash = createHash("sha256").update(head.stdout).update("\0").update(status.stdout);
	for (const path of changedPaths(status.stdout)) {
		hash
			.update("\0")
			.update(path)
			.update("\0")
			.update(content(join(cwd, path)));
	}
	return hash.digest("hex");
}

/** The paths of `git status --porcelain=v1 -z` output: each entry's path (a rename's two). */
function changedPaths(output: string): string[] {
	const fields = output.split("\0");
	const paths: string[] = [];
	for (let i = 0; i < fields.length; i++) {
		const entry = fields[i] as string;
		if (entry.length < 4) continue;
		paths.push(entry.slice(3));
		// A rename or copy names its source in the next field.
		if (entry[0] === "R" || entry[0] === "C") paths.push(fields[++i] ?? "");
	}
	return paths;
}

/** What a path holds now: a file's bytes, a link's target, or a mark for a folder or nothing. */
function content(path: string): Buffer | string {
	const stat = lstatSync(path, { throwIfNoEntry: false });
	if (!stat) return "(gone)";
	if (stat.isSymbolicLink()) return `(link) ${readlinkSync(path)}`;
	return stat.isFile() ? readFileSync(path) : "(folder)";
}
