// Collisions foreseen between tasks' changes: a work tree read as it is, and two changes merged on trial.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { git, gitRun, gitRunWith } from "./git.js";

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
 * What a commit changed since a base: each file it changed (a rename is a deletion and an
 * addition), with its new mode and blob, or "" where it deleted the file.
 */
export type Changes = ReadonlyMap<string, string>;

/** The changes of commit `to` since commit `from` (see `Changes`), from one diff. */
export async function changesOf(root: string, from: string, to: string): Promise<Changes> {
	// Each file is ":<old mode> <new mode> <old blob> <new blob> <status>\0<path>\0".
	const fields = (await git(root, ["diff", "--raw", "-z", "--no-renames", "--no-abbrev", from, to])).split("\0");
	const changes = new Map<string, string>();
	for (let k = 0; k + 1 < fields.length; k += 2) {
		const [, mode, , blob, status] = (fields[k] as string).slice(1).split(" ");
		changes.set(fields[k + 1] as string, status === "D" ? "" : `${mode} ${blob}`);
	}
	return changes;
}

/**
 * Whether two sets of changes from one base might conflict when merged: only where both change a
 * file, and not when both made it the same. A file both delete is counted, since two renames of
 * it to different names conflict.
 */
export function mayConflict(a: Changes, b: Changes): boolean {
	for (const [file, to] of a) {
		const other = b.get(file);
		if (other !== undefined && (other !== to || to === "")) return true;
	}
	return false;
}

/**
 * A commit of the work tree at `path` as it is now (tracked and untracked files, as `git add
 * --all` finds them), whose parent is the work tree's HEAD. It is read through an index of its
 * own, so the index and files of the agent working there are not touched; no branch points at it.
 * Its dates are fixed, so a work tree that has not changed gives the same commit again.
 */
export async function snapshot(path: string): Promise<string> {
	const scratch = mkdtempSync(join(tmpdir(), "crew-snapshot-"));
	const index = join(scratch, "index");
	try {
		for (const args of [
			["read-tree", "HEAD"],
			["add", "--all"],
		]) {
			const result = await gitRunWith(path, args, { GIT_INDEX_FILE: index });
			if (result.code !== 0) throw new Error(`git ${args.join(" ")} failed in ${path}: ${result.stderr.trim()}`);
		}
		const tree = await gitRunWith(path, ["write-tree"], { GIT_INDEX_FILE: index });
		if (tree.code !== 0) throw new Error(`git write-tree failed in ${path}: ${tree.stderr.trim()}`);
		const args = ["commit-tree", tree.stdout.trim(), "-p", "HEAD", "-m", "crew: the work tree as it was"];
		const commit = await gitRunWith(path, args, { GIT_AUTHOR_DATE: "@0 +0000", GIT_COMMITTER_DATE: "@0 +0000" });
		if (commit.code !== 0) throw new Error(`git commit-tree failed in ${path}: ${commit.stderr.trim()}`);
		return commit.stdout.trim();
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
