// The names, descriptions and parameters of crew's agent-facing tools, shared by MCP and pi.

import { type ZodRawShape, z } from "zod";
import { TASK_JSON_FIELDS, TASK_STATUSES } from "../../core/status-selection.js";
import { MAX_STEER_CHARS } from "../../core/steer-limits.js";
import { limit, runParameters, sandbox, sessionParameters } from "../shared/run-parameters.js";

/**
 * What each of crew's agent-facing tools is called, says and takes: the MCP server serves them,
 * and the pi extension offers the same parameters through its `team` and `agent` tools. Nothing
 * here touches a run, so a host on another Node can read it.
 */
export interface ToolSpec {
	readonly description: string;
	readonly input: ZodRawShape;
}

const runId = z.string().min(1).describe("a run id, as crew_run or crew_status gave it");
const goal = z.string().min(1).describe("what the run is for, in words");
const workflow = z
	.string()
	.min(1)
	.optional()
	.describe(
		"a workflow name (see crew_list) or a path to a workflow file; default: the team's defaultWorkflow, and without a team the default team's",
	);
const team = z
	.string()
	.min(1)
	.optional()
	.describe(
		"a team name or path; without it, each role runs the agent of its name, or with no workflow either, the default team",
	);
/** Longest one call waits for runs, in seconds: under MCP clients' own timeouts. */
export const MOST_WAIT_SECONDS = 600;
/** Most runs one wait may name. */
export const MOST_WAITED_RUNS = 50;
const task = z.string().min(1).describe("a task id or step id");

/** One of `values`; anything else is refused naming it and the values expected. */
function oneOf<T extends string>(what: string, values: readonly T[]) {
	return z.enum(values as readonly [T, ...T[]], {
		error: (issue) => `invalid ${what} ${JSON.stringify(issue.input)}: expected one of ${values.join(", ")}`,
	});
}

