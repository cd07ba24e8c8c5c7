// The `ask` tool, by which an agent asks a person a question, and the answered questions later attempts carry.

/** The name of the tool that lets an agent ask a person a question, in every runtime that offers it. */
export const ASK_TOOL = "ask";

/** What a task that waits for an answer shows as what it waits on, before the question's first line. */
export const ASKS = "asks: ";

/** What a task that waits for the answer to `question` shows as what it waits on. */
export function asksLine(question: string): string {
	return `${ASKS}${question.split("\n", 1)[0]}`;
}

/** What the `ask` tool tells the model it does. */
export const ASK_DESCRIPTION =
	"Ask the person who runs this task a question, and wait for the answer. Use it only when you cannot go on without a decision or a fact that only they have.";

/**
 * How long an agent CLI lets a call of crew's `ask` tool wait, in ms: a week, crew's longest
 * duration. The step's `askTimeout` ends a question sooner, and the attempt with it.
 */
export const ASK_WAIT_MS = 7 * 24 * 3600 * 1000;

/** A question an earlier attempt of the task asked, and the answer a person gave. */
export interface Answered {
	readonly question: string;
	readonly answer: string;
}

/** The heading under which a later attempt's prompt carries the questions earlier ones asked, answered. */
export const ANSWERED_HEADING = "Questions already answered";

/**
 * The task's prompt for an attempt whose earlier attempts asked questions: each with the answer
 * a person gave, so that the agent need not ask again.
 */
export function withAnswers(prompt: string, answered: readonly Answered[]): string {
	if (answered.length === 0) return prompt;
	const pairs = answered.flatMap((a) => ["", `Question: ${a.question}`, `Answer: ${a.answer}`]);
	return [
		prompt.trimEnd(),
		"",
		`## ${ANSWERED_HEADING}`,
		"An earlier attempt at this task asked these questions, and a person answered them; do not ask them again.",
		...pairs,
		"",
	].join("\n");
}
