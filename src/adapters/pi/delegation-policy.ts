// The text a pi session's system prompt gains about when to delegate work to crew.

import { findProject } from "../../config/project.js";
import { type Delegation, loadSettings } from "../../config/settings.js";

const COMMON = [
	"crew can run work for you in this repository: the `team` tool runs a team of agents on a goal (planned as a graph of tasks, in the background, its report coming back here), and the `agent` tool runs one agent on one task, in the foreground or in the background.",
	"Delegation pays off when the work splits into parts that can go in parallel, needs an independent review or check, or is long enough to go on while you do something else. It does not pay off for a small change, for a question about this conversation, or for work you are about to do anyway: a team costs several times one direct call, and one agent costs about one call plus its start.",
	"Before a team run, `team action=plan` shows its tasks and estimated tokens, cost and time.",
];

const POLICY: Readonly<Record<Exclude<Delegation, "off">, string>> = {
	suggest: [...COMMON, "When delegating would pay off, say so and ask before starting a run."].join("\n"),
	auto: [...COMMON, "When delegating pays off, start the run without asking, and say what you started."].join("\n"),
};

/** The text a pi session's system prompt gains from the user's `delegation` setting; none when off. */
export function delegationPolicy(cwd: string): string | undefined {
	const level = loadSettings(findProject(cwd)).delegation ?? "off";
	return level === "off" ? undefined : `## Delegating to crew\n${POLICY[level]}`;
}
