// Whether a checkout's index surely holds no entry for a path, read from the index file without starting git.

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { gitFoldersOf } from "./git-metadata.js";

/** An entry's fixed fields before its flags, with a SHA-1 object name: times, ids, mode, size, name. */
const FIXED = 60;
/** An index's SHA-1 checksum, its last bytes. */
const CHECKSUM = 20;
/** Extensions after which the entries read are not all there is: a split index's, a sparse one's. */
const PARTIAL = new Set(["link", "sdir"]);

/**
 * True when the index of the checkout at `root` has no entry for `path` nor for any path ending in
 * `/path`; false when it has one, or when the file cannot be read whole this way (no checkout at
 * `root`, git told of another index or folder, a version other than 2 or 3, a split or sparse
 * index, another object format), where git must be asked.
 */
export function indexSurelyLacks(root: string, path: string): boolean {
	if (process.env.GIT_INDEX_FILE !== undefined || process.env.GIT_DIR !== undefined) return false;
	const folders = gitFoldersOf(root);
	if (folders === undefined) return false;
	let index: Buffer;
	try {
		index = readFileSync(join(folders.gitDir, "index"));
	} catch {
		return false;
	}
	const names = entryNames(index);
	return names !== undefined && !names.some((name) => name === path || name.endsWith(`/${path}`));
}

/** The paths of a version 2 or 3 index's entries, or undefined when it is not one read whole. */
function entryNames(index: Buffer): string[] | undefined {
	if (index.length < 12 + CHECKSUM || index.toString("latin1", 0, 4) !== "DIRC") return undefined;
	const version = index.readUInt32BE(4);
	if (version !== 2 && version !== 3) return undefined;
	const names: string[] = [];
	let at = 12;
	for (let left = index.readUInt32BE(8); left > 0; left--) {
		if (at + FIXED + 2 > index.length) return undefined;
		// A sparse index's folder entry stands for files it does not list.
		if ((index.readUInt32BE(at + 24) & 0o170000) === 0o040000) return undefined;
		const flags = index.readUInt16BE(at + FIXED);
		const start = at + FIXED + 2 + (flags & 0x4000 ? 2 : 0);
		const length = flags & 0xfff;
		const end = length < 0xfff ? start + length : index.indexOf(0, start);
		if (end < start || end > index.length) return undefined;
		names.push(index.toString("utf8", start, end));
		at += (end - at + 8) & ~7;
	}
	while (at < index.length - CHECKSUM) {
		if (at + 8 > index.length || PARTIAL.has(index.toString("latin1", at, at + 4))) return undefined;
		at += 8 + index.readUInt32BE(at + 4);
	}
	return at === index.length - CHECKSUM ? names : undefined;
}
