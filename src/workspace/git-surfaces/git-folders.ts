// The git folders below a workspace's root: what would make git, run there later, read a repository crew did not make.

import { chmodSync, type Dirent, lstatSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import type { SetAside } from "../../core/records.js";

/**
 * A place below a workspace's root where git, run in it or in a folder under it, finds a
 * repository other than the workspace's own, with a config, hooks and attributes of its own:
 * - `folder`: a `.git` folder (a nested repository);
 * - `file`: a `.git` file, whose `gitdir:` names a git folder anywhere (a submodule's checkout);
 * - `link`: a `.git` symbolic link, which git follows;
 * - `bare`: a folder shaped as a git folder under any other name (`HEAD`, `objects/`, `refs/`),
 *   which git takes as a bare repository when it runs inside it, and whose config may give it
 *   a work tree.
 */
export interface GitFolder {
	/** Relative to the workspace, `/`-separated. */
	readonly path: string;
	readonly kind: SetAside["kind"];
	/**
	 * Which it is: a folder's inode, and for a file or link its change time too, since what it
	 * names changes in place; another id is another git folder.
	 */
	readonly id: string;
}

/** What of the workspace's root is not looked into: its own git folder, and crew's folder, which no task may write. */
const ROOT_SKIPS = new Set([".git", ".crew"]);

/** What a walk read of one folder: which folder it was and when it last changed, its subfolders, the git folders in it. */
interface Listed {
	readonly id: string;
	readonly changed: number;
	readonly folders: readonly string[];
	readonly git: readonly GitFolder[];
}

/** A walk's reading of a workspace, each folder by its path: what a later walk need not read again. */
export type Listing = ReadonlyMap<string, Listed>;

/**
 * A folder's change time moves whenever an entry in it is made, removed or renamed, and no
 * process can set it back; but the clock it is read from may be a few ms coarse. A folder changed
 * this close before a walk began is read again by the next one, whatever its change time says.
 */
const RACY_MS = 2000;

/**
 * Every git folder below `root` (its own `.git` aside), looked for in every folder, those git
 * ignores too: the user's git reaches an ignored folder's when they work in it. A folder the
 * walk may not read is made readable to its owner first, so that none hides a git folder from
 * crew that the user could open later. Git folders are not looked into. A folder of `earlier`
 * (a walk's listing begun at `earlierAt`, ms since 1970) that has not changed since is not read
 * again, only its `.git` files and links looked at, which change in place.
 */
export function gitFolders(
	root: string,
	earlier?: { readonly listing: Listing; readonly at: number },
): { readonly found: GitFolder[]; readonly listing: Listing } {
	const found: GitFolder[] = [];
	const listing = new Map<string, Listed>();
	const folders = [""];
	for (let folder = folders.pop(); folder !== undefined; folder = folders.pop()) {
		const full = join(root, folder);
		const { dev, ino, ctimeMs } = lstatSync(full);
		const id = `${dev}:${ino}`;
		const known = earlier?.listing.get(folder);
		const unchanged =
			earlier && known && known.id === id && known.changed === ctimeMs && ctimeMs < earlier.at - RACY_MS;
		const listed =
			known && unchanged
				? {
						...known,
						git: known.git.map((git) => (git.kind === "file" || git.kind === "link" ? again(root, git) : git)),
					}
				: read(root, folder, id, ctimeMs);
		listing.set(folder, listed);
		found.push(...listed.git);
		folders.push(...listed.folders);
	}
	return { found: found.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)), listing };
}

/** One folder read: a git folder itself (bare-shaped), or the git folders and subfolders in it. */
function read(root: string, folder: string, id: string, changed: number): Listed {
	const entries = entriesOf(join(root, folder));
	if (folder !== "" && isGitFolderShape(entries))
		return { id, changed, folders: [], git: [{ path: folder, kind: "bare", id }] };
	const folders: string[] = [];
	const git: GitFolder[] = [];
	for (const entry of entries) {
		if (folder === "" && ROOT_SKIPS.has(entry.name)) continue;
		const path = folder === "" ? entry.name : `${folder}/${entry.name}`;
		if (entry.name === ".git") git.push(gitEntry(root, path, entry));
		else if (entry.isDirectory()) folders.push(path);
	}
	return { id, changed, folders, git };
}

/** A `.git` file or link as it is now: gone or turned into a folder, its parent changed, and is read again. */
function again(root: string, git: GitFolder): GitFolder {
	return { ...git, id: inode(join(root, git.path), true) };
}

/**
 * The git folders of `after` that were not in `before`, or are not what they were there: those
 * someone made, or put in the place of one, since `before` was taken.
 */
export function madeSince(before: readonly GitFolder[], after: readonly GitFolder[]): GitFolder[] {
	const was = new Map(before.map((folder) => [folder.path, `${folder.kind}:${folder.id}`]));
	return after.filter((folder) => was.get(folder.path) !== `${folder.kind}:${folder.id}`);
}

function entriesOf(dir: string): Dirent[] {
	try {
		return readdirSync(dir, { withFileTypes: true });
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code !== "EACCES") throw error;
		chmodSync(dir, statSync(dir).mode | 0o700);
		return readdirSync(dir, { withFileTypes: true });
	}
}

/** Whether a folder holding `entries` is a git folder as git's own test has it: a `HEAD`, an `objects` and a `refs`. */
function isGitFolderShape(entries: readonly Dirent[]): boolean {
	const names = new Set(entries.map((entry) => entry.name));
	return names.has("HEAD") && names.has("objects") && names.has("refs");
}

function gitEntry(root: string, path: string, entry: Dirent): GitFolder {
	const full = join(root, path);
	if (entry.isSymbolicLink()) return { path, kind: "link", id: inode(full, true) };
	if (entry.isFile()) return { path, kind: "file", id: inode(full, true) };
	return { path, kind: "folder", id: inode(full, false) };
}

/** A path's device and inode, and with `changed` its change time, which no process can set back. */
function inode(path: string, changed = false): string {
	const { dev, ino, ctimeMs } = lstatSync(path);
	return changed ? `${dev}:${ino}:${ctimeMs}` : `${dev}:${ino}`;
}
