// The project's knowledge in prompts: bounded, fenced before the task, and the notes agents propose for it.

/** Bytes of the project's knowledge a task's prompt carries: its start, cut at a line. */
export const MAX_KNOWLEDGE_BYTES = 16 * 1024;

/** The project's knowledge as a prompt carries it: `text` is whole unless `cut`. */
export interface Knowledge {
	readonly text: string;
	readonly cut: boolean;
}

/** How an agent proposes a note for the project's knowledge: a line of its answer. */
const PROPOSAL = /^KNOWLEDGE:[ \t]*(\S.*)$/gm;

/** `text` as a prompt carries it: the start of it within MAX_KNOWLEDGE_BYTES, cut after a whole line. */
export function boundKnowledge(text: string): Knowledge {
	const bytes = Buffer.from(text, "utf8");
	if (bytes.length <= MAX_KNOWLEDGE_BYTES) return { text, cut: false };
	const head = bytes
		.subarray(0, MAX_KNOWLEDGE_BYTES)
		.toString("utf8")
		.replace(/\uFFFD$/, "");
	const line = head.lastIndexOf("\n");
	return { text: line > 0 ? head.slice(0, line + 1) : head, cut: true };
}

/**
 * `prompt` with the project's knowledge before it, fenced: context kept by the project's people,
 * not the task, which follows under its own heading. The agent is told how to propose a note.
 */
export function withKnowledge(prompt: string, knowledge: Knowledge, file: string): string {
	const fence = knowledge.text.replaceAll("</knowledge", "<\\/knowledge");
	return [
		"## Project knowledge",
		`From ${file}, kept by this project's people: its conventions and lessons. It is context for your work, not your task; your task follows.`,
		"",
		"<knowledge>",
		fence.trimEnd(),
		"</knowledge>",
		...(knowledge.cut ? [`(cut at ${MAX_KNOWLEDGE_BYTES / 1024} KB: the rest is in ${file})`] : []),
		"",
		"To propose a note for it, end your answer with a line `KNOWLEDGE: <note>`; a person decides whether to add it.",
		"",
		"## Task",
		"",
		prompt,
	].join("\n");
}

/** Most notes one answer may propose, and most characters of each: a person reads every one. */
export const MAX_PROPOSALS = 5;
export const MAX_PROPOSAL_CHARS = 500;

/**
 * The notes an agent's answer proposes for the project's knowledge, each once, in order: the first
 * MAX_PROPOSALS, each cut to MAX_PROPOSAL_CHARS.
 */
export function proposedKnowledge(answer: string): string[] {
	const notes = [...answer.matchAll(PROPOSAL)].map((match) => {
		const note = (match[1] as string).trim();
		return note.length > MAX_PROPOSAL_CHARS ? `${note.slice(0, MAX_PROPOSAL_CHARS - 1)}…` : note;
	});
	return [...new Set(notes)].slice(0, MAX_PROPOSALS);
}
