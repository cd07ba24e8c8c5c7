// The text of a tool's result as agent CLIs report it, cut short for `tool-end` events.

/** Characters kept of what a tool returned: enough to read what happened, not the whole file. */
const MAX_OUTPUT = 600;

/** What ends a line of output crew cut short. */
export const CUT = "…";

/**
 * The text of a tool's result as agent CLIs report it: a string, a list of content blocks, or an
 * object holding `content`; the start of it, or undefined when it has no text.
 */
function outputText(value: unknown): string | undefined {
	const text = textOf(value, 0).trim();
	if (text === "") return undefined;
	return text.length > MAX_OUTPUT ? `${text.slice(0, MAX_OUTPUT)}${CUT}` : text;
}

function textOf(value: unknown, depth: number): string {
	if (typeof value === "string") return value;
	if (depth > 3 || value === null || typeof value !== "object") return "";
	if (Array.isArray(value)) return value.map((part) => textOf(part, depth + 1)).join("");
	const record = value as Record<string, unknown>;
	if (typeof record.text === "string") return record.text;
	return textOf(record.content, depth + 1);
}

/** `{ output }` when the tool returned text, else nothing: spread into a `tool-end` event. */
export function withOutput(value: unknown): { output?: string } {
	const output = outputText(value);
	return output === undefined ? {} : { output };
}
