// `crew steer`: a message to a running task's agent, given at its next turn.

import { findProject } from "../../config/project.js";
import { Exit } from "./exit-codes.js";
import { readTextInput } from "./goal-input.js";
import { openCrew } from "./open-crew.js";
import { print } from "./print.js";

const MESSAGE = {
	noun: "message",
	option: "--file",
	usage: 'crew steer <runId> <task> "<message>"',
	purpose: "what the agent should hear",
} as const;

/** `crew steer`'s flags, and `crew answer`'s, which adds the question answered. */
export interface SteerFlags {
	file?: string;
	json?: boolean;
}

export interface AnswerFlags extends SteerFlags {
	question?: number;
}

/**
 * `crew steer`: gives a running task's agent a message at its next turn, and says whether it was
 * delivered, refused (exit 1) or still waits for the agent.
 */
export async function steerCommand(
	runId: string,
	task: string,
	argument: string | undefined,
	flags: SteerFlags,
): Promise<number> {
	const text = readTextInput(argument, flags.file, MESSAGE);
	const crew = openCrew(findProject(process.cwd()));
	try {
		const steered = await crew.steer(runId, task, text);
		if (flags.json) print(`${JSON.stringify(steered)}\n`);
		else {
			const why = steered.reason ? `: ${steered.reason}` : "";
			print(`message ${steered.message} to task ${steered.taskId}: ${steered.state}${why}\n`);
		}
		return steered.state === "refused" ? Exit.Failed : Exit.Ok;
	} finally {
		crew.close();
	}
}
