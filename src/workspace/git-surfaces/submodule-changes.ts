// Submodules a task added or changed in its checkout: gitlinks (mode 160000) and `.gitmodules`.

import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { gitRun } from "../git.js";
import { gitFoldersOf } from "./git-metadata.js";

/**
 * A checkout's submodules as they stood: its HEAD commit (none before the first), its index file
 * as it was on disk (`index`: undefined where crew reads HEAD through git), and its `.gitmodules`
 * file's text.
 */
export interface SubmoduleState {
	readonly head: string | undefined;
	readonly index: string | undefined;
	readonly gitmodules: string | undefined;
}

/** The state of `workspace`'s submodules, to compare with after a task has worked there. */
export async function submoduleState(workspace: string): Promise<SubmoduleState> {
	const read = readHead(workspace);
	const head = read ? read.head : await revParseHead(workspace);
	return { head, index: read?.index, gitmodules: gitmodulesText(workspace) };
}

/**
 * The paths of submodules changed in `workspace` since `before`: gitlinks added or moved in its
 * commits or its index, and `.gitmodules` changed in its commits, its index or its work tree. A
 * submodule's config names a repository to fetch and a path to check it out at, which the user's
 * `git submodule update` or a recursive clone would follow. Where neither HEAD nor the index file
 * changed, git is not asked.
 */
export async function submodulesChanged(workspace: string, before: SubmoduleState): Promise<string[]> {
	const changed = new Set<string>();
	if (gitmodulesText(workspace) !== before.gitmodules) changed.add(".gitmodules");
	const read = readHead(workspace);
	if (read && before.index !== undefined && read.head === before.head && read.index === before.index)
		return [...changed];
	const since = before.head ?? (await emptyTree(workspace));
	const after = read ? read.head : await revParseHead(workspace);
	const lists = [await gitRun(workspace, ["diff-index", "--cached", "--raw", "-z", "--no-renames", since])];
	if (after !== undefined)
		lists.push(await gitRun(workspace, ["diff-tree", "-r", "--raw", "-z", "--no-renames", since, "HEAD"]));
	for (const list of lists) for (const path of submodulePaths(list.stdout)) changed.add(path);
	return [...changed].sort();
}

async function revParseHead(workspace: string): Promise<string | undefined> {
	const head = await gitRun(workspace, ["rev-parse", "--verify", "-q", "HEAD^{commit}"]);
	return head.code === 0 ? head.stdout.trim() : undefined;
}

/**
 * HEAD's commit and the index file's identity (inode, size, change time: git replaces the file on
 * each write) read from the checkout's git folders without starting git; undefined where they
 * cannot be read so (no checkout at `workspace`, a git folder without a HEAD file, a symbolic ref to
 * a symbolic ref, refs not kept as files), and git is asked instead.
 */
function readHead(workspace: string): { readonly head: string | undefined; readonly index: string } | undefined {
	const folders = gitFoldersOf(workspace);
	if (folders === undefined) return undefined;
	const { gitDir, commonDir } = folders;
	const headFile = join(gitDir, "HEAD");
	if (!isFile(headFile)) return undefined;
	const index = join(gitDir, "index");
	const stat = existsSync(index) ? statSync(index) : undefined;
	const identity = stat ? `${stat.ino}:${stat.size}:${stat.ctimeMs}` : "none";
	const head = readFileSync(headFile, "utf8").trim();
	if (COMMIT.test(head)) return { head, index: identity };
	const name = /^ref: (refs\/\S+)$/.exec(head)?.[1];
	if (name === undefined) return undefined;
	for (const folder of [gitDir, commonDir]) {
		const file = join(folder, name);
		if (!isFile(file)) continue;
		const commit = readFileSync(file, "utf8").trim();
		return COMMIT.test(commit) ? { head: commit, index: identity } : undefined;
	}
	const packed = join(commonDir, "packed-refs");
	const line = existsSync(packed)
		? readFileSync(packed, "utf8")
				.split("\n")
				.find((entry) => entry.endsWith(` ${name}`))
		: undefined;
	if (line !== undefined) return { head: line.split(" ")[0], index: identity };
	// A branch with no commit yet, unless refs are kept elsewhere (reftable), which git then tells.
	return existsSync(join(commonDir, "reftable")) ? undefined : { head: undefined, index: identity };
}

function isFile(path: string): boolean {
	return statSync(path, { throwIfNoEntry: false })?.isFile() === true;
}

/** A commit id, in SHA-1 or SHA-256. */
const COMMIT = /^[0-9a-f]{40}([0-9a-f]{24})?$/;

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
