// `crew answer`: the answer to a question a task's agent waits on, or a reply to a workflow script's mail.

import { findProject } from "../../config/project.js";
import { startBackgroundRunner } from "../shared/background-runner.js";
import { Exit } from "./exit-codes.js";
import { readTextInput } from "./goal-input.js";
import { openCrew } from "./open-crew.js";
import { print } from "./print.js";
import type { AnswerFlags } from "./steer-command.js";

const ANSWER = {
	noun: "answer",
	option: "--file",
	usage: 'crew answer <runId> <task> "<answer>"',
	purpose: "what the agent should hear",
} as const;

/**
 * `crew answer`: answers the question a task's agent waits on, or a workflow script's mail. A live runner gives it to the
 * agent; with none left, a runner is started in the background, whose new attempt of the task
 * has the question and its answer in its prompt.
 */
export async function answerCommand(
	runId: string,
	task: string,
	argument: string | undefined,
	flags: AnswerFlags,
): Promise<number> {
	const text = readTextInput(argument, flags.file, ANSWER);
	const crew = openCrew(findProject(process.cwd()));
	try {
		const given = await crew.answer(
			runId,
			task,
			text,
			flags.question !== undefined ? { question: flags.question } : {},
		);
		const orphaned = given.state === "answered" && !given.runnerAlive;
		const runner = orphaned ? await startBackgroundRunner(crew, runId) : undefined;
		if (flags.json) {
			const resumed = runner ? { runner: { pid: runner.pid, status: runner.status } } : {};
			print(`${JSON.stringify({ ...given, ...resumed })}\n`);
			return Exit.Ok;
		}
		if ("mail" in given) {
			const resumed = runner ? `; no runner held the run: one started in the background (pid ${runner.pid})` : "";
			print(`mail ${given.mail} of run ${runId} replied to: its script gathers the reply${resumed}\n`);
			return Exit.Ok;
		}
		const told =
			given.state === "delivered"
				? "its agent has the answer"
				: runner
					? `no runner held the run: one started in the background (pid ${runner.pid}), and the task's next attempt is told the answer; follow it with: crew watch ${runId}`
					: "its runner gives it to the agent at its next look";
		print(`question ${given.questionId} of task ${given.taskId} answered: ${told}\n`);
		return Exit.Ok;
	} finally {
		crew.close();
	}
}
