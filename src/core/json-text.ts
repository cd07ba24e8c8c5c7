// JSON read from a person's file: when it is not JSON, one line saying why, never the file's text.

import { CrewError, ErrorCode } from "./errors.js";

/**
 * `text` parsed as JSON; else an error saying `what` is not JSON, and why, on one line: the
 * parser's message without the excerpt of the text it quotes, which may span lines and hold
 * anything the file does.
 */
export function parseJsonText(text: string, what: string): unknown {
	try {
		return JSON.parse(text);
	} catch (error) {
		const message = error instanceof Error ? error.message : String(error);
		const why = message
			.replace(/, ".*"(?:\.\.\.)? is not valid JSON$/s, "")
			.replace(/\s+/g, " ")
			.trim();
		throw new CrewError(ErrorCode.InvalidInput, `${what} is not valid JSON: ${why}`);
	}
}
