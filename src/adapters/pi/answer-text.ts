// What a pi agent reads of one of crew's answers: a few lines of text, else the data.

import type { StatusJson } from "../../engine/views/json.js";
import { statusText } from "./run-report.js";

/** Characters of a plain answer shown to the agent; the whole answer stays in the tool's details. */
const MOST_SHOWN = 20_000;

/** What the agent reads of an answer of crew's: a few lines where crew has them, else the data. */
export function answerText(action: string, answer: Record<string, unknown>): string {
	switch (action) {
		case "run":
			return `Started crew run ${answer.runId} (${answer.tasks} tasks of workflow ${answer.workflow}), now ${answer.status}, in the background. Its report comes back here when it ends; team action=status shows it any time.${answer.estimate ? ` Estimate: ${answer.estimate}.` : ""}`;
		case "status":
			return statusText(answer as unknown as StatusJson);
		case "result":
			return typeof answer.result === "string" && answer.result !== ""
				? answer.result
				: `task ${answer.taskId} is ${answer.status} and has no result`;
		case "events": {
			const events = answer.events as unknown[];
			return events.map((e) => JSON.stringify(e)).join("\n") || "no new events";
		}
		default: {
			const text = JSON.stringify(answer, null, 2);
			return text.length > MOST_SHOWN ? `${text.slice(0, MOST_SHOWN)}\n…` : text;
		}
	}
}
