// Answering a waiting task's question and waiting for its delivery, or replying to a workflow script's mail.

import { setTimeout as delay } from "node:timers/promises";
import { CrewError, ErrorCode, isCrewError } from "../../core/errors.js";
import { checkId } from "../../core/ids.js";
import { TaskStatus } from "../../core/status.js";
import { checkPersonText } from "../../core/steer-limits.js";
import { isLeaseHolderAlive } from "../../store/lease.js";
import type { MailRow } from "../../store/script-mail.js";
import { type SteerDeps, taskOrOneOfStep } from "./steer.js";

/** What answering gave: a task's question answered, or a workflow script's mail replied to. */
export type AnswerGiven = QuestionAnswered | MailReplied;

export interface QuestionAnswered {
	readonly runId: string;
	readonly taskId: string;
	/** The question's number among its task's, from 1, and its text. */
	readonly questionId: number;
	readonly question: string;
	/** `delivered` once the agent has the answer; `answered` while it waits for a runner to give it. */
	readonly state: "answered" | "delivered";
	/** Whether a live runner holds the run: without one, an answer not delivered needs a runner started. */
	readonly runnerAlive: boolean;
}

export interface MailReplied {
	readonly runId: string;
	/** The mail's id, and whom it was for. */
	readonly mail: string;
	readonly to: string;
	/** The mail's text. */
	readonly question: string;
	/** The run's script gathers the reply when it looks for it. */
	readonly state: "answered";
	readonly runnerAlive: boolean;
}

/**
 * Answers the question task or step `ref` waits on with `text` (question `questionId`, its number
 * among the task's, which must be named when it waits on several), and waits up to `waitMs` for the run's runner to give it to
 * the agent that asked. A step with several tasks means the one that waits. A `ref` that names a
 * mail of the run's workflow script (`m1`) replies to it instead.
 */
export async function answerTask(
	deps: SteerDeps,
	runId: string,
	ref: string,
	text: string,
	waitMs: number,
	questionId?: number,
): Promise<AnswerGiven> {
	checkId("run", runId);
	checkPersonText(text, "an answer");
	const { store } = deps;
	const alive = () => {
		const run = store.queries.getRun(runId);
		return run.lease !== null && isLeaseHolderAlive(run.lease, deps.now(), deps.staleAfterMs);
	};
	const mails = store.mail.ofRun(runId);
	if (mails.some((m) => m.name === ref)) {
		if (questionId !== undefined) throw new CrewError(ErrorCode.InvalidInput, `${ref} is a mail: it has no questions`);
		const mail = store.mail.reply(runId, ref, text);
		return { runId, mail: ref, to: mail.to, question: mail.text, state: "answered", runnerAlive: alive() };
	}
	const task = withMail(mails, () => taskOrOneOfStep(store, runId, ref, TaskStatus.Waiting));
	if (questionId !== undefined && !(Number.isInteger(questionId) && questionId > 0)) {
		throw new CrewError(ErrorCode.InvalidInput, `invalid question ${questionId}: expected a question's number`);
	}
	const asked = store.questions.answer(runId, task.id, text, questionId);
	const base = { runId, taskId: task.id, questionId: asked.number, question: asked.question };
	const until = deps.now() + waitMs;
	for (;;) {
		// Read before the runner: one that gave the answer may have ended its run since.
		const delivered = store.questions.state(asked.id) === "delivered";
		const runnerAlive = alive();
		if (delivered) return { ...base, state: "delivered", runnerAlive };
		if (!runnerAlive || deps.now() >= until) return { ...base, state: "answered", runnerAlive };
		await delay(deps.pollMs);
	}
}

/** `find`'s task; when there is none, its error names the mail of the run that waits for a reply too. */
function withMail<T>(mails: readonly MailRow[], find: () => T): T {
	try {
		return find();
	} catch (error) {
		const open = mails.filter((m) => m.state === "sent").map((m) => m.name);
		if (!isCrewError(error, ErrorCode.NotFound) || open.length === 0) throw error;
		throw new CrewError(ErrorCode.NotFound, `${error.message}; mail waiting for a reply: ${open.join(", ")}`);
	}
}
