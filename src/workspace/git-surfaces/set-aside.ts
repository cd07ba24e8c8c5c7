// Git folders a task made in its workspace, moved out of it into the attempt's files, where no git finds them.

import { chmodSync, cpSync, lstatSync, mkdirSync, renameSync, rmSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import type { SetAside } from "../../core/records.js";
import type { GitFolder } from "./git-folders.js";

/**
 * Moves each of `folders` (below `root`) to the same path under `into`, so that no git run in the
 * workspace finds it again, while the files beside it stay as ordinary files of the workspace.
 * A folder the task made unwritable is made writable to its owner first; one that still cannot
 * be moved is removed, since left in place it would run its config at the user's next git.
 */
export function setAside(root: string, folders: readonly GitFolder[], into: string): SetAside[] {
	return folders.map((folder) => {
		const from = join(root, folder.path);
		const to = join(into, folder.path);
		try {
			mkdirSync(dirname(to), { recursive: true });
			move(from, to);
			return { path: folder.path, kind: folder.kind, movedTo: to };
		} catch (error) {
			rmSync(from, { recursive: true, force: true });
			if (exists(from)) throw new Error(`cannot move or remove ${from}: ${(error as Error).message}`, { cause: error });
			return { path: folder.path, kind: folder.kind };
		}
	});
}

function move(from: string, to: string): void {
	// Moving a folder to another parent rewrites its `..`: it and both parents must be writable.
	for (const path of [dirname(from), ...(lstatSync(from).isDirectory() ? [from] : [])]) {
		chmodSync(path, statSync(path).mode | 0o700);
	}
	try {
		renameSync(from, to);
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code !== "EXDEV") throw error;
		cpSync(from, to, { recursive: true, verbatimSymlinks: true });
		rmSync(from, { recursive: true, force: true });
	}
}

function exists(path: string): boolean {
	try {
		lstatSync(path);
		return true;
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code === "ENOENT") return false;
		throw error;
	}
}
