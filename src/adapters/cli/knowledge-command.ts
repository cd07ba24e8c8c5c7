// `crew knowledge`: the project's knowledge, which every task's prompt carries, shown and added to.

import type { Command } from "commander";
import { checkPersonText } from "../../core/steer-limits.js";
import { withPath } from "../shared/file-errors.js";
import { print, printError } from "./print.js";

/**
 * `crew knowledge`: the project's knowledge, which every task's prompt carries, shown and added
 * to. Registered at every start, so what its commands need loads when one runs; the check of a
 * note's text is an assertion, which TypeScript calls only through a name imported statically.
 */
export function knowledgeCommands(cli: Command, exit: (code: Promise<number>) => Promise<void>): void {
	const knowledge = cli
		.command("knowledge")
		.description("the project's knowledge (.crew/knowledge.md), put before every task's prompt: print it");
	knowledge.action(() => exit(show()));
	knowledge
		.command("add")
		.description("add a note to the project's knowledge")
		.argument("<note>", "the note, as one list item")
		.action((note: string) => exit(add(note)));
}

/** Prints the knowledge, then the notes the latest run's agents proposed that it does not hold yet. */
async function show(): Promise<number> {
	const { findProject } = await import("../../config/project.js");
	const { knowledgeFile, knowledgeText } = await import("../../config/knowledge-file.js");
	const project = findProject(process.cwd());
	const file = knowledgeFile(project.crewDir);
	const read = knowledgeText(project.crewDir);
	if (typeof read === "object") printError(`crew: ${read.refused}\n`);
	const text = typeof read === "string" ? read : "";
	if (read === undefined || read === "") printError(`no project knowledge yet (${file})\n`);
	print(text);
	const { RunReader } = await import("../../engine/views/reader.js");
	const reader = new RunReader(project);
	try {
		const latest = reader.repo.runs()[0];
		if (latest === undefined) return 0;
		const proposed = reader
			.events(latest.id)
			.filter((e) => e.type === "knowledge.proposed")
			.map((e) => ({ task: e.taskId, note: String(e.data.note) }))
			.filter(({ note }) => !text.includes(note));
		if (proposed.length === 0) return 0;
		print(`\nProposed by the agents of run ${latest.id}, not added:\n`);
		for (const { task, note } of proposed) {
			const shown = printable(note);
			print(`  ${task}: ${shown}\n    crew knowledge add ${shellQuoted(shown)}\n`);
		}
		return 0;
	} finally {
		reader.close();
	}
}

async function add(note: string): Promise<number> {
	const { findProject } = await import("../../config/project.js");
	const { addKnowledge, knowledgeFile } = await import("../../config/knowledge-file.js");
	const { MAX_KNOWLEDGE_BYTES } = await import("../../core/knowledge.js");
	checkPersonText(note, "a knowledge note");
	const crewDir = findProject(process.cwd()).crewDir;
	let added: { file: string; bytes: number };
	try {
		added = addKnowledge(crewDir, note);
	} catch (error) {
		throw withPath(error, knowledgeFile(crewDir));
	}
	const { file, bytes } = added;
	print(`added to ${file}\n`);
	if (bytes > MAX_KNOWLEDGE_BYTES)
		printError(
			`crew: ${file} is ${Math.ceil(bytes / 1024)} KB; prompts carry its first ${MAX_KNOWLEDGE_BYTES / 1024} KB\n`,
		);
	return 0;
}

/** An agent's note without what a terminal would act on: control characters become spaces. */
function printable(note: string): string {
	// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it removes
	return note.replace(/[\u0000-\u001f\u007f-\u009f]/g, " ");
}

/**
 * `text` as one shell word a person may paste: single-quoted, where no shell expands anything
 * (an agent's note may hold `$(…)`, backquotes or `!`).
 */
function shellQuoted(text: string): string {
	return `'${text.replaceAll("'", "'\\''")}'`;
}
