// The `--until` check task after a workflow's pass: the user's command or a judge agent.

import type { AgentSpec, TaskSpec } from "../../core/types.js";
import { judgeInstructions } from "./verdict.js";

/** The id of an `--until` check after pass `n`. */
export function untilId(n: number): string {
	return `until.${n}`;
}

/**
 * The check after the workflow's first pass, after every task without dependents: the user's
 * `--until` command, or a judge agent (`--until-judged`) told the goal, who runs that command
 * first when there is one; in a worktree of their merged work when it runs on a queue's worker.
 */
export function untilTask(
	check: { readonly command?: string; readonly judge?: AgentSpec; readonly goal: string },
	maxIterations: number,
	tasks: readonly TaskSpec[],
	worktree = false,
): TaskSpec {
	const { command, judge } = check;
	const agent: AgentSpec = judge ?? {
		name: "until",
		runtime: "command",
		command: `${command} 2>&1`,
		systemPrompt: "",
	};
	return {
		id: untilId(1),
		stepId: "until",
		role: "until",
		agent,
		text: judge ? judgeInstructions(check.goal, command) : `Check that the goal is met: ${command}`,
		dependsOn: sinksOf(tasks),
		// A judge's answer that is not a verdict is worth asking again; a command's exit is not.
		retries: judge ? 1 : 0,
		until: {
			...(command !== undefined ? { command } : {}),
			...(judge ? { judge: true } : {}),
			iteration: 1,
			maxIterations,
		},
		...(worktree ? { worktree: true } : {}),
	};
}

/** The tasks no other task of `tasks` waits for. */
export function sinksOf(tasks: readonly TaskSpec[]): string[] {
	return tasks.filter((t) => !tasks.some((o) => o.dependsOn.includes(t.id))).map((t) => t.id);
}
