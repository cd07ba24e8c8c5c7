// The options of a run that `crew run` and `crew schedule add` share: what the run is and how it goes.

import { type Command, Option } from "commander";
import { THINKING_LEVELS } from "../../core/thinking.js";
import { amount, cap, count, json } from "./option-values.js";

/** Adds to `command` the options of a run, as `crew run` takes them. */
export function withRunOptions(command: Command): Command {
	return command
		.option(
			"-w, --workflow <name|path>",
			"workflow name in .crew/workflows/, or a file (default: the team's defaultWorkflow; without --team, the default team's)",
		)
		.option("-t, --team <name|path>", "team name in .crew/teams/, or a file (default with no --workflow: default)")
		.option("--runtime <name>", "runtime for every agent: pi, claude, codex, command or dry-run")
		.option("-m, --model <model>", "model for every agent (its fallbackModels still follow)")
		.addOption(
			new Option("--thinking <level>", "thinking level for every agent (pi's levels)").choices(THINKING_LEVELS),
		)
		.option(
			"-c, --concurrency <n>",
			"tasks running at once (overrides the team's maxConcurrency)",
			count("concurrency", 1),
		)
		.addOption(
			new Option("--failure <policy>", "what a failed task does to the run").choices(["drain", "continue", "abort"]),
		)
		.option("--timeout <duration>", "wall-clock limit of each task attempt, e.g. 10m; 0: none (default 2h)")
		.option(
			"--stall-timeout <duration>",
			"limit on time a task may go without output, e.g. 2m; 0: none (default 10m for agent CLIs)",
		)
		.option("--retries <n>", "extra attempts after a retryable failure (default 2)", count("retries", 0))
		.option("--budget-tokens <n>", "cap on the run's tokens (input, output and cache)", cap("token budget", true))
		.option("--budget-usd <amount>", "cap on the run's cost in US dollars", cap("dollar budget", false))
		.option("--reserve-tokens <n>", "tokens reserved per task whose agent sets no maxTokens", count("reservation", 0))
		.option("--reserve-usd <amount>", "dollars reserved per task", amount("dollar reservation"))
		.addOption(
			new Option("--workspace <mode>", "worktree: each task works in a git worktree of its own").choices([
				"shared",
				"worktree",
			]),
		)
		.option("--allow-dirty", "worktree mode although tracked files have uncommitted changes")
		.option("--allow-shared", "no warning when another live run works in this checkout too")
		.addOption(sandboxOption())
		.addOption(
			new Option(
				"--integration <mode>",
				"auto: an integrator agent resolves conflicts between the tasks' branches; manual: they are left for you",
			).choices(["auto", "manual"]),
		)
		.option("--approve-plan", "tasks a planner adds wait for crew approve before they start")
		.option("--no-knowledge", "leave the project's knowledge (.crew/knowledge.md) out of the tasks' prompts")
		.option("--no-continue", "a task's retry starts its agent afresh rather than continue the agent's session")
		.option("--no-foresight", "in worktree mode, do not trial-merge the tasks' changes while they work")
		.option("--until <command>", "after the workflow, run this check; while it fails, run the workflow again")
		.option("--until-judged", "after the workflow, a judge agent says if the goal is met; while not, run it again")
		.option("--judge <agent>", "with --until-judged: the judge's agent (default goal-judge)")
		.option("--max-iterations <n>", "passes --until or --until-judged may make (default 3)", count("max iterations", 1))
		.option("--args <json>", "arguments of a workflow script, checked against its args schema", json("--args"))
		.option("--queue <url>", "run attempts on crew workers through a BullMQ queue on this Redis (redis://host:port)")
		.option("--repository <url>", "with --queue: where workers fetch the base commit from (default: this repository)");
}

/** `--sandbox <level>`, as every command that starts a run takes it. */
export function sandboxOption(): Option {
	return new Option(
		"--sandbox <level>",
		"workspace: tasks write only their workspace, secrets hidden; strict: commands also without a network; off (default: workspace where bubblewrap is installed)",
	).choices(["off", "workspace", "strict"]);
}
