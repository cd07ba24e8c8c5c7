// Writing and reading an attempt's files in its artifact folder, never through a link.

import {
	closeSync,
	constants,
	createWriteStream,
	fstatSync,
	openSync,
	readFileSync,
	type WriteStream,
	writeFileSync,
} from "node:fs";

/** Opens for writing, refusing a link at the file itself: an attempt's files never write elsewhere. */
function openNoFollow(file: string): number {
	return openSync(file, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW, 0o644);
}

/** Writes one of an attempt's files in its artifact folder, never through a link. */
export function writeAttemptFile(file: string, content: string | Uint8Array): void {
	const fd = openNoFollow(file);
	try {
		writeFileSync(fd, content);
	} finally {
		closeSync(fd);
	}
}

/** A stream to one of an attempt's files in its artifact folder, never through a link. */
export function attemptFileStream(file: string): WriteStream {
	return createWriteStream(file, { fd: openNoFollow(file) });
}

/**
 * The bytes of the plain file at `path`, never through a link; undefined when it is not one. For
 * files a confined agent could have replaced, which crew reads outside its sandbox.
 */
export function readPlainFile(path: string): Buffer | undefined {
	let fd: number;
	try {
		fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
	} catch {
		// Absent, or a link: nothing crew will read.
		return undefined;
	}
	try {
		return fstatSync(fd).isFile() ? readFileSync(fd) : undefined;
	} finally {
		closeSync(fd);
	}
}
