// Collisions foreseen between tasks' changes: a work tree read as it is, and two changes merged on trial.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { git, gitRun, gitRunIndexed } from "./git.js";

/** Lines of the common ancestor's file, from the first to the last (1-based), that two changes both change. */
export interface Region {
	readonly file: string;
	readonly from: number;
	readonly to: number;
}

/** Two changes that would conflict when merged: the files, and where in them both change the same lines. */
export interface Collision {
	readonly files: readonly string[];
	/** Where both change the same lines; a file deleted on one side and changed on the other has none. */
	readonly regions: readonly Region[];
}

/**
 * A commit of the work tree at `path` as it is now (tracked and untracked files, as `git add
 * --all` finds them), whose parent is the work tree's HEAD. It is read through an index of its
 * own, so the index and files of the agent working there are not touched; no branch points at it.
 */
export async function snapshot(path: string): Promise<string> {
	const scratch = mkdtempSync(join(tmpdir(), "crew-snapshot-"));
	const index = join(scratch, "index");
	try {
		for (const args of [
			["read-tree", "HEAD"],
			["add", "--all"],
		]) {
			const result = await gitRunIndexed(path, args, index);
			if (result.code !== 0) throw new Error(`git ${args.join(" ")} failed in ${path}: ${result.stderr.trim()}`);
		}
		const tree = await gitRunIndexed(path, ["write-tree"], index);
		if (tree.code !== 0) throw new Error(`git write-tree failed in ${path}: ${tree.stderr.trim()}`);
		const message = "crew: the work tree as it was";
		return (await git(path, ["commit-tree", tree.stdout.trim(), "-p", "HEAD", "-m", message])).trim();
	} finally {
		rmSync(scratch, { recursive: true, force: true });
	}
}

/**
 * Whether commits `a` and `b` would conflict when merged, found by a trial merge that touches no
 * work tree (`git merge-tree`): undefined when they merge cleanly, else the files and regions.
 */
export async function collision(root: string, a: string, b: string): Promise<Collision | undefined> {
	const merged = await gitRun(root, ["merge-tree", "--write-tree", "--name-only", "--no-messages", a, b]);
	if (merged.code === 0) return undefined;
	if (merged.code !== 1) throw new Error(`git merge-tree ${a} ${b} failed: ${merged.stderr.trim()}`);
	const files = merged.stdout.split("\n").slice(1).filter(Boolean);
	const base = (await git(root, ["merge-base", a, b])).trim();
	const regions: Region[] = [];
	for (const file of files) {
		const ours = await changedLines(root, base, a, file);
		const theirs = await changedLines(root, base, b, file);
		for (const [from, to] of ours) {
			for (const [otherFrom, otherTo] of theirs) {
				// Touching ranges conflict too: git merges hunks only when an unchanged line lies between them.
				if (from <= otherTo + 1 && otherFrom <= to + 1) {
					regions.push({ file, from: Math.min(from, otherFrom), to: Math.max(to, otherTo) });
				}
			}
		}
	}
	return { files, regions };
}

/** The ranges of `file`'s lines in `base` (1-based, inclusive) that `commit` changes; an insertion is the line it follows. */
async function changedLines(root: string, base: string, commit: string, file: string): Promise<[number, number][]> {
	const diff = await gitRun(root, ["diff", "--no-ext-diff", "--unified=0", base, commit, "--", file]);
	const ranges: [number, number][] = [];
	for (const match of diff.stdout.matchAll(/^@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@/gm)) {
		const start = Number(match[1]);
		const count = match[2] === undefined ? 1 : Number(match[2]);
		ranges.push(count === 0 ? [Math.max(1, start), Math.max(1, start)] : [start, start + count - 1]);
	}
	return ranges;
}
