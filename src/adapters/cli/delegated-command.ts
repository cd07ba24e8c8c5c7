// `crew agent` and `crew run` inside a crew worker: the run is handed to the worker's runner, which runs it.

import { type DelegationAsk, fencedAnswer } from "../../core/delegation.js";
import { RunStatus } from "../../core/status.js";
import { delegate } from "../shared/delegation-client.js";
import { Exit } from "./exit-codes.js";
import { print, printError } from "./print.js";

/**
 * Delegates `ask` through the runner at `socket` and waits for the run's end: stdout is its result,
 * fenced as another agent's words (with `json`, the whole answer as JSON), stderr tells the run's id
 * once it starts; 0 when it completed, else 1. `ignored` names the options given that the parent
 * run decides (sandbox, workspace, limits): each gets a warning.
 */
export async function delegatedCommand(
	socket: string,
	ask: DelegationAsk,
	json: boolean,
	ignored: readonly string[],
): Promise<number> {
	for (const option of ignored) {
		printError(`crew: warning: ${option} is the parent run's to decide inside a crew worker: ignored\n`);
	}
	const started = (runId: string) => printError(`crew: run ${runId} delegated to this worker's runner\n`);
	const answer = await delegate(socket, ask, { started });
	if (json) print(`${JSON.stringify({ ...answer, result: fencedAnswer(answer) })}\n`);
	else print(`${fencedAnswer(answer)}\n`);
	return answer.status === RunStatus.Completed ? Exit.Ok : Exit.Failed;
}

/** The options of `flags` given that a delegation does not take, as the command line names them. */
export function ignoredOptions(flags: object, taken: readonly string[]): string[] {
	return Object.entries(flags)
		.filter(([key, value]) => value !== undefined && value !== false && !taken.includes(key))
		.map(([key]) => `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`);
}
