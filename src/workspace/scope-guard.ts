// Write scopes kept: what a task changed in its worktree outside its scopes is put back.

import { rmSync } from "node:fs";
import { join } from "node:path";
import { inScopes } from "../core/write-scopes.js";
import { git } from "./git.js";

/**
 * Puts back what a task changed in its worktree outside `scopes` since `start` (committed or not,
 * tracked or new): a changed or deleted file as it was at `start`, a new one removed. Returns the
 * paths put back, sorted; crew decides this from the worktree, whatever the agent says it did.
 */
export async function revertOutside(path: string, start: string, scopes: readonly string[]): Promise<string[]> {
	const changed = (await git(path, ["diff", "--name-status", "--no-renames", "-z", start])).split("\0");
	const existed = new Map<string, boolean>();
	for (let i = 0; i + 1 < changed.length; i += 2) {
		existed.set(changed[i + 1] as string, changed[i] !== "A");
	}
	const untracked = (await git(path, ["ls-files", "--others", "--exclude-standard", "-z"])).split("\0");
	for (const file of untracked) if (file !== "") existed.set(file, false);
	const outside = [...existed.keys()].filter((file) => !inScopes(file, scopes)).sort();
	const restore = outside.filter((file) => existed.get(file));
	if (restore.length > 0) await git(path, ["checkout", start, "--", ...restore]);
	for (const file of outside.filter((f) => !existed.get(f))) {
		await git(path, ["rm", "--cached", "--quiet", "--ignore-unmatch", "--", file]);
		rmSync(join(path, file), { force: true });
	}
	return outside;
}
