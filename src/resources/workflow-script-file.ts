// Workflow scripts (`*.workflow.ts`, `*.dwf.ts`) as listings see them, read without running them.

import { basename } from "node:path";
import type { Diagnostic } from "./frontmatter.js";
import type { WorkflowResource } from "./workflow-file.js";

/** File names of workflow scripts: crew's, and pi-crew's dynamic workflows. */
export const SCRIPT_SUFFIXES: readonly string[] = [".workflow.ts", ".dwf.ts"];

export function isWorkflowScript(file: string): boolean {
	return SCRIPT_SUFFIXES.some((s) => file.endsWith(s));
}

/**
 * A workflow script as listings see it, read without running it (that waits for trust and a run):
 * its name from the file name, its description from the comment block the file starts with.
 */
export function parseWorkflowScript(
	text: string,
	file: string,
): { workflow: WorkflowResource; diagnostics: Diagnostic[] } {
	const diagnostics: Diagnostic[] = [];
	if (!/\bexport\s+default\b/.test(text)) {
		diagnostics.push({
			level: "error",
			file,
			message: "a workflow script must have a default export: export default async (ctx) => { … }",
		});
	}
	const suffix = SCRIPT_SUFFIXES.find((s) => file.endsWith(s)) ?? ".ts";
	return {
		workflow: {
			name: basename(file).slice(0, -suffix.length),
			description: leadingComment(text),
			steps: [],
			file,
			script: true,
		},
		diagnostics,
	};
}

/** The first paragraph of the `/** … *\/` or `//` comment the file starts with, as one line. */
function leadingComment(text: string): string {
	const block = /^\s*\/\*\*?([\s\S]*?)\*\//.exec(text)?.[1];
	const lines = block
		? block.split("\n").map((l) => l.replace(/^\s*\*\s?/, ""))
		: (/^(?:\s*\/\/.*\n?)+/.exec(text)?.[0] ?? "").split("\n").map((l) => l.replace(/^\s*\/\/\s?/, ""));
	const paragraph: string[] = [];
	for (const line of lines) {
		if (line.trim() === "" && paragraph.length > 0) break;
		if (line.trim() !== "") paragraph.push(line.trim());
	}
	return paragraph.join(" ");
}
