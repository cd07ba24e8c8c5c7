// Submodules a task added or changed in its checkout: gitlinks (mode 160000) and `.gitmodules`.

import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { gitRun } from "../git.js";

/** A checkout's submodules as they stood: its HEAD commit (none before the first), and its `.gitmodules` file's text. */
export interface SubmoduleState {
	readonly head: string | undefined;
	readonly gitmodules: string | undefined;
}

/** The state of `workspace`'s submodules, to compare with after a task has worked there. */
export async function submoduleState(workspace: string): Promise<SubmoduleState> {
	const head = await gitRun(workspace, ["rev-parse", "--verify", "-q", "HEAD^{commit}"]);
	return { head: head.code === 0 ? head.stdout.trim() : undefined, gitmodules: gitmodulesText(workspace) };
}

/**
 * The paths of submodules changed in `workspace` since `before`: gitlinks added or moved in its
 * commits or its index, and `.gitmodules` changed in its commits, its index or its work tree. A
 * submodule's config names a repository to fetch and a path to check it out at, which the user's
 * `git submodule update` or a recursive clone would follow.
 */
export async function submodulesChanged(workspace: string, before: SubmoduleState): Promise<string[]> {
	const since = before.head ?? (await emptyTree(workspace));
	const after = await gitRun(workspace, ["rev-parse", "--verify", "-q", "HEAD^{commit}"]);
	const lists = [await gitRun(workspace, ["diff-index", "--cached", "--raw", "-z", "--no-renames", since])];
	if (after.code === 0)
		lists.push(await gitRun(workspace, ["diff-tree", "-r", "--raw", "-z", "--no-renames", since, "HEAD"]));
	const changed = new Set<string>();
	for (const list of lists) for (const path of submodulePaths(list.stdout)) changed.add(path);
	if (gitmodulesText(workspace) !== before.gitmodules) changed.add(".gitmodules");
	return [...changed].sort();
}

/** The paths in `git diff --raw -z` output whose new mode is a gitlink's, or which are `.gitmodules`. */
function submodulePaths(raw: string): string[] {
	const fields = raw.split("\0");
	const paths: string[] = [];
	for (let i = 0; i + 1 < fields.length; i += 2) {
		const newMode = fields[i]?.split(" ")[1];
		const path = fields[i + 1] ?? "";
		if (newMode === "160000" || path === ".gitmodules") paths.push(path);
	}
	return paths;
}

function gitmodulesText(workspace: string): string | undefined {
	const file = join(workspace, ".gitmodules");
	return existsSync(file) ? readFileSync(file, "utf8") : undefined;
}

/** The id of the empty tree in this repository's hash, without writing it. */
async function emptyTree(workspace: string): Promise<string> {
	const tree = await gitRun(workspace, ["hash-object", "-t", "tree", "--stdin"], "");
	return tree.stdout.trim();
}
