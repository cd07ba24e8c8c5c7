import { appendFileSync, existsSync, lstatSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { CrewError, ErrorCode } from "../core/errors.js";
import { boundKnowledge, type Knowledge } from "../core/knowledge.js";

/** Where a project keeps its knowledge, in its crew folder. */
export function knowledgeFile(crewDir: string): string {
	return join(crewDir, "knowledge.md");
}

/**
 * The project's knowledge (`.crew/knowledge.md`), bounded; undefined when it has none. A link is
 * refused, not followed: through one, any file this user can read (a key, a token) would go into
 * every prompt, and to the model's provider.
 */
export function readKnowledge(crewDir: string): Knowledge | { readonly refused: string } | undefined {
	const file = knowledgeFile(crewDir);
	let stat: ReturnType<typeof lstatSync>;
	try {
		stat = lstatSync(file);
	} catch {
		return undefined;
	}
	if (!stat.isFile())
		return { refused: `${file} is not a plain file (a link, or a folder): crew reads no knowledge from it` };
	const text = readFileSync(file, "utf8");
	return text.trim() === "" ? undefined : boundKnowledge(text);
}

/** Adds `note` to the project's knowledge as a list item, making the file if it has none. */
export function addKnowledge(crewDir: string, note: string): { file: string; bytes: number } {
	const text = note.trim();
	if (text === "") throw new CrewError(ErrorCode.InvalidInput, "a note for the project's knowledge is empty");
	const file = knowledgeFile(crewDir);
	if (existsSync(file) && !lstatSync(file).isFile())
		throw new CrewError(ErrorCode.InvalidInput, `${file} is not a plain file: crew adds nothing to it`);
	mkdirSync(dirname(file), { recursive: true });
	if (!existsSync(file)) writeFileSync(file, "# Project knowledge\n\n");
	const before = readFileSync(file, "utf8");
	const item = `${before === "" || before.endsWith("\n") ? "" : "\n"}- ${text.replace(/\r?\n/g, "\n  ")}\n`;
	appendFileSync(file, item);
	return { file, bytes: Buffer.byteLength(before + item) };
}
