// The crew CLI: its commands and options, parsed from the command line and run to an exit code.

import { Command, CommanderError, Option } from "commander";
import { TASK_JSON_FIELDS, TASK_STATUSES } from "../../core/status-selection.js";
import { THINKING_LEVELS } from "../../core/thinking.js";
import { timed } from "../../core/timings.js";
import type { AgentFlags } from "./agent-command.js";
import type { DemoFlags } from "./demo-command.js";
import { Exit } from "./exit-codes.js";
import { forkCommands } from "./fork-command.js";
import { knowledgeCommands } from "./knowledge-command.js";
import { cap, count, names } from "./option-values.js";
import { outcome } from "./outcome.js";
import type { FollowOption, JsonOption, StatusOptions, WatchOptions } from "./read-commands.js";
import type { PlanFlags, TrustFlags } from "./resource-commands.js";
import type { OutputFlags, ResumeFlags, RunFlags } from "./run-commands.js";
import { sandboxOption, withRunOptions } from "./run-options.js";
import { scheduleCommands } from "./schedule-program.js";
import { servingCommands } from "./serving-program.js";
import { specCommands } from "./spec-program.js";
import type { AnswerFlags, SteerFlags } from "./steer-command.js";
import { upkeepCommands } from "./upkeep-program.js";
import { version } from "./version.js";

