// How the scripted model makes a write, shell or call turn into a call of a tool the request offers.

import { estimateTokens, type Turn } from "./turns.js";

/** A tool as a request offers it: its name, and the properties of its input schema or freeform text input. */
export interface OfferedTool {
	readonly name: string;
	readonly properties: readonly string[];
	/** Takes raw text rather than JSON arguments (an OpenAI Responses custom tool, like Codex's apply_patch). */
	readonly freeform?: boolean;
}

export interface ToolCall {
	readonly name: string;
	/** JSON arguments, or the text a freeform tool takes. */
	readonly input: Readonly<Record<string, unknown>> | string;
}

const WRITE = [/^write$/i];
const PATCH = [/^apply_patch$/i];
/** Any other tool that writes files; not one that writes to a process's stdin. */
const OTHER_WRITE = [/^(?!.*stdin).*write/i];
const SHELL = [/^(bash|shell)$/i, /^exec_command$/i, /bash|shell|exec/i];

function pick(tools: readonly OfferedTool[], patterns: readonly RegExp[]): OfferedTool | undefined {
	for (const pattern of patterns) {
		const tool = tools.find((t) => pattern.test(t.name));
		if (tool) return tool;
	}
	return undefined;
}

/** A patch in Codex's apply_patch grammar that creates `path` with `content`. */
function addFilePatch(path: string, content: string): string {
	const lines = content.endsWith("\n") ? content.slice(0, -1).split("\n") : content.split("\n");
	return `*** Begin Patch\n*** Add File: ${path}\n${lines.map((line) => `+${line}\n`).join("")}*** End Patch\n`;
}

/** `text` quoted for a POSIX shell. */
function shellQuote(text: string): string {
	return `'${text.replaceAll("'", "'\\''")}'`;
}

function shellCall(tool: OfferedTool, command: string): ToolCall {
	const key = tool.properties.includes("cmd") ? "cmd" : "command";
	return { name: tool.name, input: { [key]: command } };
}

/**
 * The call a write or shell turn makes with the tools a request offers, with argument names taken
 * from the tool's own schema (`path` or `file_path`; `command` or `cmd`). A write turn prefers a
 * tool named `write`, then an `apply_patch` tool (adding the file), then any other writing tool,
 * then a shell command that writes the file. A call turn calls the tool it names. Undefined when
 * the request offers no fitting tool.
 */
export function toolCallFor(turn: Turn, tools: readonly OfferedTool[]): ToolCall | undefined {
	if (turn.kind === "write") {
		const patch = pick(tools, WRITE) ? undefined : pick(tools, PATCH);
		if (patch) {
			const text = addFilePatch(turn.path, turn.content);
			return { name: patch.name, input: patch.freeform ? text : { input: text } };
		}
		const tool = pick(tools, WRITE) ?? pick(tools, OTHER_WRITE);
		if (tool) {
			const pathKey = tool.properties.includes("file_path") ? "file_path" : "path";
			return { name: tool.name, input: { [pathKey]: turn.path, content: turn.content } };
		}
		const shell = pick(tools, SHELL);
		return shell && shellCall(shell, `printf '%s' ${shellQuote(turn.content)} > ${shellQuote(turn.path)}`);
	}
	if (turn.kind === "shell") {
		const tool = pick(tools, SHELL);
		return tool && shellCall(tool, turn.command);
	}
	if (turn.kind === "call") {
		const tool = tools.find((t) => t.name === turn.tool || t.name.endsWith(`__${turn.tool}`));
		return tool && { name: tool.name, input: turn.args };
	}
	return undefined;
}

/**
 * How a turn is answered with the tools a request offers: the tool call it makes, if any, its
 * text (its own for a text turn, empty for a call, else why no tool fits) and the output tokens.
 */
export function answerOf(
	turn: Turn,
	tools: readonly OfferedTool[],
): { call: ToolCall | undefined; text: string; outputTokens: number } {
	const call = toolCallFor(turn, tools);
	const text =
		turn.kind === "text"
			? turn.text
			: call
				? ""
				: `scripted model: no tool for a ${turn.kind} turn among the offered tools (${tools.map((t) => t.name).join(", ")})`;
	return { call, text, outputTokens: estimateTokens(text + (call ? JSON.stringify(call.input) : "")) };
}
