// The text a command is given, such as a run's goal: its argument, a file, or standard input.

import { readFileSync } from "node:fs";
import { CrewError, ErrorCode, errorMessage } from "../../core/errors.js";

/** What a command's text is, for its errors: `goal`, `--goal-file`, `crew run "<goal>"`, what it is for. */
export interface TextInput {
	readonly noun: string;
	readonly option: string;
	readonly usage: string;
	readonly purpose: string;
}

const GOAL: TextInput = {
	noun: "goal",
	option: "--goal-file",
	usage: 'crew run "<goal>"',
	purpose: "what the run is for",
};

/**
 * The goal of `crew run` and `crew plan`: the argument, or the text of `--goal-file <path>`; `-`
 * as either reads standard input. Exactly one of the two is given.
 */
export function readGoal(argument: string | undefined, goalFile: string | undefined): string {
	return readTextInput(argument, goalFile, GOAL);
}

/** A command's text, `input`: the argument, or the text of its file option; `-` as either reads standard input. */
export function readTextInput(argument: string | undefined, file: string | undefined, input: TextInput): string {
	const { noun, option } = input;
	if (argument !== undefined && file !== undefined) {
		throw new CrewError(
			ErrorCode.InvalidInput,
			`both a ${noun} ${JSON.stringify(argument)} and ${option} ${file} were given: expected one of them`,
		);
	}
	const source = file ?? (argument === "-" ? "-" : undefined);
	if (source === undefined) {
		if (argument === undefined) {
			throw new CrewError(
				ErrorCode.InvalidInput,
				`no ${noun}: expected one as the argument (${input.usage}), or ${option} <path> (- for standard input)`,
			);
		}
		return argument;
	}
	let text: string;
	try {
		text = readFileSync(source === "-" ? 0 : source, "utf8");
	} catch (error) {
		const what = source === "-" ? "standard input" : `${option} ${source}`;
		throw new CrewError(ErrorCode.InvalidInput, `cannot read the ${noun} from ${what}: ${errorMessage(error)}`, {
			cause: error,
		});
	}
	if (text.trim() === "") {
		throw new CrewError(
			ErrorCode.InvalidInput,
			`the ${noun} read from ${source === "-" ? "standard input" : source} is empty: expected ${input.purpose}`,
		);
	}
	return text.replace(/\s+$/, "");
}