function program(setExit: (code: number) => void): Command {
	const cli = new Command("crew")
		.description("Run teams of AI coding agents as durable, resumable DAG runs")
		.version(version(), "-V, --version")
		.option("--debug", "show stack traces of errors")
		.configureOutput({ outputError: (text, write) => write(text) })
		.exitOverride();
	// Commands load their modules on use, so a quick read such as `crew status` loads no engine.
	const runs = () => timed("load the run commands", () => import("./run-commands.js"));
	const reads = () => timed("load the read commands", () => import("./read-commands.js"));
	const exit = async (code: Promise<number>) => setExit(await code);

	cli
		.command("init")
		.description(
			"create .crew/ here, with crew's state ignored by git and resources tracked, and a starter team that runs as it is",
		)
		.option("--bare", "only the empty agents/, teams/ and workflows/ folders, no starter team")
		.action(async (options: { bare?: boolean }) => exit((await runs()).init(options)));

	cli
		.command("demo")
		.description(
			"the sample team of pi agents on a scripted model (no key, no network): fixing a sample repository, or with --here looking around this one",
		)
		.option("--here", "explore and report on the current repository, changing none of its files")
		.option("-m, --model <model>", "a real model instead of the scripted one, through pi's own configuration")
		.action(async (options: DemoFlags) => exit((await import("./demo-command.js")).demoCommand(options)));

	withRunOptions(
		cli
			.command("run")
			.description("run a workflow on a goal; foreground with live progress unless --detach")
			.argument("[goal]", "what the run is for; - reads it from standard input")
			.option("--goal-file <path>", "read the goal from this file; - for standard input"),
	)
		.option("-d, --detach", "start a background runner and return at once")
		.option("--json", "print {runId, status} as the last line of stdout")
		.action(async (goal: string | undefined, options: RunFlags) => exit((await runs()).runCommand(goal, options)));

	cli
		.command("agent")
		.description(
			"one agent on one task, as a run of workflow agent:<name>; prints its result (--background: its run id)",
		)
		.argument("<task>", "what the agent is to do; - reads it from standard input")
		.option("-a, --agent <name>", "the agent, see crew list agents (default: executor, crew's general implementer)")
		.option("--runtime <name>", "its runtime: pi, claude, codex, command or dry-run")
		.option("-m, --model <model>", "its model (its fallbackModels still follow)")
		.addOption(new Option("--workspace <mode>", "worktree: a worktree of its own").choices(["shared", "worktree"]))
		.option("--allow-dirty", "worktree mode although tracked files have uncommitted changes")
		.option("--allow-shared", "no warning when another live run works in this checkout too")
		.addOption(sandboxOption())
		.option("--budget-tokens <n>", "cap on the run's tokens (input, output and cache)", cap("token budget", true))
		.option("--budget-usd <amount>", "cap on the run's cost in US dollars", cap("dollar budget", false))
		.option("--timeout <duration>", "wall-clock limit of each attempt, e.g. 10m; 0: none (default 2h)")
		.option("-b, --background", "start a background runner and print the run id at once")
		.option("--json", "print {runId, taskId, agent, status, ...} (with the result once it ended) as JSON")
		.action(async (task: string, options: AgentFlags) =>
			exit((await timed("load the agent command", () => import("./agent-command.js"))).agentCommand(task, options)),
		);

	cli
		.command("resume")
		.description("continue an unfinished run; completed tasks never run again")
		.argument("<runId>")
		.option("-d, --detach", "resume in a background runner")
		.option("--json", "print {runId, status} as the last line of stdout")
		.option("--budget-tokens <n>", "the run's new cap on tokens, from here on", cap("token budget", true))
		.option("--budget-usd <amount>", "the run's new cap on cost in US dollars", cap("dollar budget", false))
		.addOption(new Option("--if-queued", "start the run only if it never started").hideHelp())
		.addOption(new Option("--background", "run as a background runner, which waits for approvals").hideHelp())
		.action(async (runId: string, options: ResumeFlags) => exit((await runs()).resumeCommand(runId, options)));

	cli
		.command("retry")
		.description("run a failed, cancelled, skipped or needs_attention task again, with the dependents it skipped")
		.argument("<runId>")
		.argument("<task>", "task id or step id")
		.option("-d, --detach", "retry in a background runner and return at once")
		.option("--json", "print {runId, status} as the last line of stdout")
		.addOption(new Option("--background", "run as a background runner, which waits for approvals").hideHelp())
		.action(async (runId: string, task: string, options: OutputFlags) =>
			exit((await runs()).retryCommand(runId, task, options)),
		);

	upkeepCommands(cli, exit);

	cli
		.command("cancel")
		.description("cancel a run: its workers are ended and unfinished tasks cancelled")
		.argument("<runId>")
		.action(async (runId: string) => exit((await runs()).cancelCommand(runId)));

	cli
		.command("approve")
		.description("let the tasks a run waits for start; starts a runner if none is left")
		.argument("<runId>")
		.option("--json", "print {runId, status} as the last line of stdout")
		.action(async (runId: string, options: JsonOption) => exit((await runs()).approveCommand(runId, options)));

	cli
		.command("steer")
		.description("give a running task's agent a message at its next turn (pi and Claude Code agents)")
		.argument("<runId>")
		.argument("<task>", "a task id, or a step id")
		.argument("[message]", "what the agent should hear; - reads standard input")
		.option("--file <path>", "read the message from a file")
		.option("--json", "print {runId, taskId, message, state, reason?}")
		.action(async (runId: string, task: string, message: string | undefined, options: SteerFlags) =>
			exit((await import("./steer-command.js")).steerCommand(runId, task, message, options)),
		);

	cli
		.command("answer")
		.description("answer a task's agent's question, or a workflow script's mail; starts a runner if none is left")
		.argument("<runId>")
		.argument("<task>", "a task id, a step id, or a mail's id (m1)")
		.argument("[answer]", "what the agent should hear; - reads standard input")
		.option("--file <path>", "read the answer from a file")
		.option(
			"--question <id>",
			"which question, by its number (crew inbox gives it), when the task asks several",
			cap("question", true),
		)
		.option("--json", "print {runId, taskId, questionId, question, state, runnerAlive, runner?}")
		.action(async (runId: string, task: string, answer: string | undefined, options: AnswerFlags) =>
			exit((await import("./answer-command.js")).answerCommand(runId, task, answer, options)),
		);

	cli
		.command("reject")
		.description("refuse what a run waits for: the run is cancelled with your reason")
		.argument("<runId>")
		.requiredOption("--reason <text>", "why, recorded as the run's error")
		.action(async (runId: string, options: { reason: string }) => exit((await runs()).rejectCommand(runId, options)));

	cli
		.command("status")
		.description("a run and its tasks (default: the latest run)")
		.argument("[runId]")
		.option("--json", "machine-readable output")
		.option(
			"--tasks <status,...>",
			"with --json: only the tasks in these statuses",
			names("--tasks", "task statuses", TASK_STATUSES),
		)
		.option(
			"--fields <name,...>",
			"with --json: only these fields of each task",
			names("--fields", "task fields", TASK_JSON_FIELDS),
		)
		.action(async (runId: string | undefined, options: StatusOptions) =>
			exit((await reads()).statusCommand(runId, options)),
		);

	cli
		.command("watch")
		.description("a live view of a run (default: the latest) until it ends")
		.argument("[runId]")
		.option("--interval <ms>", "time between refreshes, in ms", count("--interval", 50), 500)
		.action(async (runId: string | undefined, options: WatchOptions) =>
			exit((await reads()).watchCommand(runId, options)),
		);

	servingCommands(cli, exit);
	scheduleCommands(cli, exit);

	cli
		.command("runs")
		.description("the runs of this repository, newest first")
		.option("--session <id>", "only the runs an agent started with this session id (crew_run's session)")
		.option("--json", "machine-readable output")
		.action(async (options: JsonOption & { session?: string }) => exit((await reads()).runsCommand(options)));

	cli
		.command("inbox")
		.description("everything waiting on you in this repository, oldest first, each with the command that answers it")
		.option("--json", "print {items: [{kind, runId, goal, tasks, since, what, command}]}")
		.action(async (options: JsonOption) => exit((await reads()).inboxCommand(options)));

	cli
		.command("events")
		.description("a run's event log")
		.argument("<runId>")
		.option("-f, --follow", "keep printing new events until the run ends")
		.option("--json", "one JSON object per line")
		.action(async (runId: string, options: FollowOption) => exit((await reads()).eventsCommand(runId, options)));

	cli
		.command("logs")
		.description("a task's log: the agent's messages, tool calls and results, a command's output")
		.argument("<runId>")
		.argument("<task>", "task id or step id")
		.option("-f, --follow", "keep printing until the task ends")
		.option("--json", "one JSON object per line")
		.option("--raw", "control characters as written, for a program to read (else shown inert)")
		.action(async (runId: string, task: string, options: FollowOption & { raw?: boolean }) =>
			exit((await reads()).logsCommand(runId, task, options)),
		);

	cli
		.command("result")
		.description(
			"a task's result; without a task, the result a workflow script returned, or a one-task run's (crew agent) result",
		)
		.argument("<runId>")
		.argument("[task]", "task id or step id")
		.option("--json", "machine-readable output")
		.action(async (runId: string, task: string | undefined, options: JsonOption) =>
			exit((await reads()).resultCommand(runId, task, options)),
		);

	const resources = () => import("./resource-commands.js");
	cli
		.command("plan")
		.description("the task DAG a run would have: order, parallel groups, critical path; nothing runs")
		.argument("[goal]", "what the run would be for; - reads it from standard input")
		.option("--goal-file <path>", "read the goal from this file; - for standard input")
		.option("-w, --workflow <name|path>", "workflow name, or a file (default: the team's defaultWorkflow)")
		.option("-t, --team <name|path>", "team name, or a file (default with no --workflow: default)")
		.option("--runtime <name>", "runtime for every agent")
		.option("-m, --model <model>", "model for every agent")
		.addOption(new Option("--thinking <level>", "thinking level for every agent").choices(THINKING_LEVELS))
		.option("--json", "machine-readable output")
		.action(async (goal: string | undefined, options: PlanFlags) =>
			exit((await resources()).planCommand(goal, options)),
		);

	cli
		.command("list")
		.description("the agents, teams and workflows this repository sees, and where each comes from")
		.argument("[kind]", "agents, teams or workflows (default: all)")
		.option("--json", "machine-readable output")
		.action(async (kind: string | undefined, options: JsonOption) =>
			exit((await resources()).listCommand(kind, options)),
		);

	cli
		.command("show")
		.description("one agent, team or workflow as crew reads it")
		.argument("<kind>", "agent, team or workflow")
		.argument("<name>")
		.option("--json", "machine-readable output")
		.action(async (kind: string, name: string, options: JsonOption) =>
			exit((await resources()).showCommand(kind, name, options)),
		);

	cli
		.command("recommend")
		.description("the team and workflow whose routing hints fit a goal, and why")
		.argument("<goal>")
		.option("--json", "machine-readable output")
		.action(async (goal: string, options: JsonOption) => exit((await resources()).recommendCommand(goal, options)));

	cli
		.command("validate")
		.description("check every agent, team and workflow and how they refer to each other; exit 1 on errors")
		.option("--json", "machine-readable output")
		.action(async (options: JsonOption) => exit((await resources()).validateCommand(options)));

	knowledgeCommands(cli, exit);
	forkCommands(cli, exit);
	specCommands(cli, exit);

	cli
		.command("trust")
		.description("let crew run the commands this repository's own files define (command agents, verify commands)")
		.option("--list", "the repositories you trust")
		.option("--revoke", "stop trusting this repository")
		.action(async (options: TrustFlags) => exit((await resources()).trustCommand(options)));

	cli
		.command("doctor")
		.description("which runtimes can run, whether the agents' CLIs have a model and credentials, the store's health")
		.option("--smoke", "also make one small real model call per agent CLI the agents use")
		.option("--json", "machine-readable output")
		.action(async (options: JsonOption & { smoke?: boolean }) =>
			exit((await import("./doctor-command.js")).doctorCommand(options)),
		);

	return cli;
}

/** Runs the CLI on `argv`; returns the exit code. Errors become one line naming the bad value. */
export async function main(argv: readonly string[]): Promise<number> {
	let code: number = Exit.Ok;
	const cli = program((c) => {
		code = c;
	});
	return outcome(argv, async () => {
		try {
			await cli.parseAsync(argv as string[]);
			return code;
		} catch (error) {
			if (!(error instanceof CommanderError)) throw error;
			return error.exitCode === 0 ? Exit.Ok : Exit.Usage;
		}
	});
}
