// Reading a resource file's text, refusing what is no small UTF-8 file inside its layer's folder.

import { readFileSync, realpathSync, statSync } from "node:fs";
import { CrewError, ErrorCode, errorMessage, isCrewError } from "../core/errors.js";

/** Largest resource file read, in bytes: agents, teams and workflows are a few pages of text. */
const MAX_RESOURCE_BYTES = 1024 * 1024;

/**
 * A resource file's text, or a clear error: not a file, too large, not UTF-8 text, or, for a file of
 * a layer's `folder`, a link to a file outside that folder (a repository's `agents/x.md` linked to a
 * user's credentials would otherwise be read as an agent, into views and prompts).
 */
export function readResourceText(kind: string, file: string, folder: string | undefined): string {
	const refuse = (why: string, cause?: unknown) =>
		new CrewError(ErrorCode.InvalidResource, `cannot read ${kind} ${file}: ${why}`, { cause });
	let bytes: Buffer;
	try {
		if (folder !== undefined) {
			const real = realpathSync(file);
			const inside = realpathSync(folder);
			if (!real.startsWith(`${inside}/`)) throw refuse(`it is a link to ${real}, outside ${folder}`);
		}
		const stat = statSync(file);
		if (stat.isDirectory()) throw refuse("it is a directory, not a file");
		if (!stat.isFile()) throw refuse("it is not a regular file");
		if (stat.size > MAX_RESOURCE_BYTES) {
			throw refuse(`it is too large (${(stat.size / 1024 / 1024).toFixed(1)} MiB; at most 1 MiB)`);
		}
		bytes = readFileSync(file);
	} catch (error) {
		if (isCrewError(error)) throw error;
		throw refuse(errorMessage(error), error);
	}
	if (bytes.includes(0)) throw refuse("it is not a text file (it holds NUL bytes)");
	try {
		return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
	} catch (error) {
		throw refuse("it is not UTF-8 text", error);
	}
}