export const TOOL_SPECS = {
	crew_list: {
		description: "List the agents, teams and workflows this repository can use, with where each comes from.",
		input: { kind: z.enum(["agents", "teams", "workflows"]).optional().describe("only this kind") },
	},
	crew_plan: {
		description:
			"Show the tasks a run would have (roles, agents, runtimes, dependencies, parallel groups, critical path) and an estimate of its tokens, cost and time from this repository's past runs; nothing runs.",
		input: { goal, workflow, team, ...runParameters, ...sessionParameters },
	},
	crew_run: {
		description:
			"Start a team run in the background and return {runId, status} at once; follow it with crew_status or crew_events.",
		input: {
			goal,
			workflow,
			team,
			...runParameters,
			...sessionParameters,
		},
	},
	crew_goal: {
		description:
			"Start a run that works toward a goal until a judge agent (default goal-judge, read-only) finds it achieved: after each pass of the workflow the judge gets the goal, the pass's results, the change so far and the output of `until` (a command that must pass first, when given), and answers ACHIEVED, NOT_ACHIEVED (its reason goes to the next pass) or BLOCKED (the run stops with the reason). At most maxIterations passes (default 3), within the budget. Returns {runId, status} at once, as crew_run does.",
		input: { goal, workflow, team, ...runParameters, ...sessionParameters },
	},
	crew_agent: {
		description:
			"Run one agent on one task (a one-task crew run: stored, budgeted, cancellable like any run). In the foreground (default) it waits for the end, at most waitSeconds, and answers {runId, taskId, agent, status, ended, result}; if it has not ended by then, join it with crew_wait. With background: true it answers {runId, taskId, agent, status} at once; several in the background and one crew_wait with all their runIds run them as a batch.",
		input: {
			task: z.string().min(1).describe("what the agent is to do, in words: its whole prompt"),
			agent: z
				.string()
				.min(1)
				.optional()
				.describe("the agent's name (see crew_list agents); default: executor, crew's general implementer"),
			model: z.string().min(1).optional().describe("the agent's model, e.g. anthropic/claude-sonnet-4-5"),
			runtime: z.string().min(1).optional().describe("its runtime: pi, claude, codex, command or dry-run"),
			workspace: z
				.enum(["shared", "worktree"])
				.optional()
				.describe("worktree: it works in a git worktree of its own, its work on branch crew/<runId>"),
			budgetTokens: z.number().int().min(1).optional().describe("cap on the run's tokens; the agent stops there"),
			budgetUsd: z.number().positive().optional().describe("cap on the run's cost in US dollars"),
			timeout: limit.describe(
				"wall-clock limit of its attempt, e.g. 30m; 0: none; default: the user's config, else 2h",
			),
			stallTimeout: limit.describe(
				"limit on time its attempt may go without output, e.g. 5m; 0: none; default: the user's config, else 10m",
			),
			thinking: runParameters.thinking,
			sandbox,
			...sessionParameters,
			background: z.boolean().optional().describe("answer at once with the runId instead of waiting; default false"),
			waitSeconds: z
				.number()
				.int()
				.min(0)
				.max(MOST_WAIT_SECONDS)
				.optional()
				.describe("in the foreground, the longest to wait for the end; default and most 600"),
		},
	},
	crew_wait: {
		description:
			"Wait until every listed run has ended (or waits for an approval), at most timeoutSeconds, and answer each run's {runId, status, ended, result}: a crew_agent run's result, a workflow script's result, or for other runs the results of their last tasks. timedOut: true when some had not ended; ask again.",
		input: {
			runIds: z.array(runId).min(1).max(MOST_WAITED_RUNS).describe("the runs to wait for, one or more"),
			timeoutSeconds: z
				.number()
				.int()
				.min(0)
				.max(MOST_WAIT_SECONDS)
				.optional()
				.describe("the longest to wait; default and most 600"),
		},
	},
	crew_status: {
		description:
			"A run (default: the latest) and its tasks: {run, tasks}, as `crew status --json` gives them; tasks and fields ask for fewer, as --tasks and --fields do.",
		input: {
			runId: runId.optional(),
			tasks: z
				.array(oneOf("task status", TASK_STATUSES))
				.optional()
				.describe("only the tasks in these statuses; default: all"),
			fields: z
				.array(oneOf("task field", TASK_JSON_FIELDS))
				.optional()
				.describe("only these fields of each task; default: all"),
		},
	},
	crew_events: {
		description: "A run's events after seq `since` (up to 200); ask again with `since` = the returned `next`.",
		input: { runId, since: z.number().int().min(0).optional().describe("the last seq already seen") },
	},
	crew_result: {
		description: "A task's result text, by task id or step id.",
		input: { runId, task },
	},
	crew_cancel: {
		description: "Cancel a run: its workers end and unfinished tasks are marked cancelled.",
		input: { runId },
	},
	crew_resume: {
		description: "Continue an unfinished run in the background; finished tasks are never run again.",
		input: { runId },
	},
	crew_approve: {
		description: "Approve what a run waits for (its approval gates), so those tasks start.",
		input: { runId },
	},
	crew_steer: {
		description:
			"Give the running agent of a task a message it hears at its next turn (pi and Claude Code agents), and answer {runId, taskId, message, state, reason?}: state is delivered, refused (reason says why: the task is not running, its agent takes no messages) or queued (no runner gave it yet).",
		input: {
			runId,
			task,
			message: z.string().min(1).max(MAX_STEER_CHARS).describe("what the agent should hear, as a person's words to it"),
		},
	},
	crew_answer: {
		description:
			"Answer the question a task's agent asked (crew_inbox lists them), which it waits on: the answer is its ask tool's result, or, if its agent is gone, told to the task's next attempt. Answers {runId, taskId, questionId, question, state, runnerAlive, status}: state delivered once the agent has it; a run with no runner left gets a background runner. With a mail's id (crew_inbox lists a workflow script's mail) as task, the answer is the mail's reply: {runId, mail, to, question, state, runnerAlive, status}.",
		input: {
			runId,
			task,
			answer: z.string().min(1).max(MAX_STEER_CHARS).describe("the answer, as a person's words to the agent"),
			question: z
				.number()
				.int()
				.min(1)
				.optional()
				.describe("which question, by its number (crew_inbox gives it), when the task waits on several"),
		},
	},
	crew_reject: {
		description: "Refuse what a run waits for: the run is cancelled with the reason as its error.",
		input: { runId, reason: z.string().min(1).describe("why") },
	},
	crew_retry: {
		description:
			"Run a failed, cancelled, skipped or needs_attention task of an ended run again (with the dependents it skipped), in the background.",
		input: { runId, task },
	},
	crew_fork: {
		description:
			"Start a new run of an ended run's goal that takes the outcomes of the tasks that need not run again, in the background: with from, the tasks before those named; without, every task whose step has not changed. It executes under the user's settings now, never the record's. Answers {runId, of, reused, rerun, status}.",
		input: {
			runId,
			from: z
				.array(task)
				.min(1)
				.optional()
				.describe(
					"the tasks or steps to run again, with all that depend on them; those before them are taken as they were",
				),
			session: sessionParameters.session,
		},
	},
	crew_replay: {
		description:
			"Run an ended run's workflow again as a new run in the background, every task answered from its record and no agent started; a task whose prompt differs fails as diverged. Answers {runId, of, status}.",
		input: {
			runId,
			liveOnDivergence: z
				.boolean()
				.optional()
				.describe("run a task whose prompt differs for real, by its agent, rather than fail it"),
			session: sessionParameters.session,
		},
	},
	crew_runs: {
		description:
			"The runs of this repository, newest first, each with its status, end time, a summary of its tasks and what to do next.",
		input: {
			session: z.string().optional().describe("only the runs started with this session id"),
			limit: z.number().int().min(1).max(1000).optional().describe("at most this many runs (default 20)"),
		},
	},
	crew_inbox: {
		description:
			"Everything waiting on a person in this repository, oldest first: approvals, agents' questions, integration conflicts left for a person, tasks that need attention, budget stops, failed and interrupted runs; each {kind, runId, goal, tasks, since, what, command} with the command that answers it.",
		input: {},
	},
	crew_recommend: {
		description: "The team and workflow whose routing hints fit a goal, and why; nothing runs.",
		input: { goal },
	},
	crew_validate: {
		description:
			"Check every agent, team and workflow this repository sees and how they refer to each other: counts and diagnostics.",
		input: {},
	},
	crew_doctor: {
		description:
			"What this machine offers crew: runtimes, their versions, credentials (names only), the store's health; each failed check with its fix.",
		input: {
			smoke: z.boolean().optional().describe("also make one small real model call per agent CLI the agents use"),
		},
	},
	crew_worktrees: {
		description: "A run's task worktrees, their branches, and whether they hold uncommitted work.",
		input: { runId },
	},
	crew_merge: {
		description:
			"Merge a worktree run's integration branch crew/<runId> into the repository's current branch (clean work tree only).",
		input: {
			runId,
			partial: z
				.boolean()
				.optional()
				.describe("merge what the branch holds although some tasks' work is missing from it"),
		},
	},
	crew_export: {
		description: "Write an ended run, its records and files, to one JSON bundle in the repository; returns its path.",
		input: {
			runId,
			file: z
				.string()
				.min(1)
				.optional()
				.describe("a path inside the repository; default <runId>.crew-run.json at its root"),
		},
	},
	crew_schedule: {
		description:
			"Schedules of runs in this repository, started on their slots by `crew scheduler` or `crew serve`: op add (name, goal and one of cron [with tz], interval or once, plus any run option; the run is checked now as crew_run would check it), list, rm, pause, resume, or run (one run now, outside the slots). A slot starts one run whatever the number of schedulers; a scheduler that was away starts one run for the latest slot it missed.",
		input: {
			op: oneOf("op", ["add", "list", "rm", "pause", "resume", "run"] as const)
				.optional()
				.describe("what to do (default add)"),
			name: z.string().min(1).optional().describe("the schedule's name (all ops but list)"),
			goal: z.string().min(1).optional().describe("add: what each run is for"),
			cron: z.string().min(1).optional().describe('add: a cron expression, e.g. "0 3 * * *"'),
			tz: z.string().min(1).optional().describe("add, with cron: its IANA time zone, e.g. Europe/Paris"),
			interval: z.number().int().optional().describe("add: a run every this many milliseconds (at least 1000)"),
			once: z.string().min(1).optional().describe("add: one run at this ISO time"),
			overlap: oneOf("overlap", ["skip", "allow", "queue"] as const)
				.optional()
				.describe("add: when a slot comes while the previous run still runs (default skip)"),
			workflow,
			team,
			...runParameters,
		},
	},
	crew_scheduled: {
		description:
			"The schedules of this repository: each {name, when, goal, overlap, paused, next, last} with its next slot and what became of its latest slots.",
		input: {},
	},
} satisfies Record<string, ToolSpec>;

export type ToolName = keyof typeof TOOL_SPECS;
