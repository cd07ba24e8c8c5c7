// Writing an attempt's files in its artifact folder, never through a link.

import { closeSync, constants, createWriteStream, openSync, type WriteStream, writeFileSync } from "node:fs";

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
