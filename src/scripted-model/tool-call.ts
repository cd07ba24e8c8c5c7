import type { Turn } from "./turns.js";

/** A tool as a request offers it: its name and the properties of its input schema. */
export interface OfferedTool {
	readonly name: string;
	readonly properties: readonly string[];
}

export interface ToolCall {
	readonly name: string;
	readonly input: Record<string, string>;
}

const WRITE = [/^write$/i, /write/i];
const SHELL = [/^(bash|shell)$/i, /^exec_command$/i, /bash|shell|exec/i];

function pick(tools: readonly OfferedTool[], patterns: readonly RegExp[]): OfferedTool | undefined {
	for (const pattern of patterns) {
		const tool = tools.find((t) => pattern.test(t.name));
		if (tool) return tool;
	}
	return undefined;
}

/**
 * The call a write or shell turn makes with the tools a request offers, with argument names taken
 * from the tool's own schema (`path` or `file_path`; `command` or `cmd`). Undefined when the
 * request offers no fitting tool.
 */
export function toolCallFor(turn: Turn, tools: readonly OfferedTool[]): ToolCall | undefined {
	if (turn.kind === "write") {
		const tool = pick(tools, WRITE);
		if (!tool) return undefined;
		const pathKey = tool.properties.includes("file_path") ? "file_path" : "path";
		return { name: tool.name, input: { [pathKey]: turn.path, content: turn.content } };
	}
	if (turn.kind === "shell") {
		const tool = pick(tools, SHELL);
		if (!tool) return undefined;
		const key = tool.properties.includes("cmd") ? "cmd" : "command";
		return { name: tool.name, input: { [key]: turn.command } };
	}
	return undefined;
}
