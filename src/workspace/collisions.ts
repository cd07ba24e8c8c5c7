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
	const ours = await changedLines(root, base, a, files);
	const theirs = await changedLines(root, base, b, files);
	const regions: Region[] = [];
	for (const file of files) {
		for (const [from, to] of ours.get(file) ?? []) {
			for (const [otherFrom, otherTo] of theirs.get(file) ?? []) {
				// Touching ranges conflict too: git merges hunks only when an unchanged line lies between them.
				if (from <= otherTo + 1 && otherFrom <= to + 1) {
					regions.push({ file, from: Math.min(from, otherFrom), to: Math.max(to, otherTo) });
				}
			}
		}
	}
	return { files, regions };
}

/**
 * For each of `files`, the ranges of its lines in `base` (1-based, inclusive) that `commit`
 * changes, from one diff; an insertion is the line it follows.
 */
async function changedLines(
	root: string,
	base: string,
	commit: string,
	files: readonly string[],
): Promise<Map<string, [number, number][]>> {
	const args = ["diff", "--no-ext-diff", "--no-renames", "--unified=0", base, commit, "--", ...files];
	const diff = await gitRun(root, args);
	const ranges = new Map<string, [number, number][]>();
	let file: string | undefined;
	for (const line of diff.stdout.split("\n")) {
		const header = /^diff --git a\/(.*) b\/\1$/.exec(line);
		if (header) {
			file = header[1];
			continue;
		}
		const hunk = /^@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@/.exec(line);
		if (!hunk || file === undefined) continue;
		const start = Number(hunk[1]);
		const count = hunk[2] === undefined ? 1 : Number(hunk[2]);
		const list = ranges.get(file) ?? [];
		list.push(count === 0 ? [Math.max(1, start), Math.max(1, start)] : [start, start + count - 1]);
		ranges.set(file, list);
	}
	return ranges;
}
