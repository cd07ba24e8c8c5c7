// The project's knowledge file, `.crew/knowledge.md`: read and added to, never through a link.

import { closeSync, constants, fstatSync, mkdirSync, openSync, readFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import { CrewError, ErrorCode, errorMessage } from "../core/errors.js";
import { boundKnowledge, type Knowledge } from "../core/knowledge.js";

/** Where a project keeps its knowledge, in its crew folder. */
export function knowledgeFile(crewDir: string): string {
	return join(crewDir, "knowledge.md");
}

/**
 * The whole text of the project's knowledge (`.crew/knowledge.md`): undefined when it has none,
 * `refused` when it cannot be read as a plain file. A link is refused, never followed: through
 * one, any file this user can read (a key, a token) would go into every prompt, and to the
 * model's provider. Read through one descriptor, so a link swapped in after a check is no way in.
 */
export function knowledgeText(crewDir: string): string | { readonly refused: string } | undefined {
	const file = knowledgeFile(crewDir);
	let fd: number;
	try {
		fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW);
	} catch (error) {
		const code = (error as NodeJS.ErrnoException).code;
		if (code === "ENOENT") return undefined;
		const why = code === "ELOOP" ? "it is a link" : errorMessage(error);
		return { refused: `${file} is not read: ${why}; crew reads no knowledge from it` };
	}
	try {
		if (!fstatSync(fd).isFile()) return { refused: `${file} is not read: it is not a plain file` };
		return readFileSync(fd, "utf8");
	} catch (error) {
		return { refused: `${file} is not read: ${errorMessage(error)}` };
	} finally {
		closeSync(fd);
	}
}

/** The project's knowledge as prompts carry it, bounded; undefined or refused as `knowledgeText`. */
export function readKnowledge(crewDir: string): Knowledge | { readonly refused: string } | undefined {
	const text = knowledgeText(crewDir);
	if (text === undefined || typeof text !== "string") return text;
	return text.trim() === "" ? undefined : boundKnowledge(text);
}

/**
 * Adds `note` to the project's knowledge as a list item, making the file, with a heading, if it
 * has none. Never written through a link.
 */
export function addKnowledge(crewDir: string, note: string): { file: string; bytes: number } {
	const text = note.trim();
	if (text === "") throw new CrewError(ErrorCode.InvalidInput, "a note for the project's knowledge is empty");
	const file = knowledgeFile(crewDir);
	const before = knowledgeText(crewDir);
	if (typeof before === "object") throw new CrewError(ErrorCode.InvalidInput, `${before.refused}, nor adds to it`);
	mkdirSync(crewDir, { recursive: true });
	const flags = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW;
	let fd: number;
	try {
		fd = openSync(file, flags, 0o644);
	} catch (error) {
		// A link made since it was read; whatever else the file system refuses is its own to say.
		if ((error as NodeJS.ErrnoException).code !== "ELOOP") throw error;
		throw new CrewError(
			ErrorCode.InvalidInput,
			`cannot add to ${file}: it is a link, which crew does not write through`,
		);
	}
	try {
		if (!fstatSync(fd).isFile()) throw new CrewError(ErrorCode.InvalidInput, `${file} is not a plain file`);
		const head = before === undefined || before === "" ? "# Project knowledge\n\n" : before.endsWith("\n") ? "" : "\n";
		const item = `${head}- ${text.replace(/\r?\n/g, "\n  ")}\n`;
		writeSync(fd, item);
		return { file, bytes: Buffer.byteLength((before ?? "") + item) };
	} finally {
		closeSync(fd);
	}
}
