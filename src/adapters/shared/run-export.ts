// Export of an ended run to a JSON bundle file, kept inside the repository when an agent names the file.

import { closeSync, constants, existsSync, mkdirSync, openSync, realpathSync, writeFileSync } from "node:fs";
import { dirname, isAbsolute, relative, resolve } from "node:path";
import { CrewError, ErrorCode } from "../../core/errors.js";
import { checkId } from "../../core/ids.js";
import type { RunBundle } from "../../engine/history/bundle.js";
import { withPath } from "./file-errors.js";

/**
 * Writes an ended run, its records and files, to one JSON bundle at `file` (default
 * `<runId>.crew-run.json`), relative to `cwd`; returns where, and what it holds. With `inside`,
 * the file must be in that folder where its links lead, and is written without following a link:
 * an agent names it, and may have made links in the repository.
 */
export async function exportToFile(
	store: { exportRun(runId: string): Promise<RunBundle> },
	runId: string,
	file: string | undefined,
	cwd: string,
	inside?: string,
): Promise<{ runId: string; file: string; tasks: number; files: number }> {
	checkId("run", runId);
	const path = resolve(cwd, file ?? `${runId}.crew-run.json`);
	if (inside !== undefined) checkInside(path, inside, file);
	const bundle = await store.exportRun(runId);
	const text = JSON.stringify(bundle);
	if (inside === undefined) writeWhole(path, text, 0);
	else {
		mkdirSync(dirname(path), { recursive: true });
		// Made since the check? A link there is refused all the same.
		checkInside(path, inside, file);
		writeWhole(path, text, constants.O_NOFOLLOW);
	}
	return { runId, file: path, tasks: bundle.rows.tasks.length, files: bundle.files.length };
}

/** `file` resolved in `root`, refused unless it names a path inside it (links are checked when it is written). */
export function pathInside(root: string, file: string): string {
	const path = resolve(root, file);
	const inside = relative(root, path);
	if (inside === "" || inside.startsWith("..") || isAbsolute(inside)) {
		throw new CrewError(
			ErrorCode.InvalidInput,
			`invalid file ${JSON.stringify(file)}: expected a path inside the repository ${root}`,
		);
	}
	return path;
}

/** Refuses `path` unless it is in `root` once the links of its folders that exist are followed. */
function checkInside(path: string, root: string, asked: string | undefined): void {
	let existing = dirname(path);
	while (!existsSync(existing)) existing = dirname(existing);
	const real = resolve(realpathSync(existing), relative(existing, path));
	const inside = relative(realpathSync(root), real);
	if (inside === "" || inside.startsWith("..") || isAbsolute(inside)) {
		throw new CrewError(
			ErrorCode.InvalidInput,
			`invalid file ${JSON.stringify(asked)}: expected a path inside the repository ${root}; it leads through a link to ${real}`,
		);
	}
}

function writeWhole(path: string, text: string, flags: number): void {
	let fd: number;
	try {
		fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | flags, 0o644);
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code !== "ELOOP") throw error;
		throw new CrewError(
			ErrorCode.InvalidInput,
			`invalid file ${path}: it is a link, which crew does not write through`,
		);
	}
	try {
		writeFileSync(fd, text);
	} catch (error) {
		throw withPath(error, path);
	} finally {
		closeSync(fd);
	}
}
