import { readFileSync } from "node:fs";
import { CrewError, ErrorCode, errorMessage } from "../../core/errors.js";

/**
 * The goal of `crew run` and `crew plan`: the argument, or the text of `--goal-file <path>`; `-`
 * as either reads standard input. Exactly one of the two is given.
 */
export function readGoal(argument: string | undefined, goalFile: string | undefined): string {
	if (argument !== undefined && goalFile !== undefined) {
		throw new CrewError(
			ErrorCode.InvalidInput,
			`both a goal ${JSON.stringify(argument)} and --goal-file ${goalFile} were given: expected one of them`,
		);
	}
	const source = goalFile ?? (argument === "-" ? "-" : undefined);
	if (source === undefined) {
		if (argument === undefined) {
			throw new CrewError(
				ErrorCode.InvalidInput,
				'no goal: expected one as the argument (crew run "<goal>"), or --goal-file <path> (- for standard input)',
			);
		}
		return argument;
	}
	let text: string;
	try {
		text = readFileSync(source === "-" ? 0 : source, "utf8");
	} catch (error) {
		const what = source === "-" ? "standard input" : `--goal-file ${source}`;
		throw new CrewError(ErrorCode.InvalidInput, `cannot read the goal from ${what}: ${errorMessage(error)}`, {
			cause: error,
		});
	}
	if (text.trim() === "") {
		throw new CrewError(
			ErrorCode.InvalidInput,
			`the goal read from ${source === "-" ? "standard input" : source} is empty: expected what the run is for`,
		);
	}
	return text.replace(/\s+$/, "");
}
