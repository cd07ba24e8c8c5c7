// Checks of the text a person gives an agent: a steering message or an answer to its question.

import { CrewError, ErrorCode } from "./errors.js";

/** Longest steering message, or answer to an agent's question, in characters. */
export const MAX_STEER_CHARS = 32 * 1024;

/** Throws, naming `what` ("a steering message", "an answer"), unless `text` is words a person may give an agent. */
export function checkPersonText(text: unknown, what: string): asserts text is string {
	if (typeof text !== "string" || text.trim() === "") {
		throw new CrewError(ErrorCode.InvalidInput, `${what} needs text: say what the agent should hear`);
	}
	if (text.length > MAX_STEER_CHARS) {
		throw new CrewError(
			ErrorCode.InvalidInput,
			`${what} of ${text.length} characters is too long: at most ${MAX_STEER_CHARS}`,
		);
	}
}
