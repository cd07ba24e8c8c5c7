// Node's file-system errors as one line that names the path and the cause, for a person to act on.

import { accessSync, constants, existsSync, statSync } from "node:fs";
import { dirname } from "node:path";

/** A Node file-system error: its errno code, the call that failed, and the paths it names. */
type FileSystemError = Error & { code: string; syscall: string; path?: string; dest?: string };

/** A file-system error put in words: `badInput` when the path given is wrong, not the machine. */
export interface FileErrorText {
	readonly text: string;
	readonly badInput: boolean;
}

/** The causes that the machine refused, in words. */
const REFUSALS: Readonly<Record<string, string>> = {
	EROFS: "the file system is read-only",
	EACCES: "permission denied",
	EPERM: "the operation is not permitted",
	ENOSPC: "no space left on the device",
	EDQUOT: "the disk quota is exceeded",
};

/** Causes that only a write meets: whatever call met them, it was writing. */
const WRITE_ONLY = new Set(["EROFS", "ENOSPC", "EDQUOT"]);

/** Calls that write to their `dest` when they have one. */
const TO_DEST = new Set(["copyfile", "rename", "link", "symlink"]);

function isFileSystemError(error: unknown): error is FileSystemError {
	const { code, syscall } = (error ?? {}) as { code?: unknown; syscall?: unknown };
	return error instanceof Error && typeof code === "string" && typeof syscall === "string";
}

/**
 * `error` with `path` named, when it is a file-system error that names none: a write to an open
 * file (`writeSync`) fails without saying which.
 */
export function withPath(error: unknown, path: string): unknown {
	if (!isFileSystemError(error) || error.path !== undefined) return error;
	return Object.assign(new Error(`${error.message} '${path}'`, { cause: error }), {
		code: error.code,
		syscall: error.syscall,
		path,
	});
}

/**
 * `error` in one line, `cannot <do> <path>: <cause> (<code>)`, when it is a file-system error
 * naming a path whose cause crew can word; undefined for any other error. A missing path names
 * the first folder of it that does not exist, or the file in the way of it.
 */
export function fileErrorText(error: unknown): FileErrorText | undefined {
	if (!isFileSystemError(error)) return undefined;
	const { code, syscall } = error;
	// A copy or a move writes its `dest`, unless what it reads is what is missing.
	const readsMissing = code === "ENOENT" && error.path !== undefined && !existsSync(error.path);
	const toDest = TO_DEST.has(syscall) && error.dest !== undefined && !readsMissing;
	const path = toDest ? error.dest : error.path;
	if (path === undefined) return undefined;
	const does = TO_DEST.has(syscall) && !toDest ? "read" : action(syscall, code);
	const line = (cause: string, causeCode: string, badInput: boolean): FileErrorText => ({
		text: `cannot ${does} ${path}: ${cause} (${causeCode})`,
		badInput,
	});
	const refusal = REFUSALS[code];
	if (refusal !== undefined) return line(refusal, code, false);
	if (code === "EISDIR") return line("it is a folder", code, true);
	if (code === "ENOTDIR") return line(`${notAFolder(path) ?? "a part of it"} is not a folder`, code, true);
	if (code !== "ENOENT") return undefined;
	return missing(path, syscall === "mkdir", line);
}

/**
 * What an ENOENT on `path` means: a folder of it that does not exist, a file in the way, or, for
 * a folder being made (`making`), that its parent refuses it.
 */
function missing(
	path: string,
	making: boolean,
	line: (cause: string, code: string, badInput: boolean) => FileErrorText,
): FileErrorText {
	let existing = dirname(path);
	let first: string | undefined;
	while (!existsSync(existing)) {
		first = existing;
		existing = dirname(existing);
	}
	if (!statSync(existing).isDirectory()) return line(`${existing} is not a folder`, "ENOTDIR", true);
	// crew makes folders with their parents, and Node's recursive mkdir says ENOENT for any
	// failure to make one (a read-only file system, no permission): the folder it had to write in
	// says why.
	if (making) {
		const refused = writeRefusal(existing);
		if (refused !== undefined) return line(REFUSALS[refused] ?? refused, refused, false);
	}
	if (first !== undefined) return line(`the folder ${first} does not exist`, "ENOENT", true);
	return line(making ? "its folder is gone" : "it does not exist", "ENOENT", !making);
}

/** The errno code that keeps this process from writing in `folder`, if one does. */
function writeRefusal(folder: string): string | undefined {
	try {
		accessSync(folder, constants.W_OK);
		return undefined;
	} catch (error) {
		return isFileSystemError(error) && REFUSALS[error.code] !== undefined ? error.code : undefined;
	}
}

/** The nearest part of `path` that exists and is not a folder, if one does. */
function notAFolder(path: string): string | undefined {
	for (let part = dirname(path); part !== dirname(part); part = dirname(part)) {
		if (existsSync(part)) return statSync(part).isDirectory() ? undefined : part;
	}
	return undefined;
}

function action(syscall: string, code: string): string {
	if (syscall === "mkdir") return "create the folder";
	if (syscall === "unlink" || syscall === "rmdir" || syscall === "rm") return "remove";
	if (syscall === "scandir" || syscall === "opendir") return "read the folder";
	if (WRITE_ONLY.has(code) || syscall === "write" || TO_DEST.has(syscall)) return "write";
	if (syscall === "open") return "open";
	if (syscall === "access") return "use";
	return "read";
}
