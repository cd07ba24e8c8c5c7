// Private copies of a worktree's git ref folders, so a confined task can move its own branch and no other.

import {
	copyFileSync,
	existsSync,
	lstatSync,
	mkdirSync,
	mkdtempSync,
	readdirSync,
	readFileSync,
	renameSync,
	rmSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import type { RefFolder } from "../../workspace/git-surfaces/git-metadata.js";
import type { Substitute } from "./confine.js";

/** What a branch's ref holds after a commit: an object's name, on one line. */
const OBJECT_NAME = /^[0-9a-f]{40}(?:[0-9a-f]{24})?\n?$/;

/** A ref folder and the private copy shown in its place. */
type Copy = RefFolder & { readonly copy: string };

/**
 * Private copies of a worktree's ref folders (see `GitMetadata.refFolders`). A task's branch
 * shares its folder with the other tasks' branches of its run, and git must write the folder to
 * move the branch; confined, a task sees instead a folder of its own holding its branch alone.
 * Once it has ended, `settle` carries its branch (and the branch's log) back, and nothing else.
 */
export class PrivateRefs {
	readonly #dir: string;
	readonly #copies: readonly Copy[];

	private constructor(dir: string, copies: readonly Copy[]) {
		this.#dir = dir;
		this.#copies = copies;
	}

	static make(folders: readonly RefFolder[]): PrivateRefs {
		const dir = mkdtempSync(join(tmpdir(), "crew-refs-"));
		const copies = folders.map((folder, index) => {
			const copy = join(dir, String(index));
			mkdirSync(copy);
			if (existsSync(folder.own)) copyFileSync(folder.own, join(copy, basename(folder.own)));
			return { ...folder, copy };
		});
		return new PrivateRefs(dir, copies);
	}

	/** What the sandbox shows in place of the real folders. */
	get substitutes(): Substitute[] {
		return this.#copies.map(({ folder, copy }) => ({ source: copy, target: folder }));
	}

	/**
	 * Carries the task's own branch, when it names an object, and its log back, and removes the
	 * copies. Answers what else the task made there, which is dropped: other branches, or its own
	 * when it names no object.
	 */
	settle(): string[] {
		const dropped: string[] = [];
		for (const { folder, own, log, copy } of this.#copies) {
			const mine = join(copy, basename(own));
			for (const name of readdirSync(copy, { recursive: true, encoding: "utf8" })) {
				if (name !== basename(own) && lstatSync(join(copy, name)).isFile()) dropped.push(join(folder, name));
			}
			if (!existsSync(mine)) continue;
			if (!log && !OBJECT_NAME.test(readFileSync(mine, "utf8"))) {
				dropped.push(own);
				continue;
			}
			// Put in place whole, as git does: through a file beside it, renamed over it.
			copyFileSync(mine, `${own}.crew`);
			renameSync(`${own}.crew`, own);
		}
		rmSync(this.#dir, { recursive: true, force: true });
		return dropped;
	}
}
