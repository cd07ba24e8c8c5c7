// The options of a run as MCP tools take them, checked as `crew run`'s flags are.

import { z } from "zod";
import { SANDBOX_LEVELS } from "../../core/sandbox-level.js";
import { THINKING_LEVELS } from "../../core/thinking.js";

/** A run's sandbox level, as `--sandbox` takes it; an agent may only tighten the user's own. */
export const sandbox = z
	.enum(SANDBOX_LEVELS)
	.optional()
	.describe(
		"confine every task at this level (workspace, strict); default: the user's; a level looser than the user's own is refused",
	);

/** A limit as the CLI takes it: 0, or a duration such as 500ms, 30s, 5m or 1h. */
export const limit = z.string().min(1).optional();

/**
 * The caller's own model and thinking level: what agents that name no model (or `model: false`)
 * run on, as a pi session's agents follow its model. A run's `model`, a step's, a role's and an
 * agent's own win over it.
 */
export const sessionParameters = {
	defaultModel: z
		.string()
		.min(1)
		.optional()
		.describe("your own model (provider/id), for agents that name none; pi agents only"),
	defaultThinking: z.enum(THINKING_LEVELS).optional().describe("your own thinking level, for agents that name none"),
	session: z
		.string()
		.optional()
		.describe("your session's id, recorded with the run; crew_runs with it lists this session's runs"),
};

/**
 * The options of a run as MCP tools take them, named and meant as `crew run`'s flags are (camelCase);
 * their values are checked where the CLI's are, so both refuse the same ones.
 */
export const runParameters = {
	runtime: z
		.string()
		.min(1)
		.optional()
		.describe("run every agent with this runtime: pi, claude, codex, command or dry-run"),
	model: z
		.string()
		.min(1)
		.optional()
		.describe("model for every agent, e.g. anthropic/claude-sonnet-4-5 (its fallbackModels still follow)"),
	thinking: z
		.enum(THINKING_LEVELS)
		.optional()
		.describe("thinking level for every agent: off, minimal, low, medium, high, xhigh, max"),
	concurrency: z.number().int().min(1).max(64).optional().describe("most tasks running at once"),
	failure: z
		.enum(["drain", "continue", "abort"])
		.optional()
		.describe("what a failed task does to the run; default: the workflow's, else drain"),
	timeout: limit.describe(
		"wall-clock limit of each task attempt, e.g. 30m; 0: none; default: the user's config, else 2h",
	),
	stallTimeout: limit.describe(
		"limit on time an attempt may go without output, e.g. 5m; 0: none; default: the user's config, else 10m for agent CLIs",
	),
	retries: z.number().int().optional().describe("extra attempts after a retryable failure (default 2)"),
	budgetTokens: z.number().int().optional().describe("cap on the run's tokens (input, output and cache), > 0"),
	budgetUsd: z.number().optional().describe("cap on the run's cost in US dollars, > 0"),
	reserveTokens: z.number().int().optional().describe("tokens reserved per task whose agent sets no maxTokens"),
	reserveUsd: z.number().optional().describe("dollars reserved per task"),
	workspace: z
		.enum(["shared", "worktree"])
		.optional()
		.describe("worktree: each task works in a git worktree of its own, merged on crew/<runId>; default: the team's"),
	allowDirty: z
		.boolean()
		.optional()
		.describe("worktree mode although tracked files have uncommitted changes (which it will not see)"),
	allowShared: z
		.boolean()
		.optional()
		.describe("no warning when another live run works in this checkout too (both runs' agents write the same files)"),
	integration: z
		.enum(["auto", "manual"])
		.optional()
		.describe("auto: an integrator agent resolves conflicts between the tasks' branches; manual: they are left"),
	approvePlan: z.boolean().optional().describe("tasks a planner adds wait for crew_approve before they start"),
	until: z
		.string()
		.optional()
		.describe(
			"a command line checked after the workflow; while it fails, the workflow runs again (needs the repository's trust)",
		),
	untilJudged: z
		.boolean()
		.optional()
		.describe("after each pass a judge agent decides whether the goal is achieved; while not, the workflow runs again"),
	judge: z.string().min(1).optional().describe("with untilJudged: the judge's agent (default goal-judge)"),
	maxIterations: z
		.number()
		.int()
		.optional()
		.describe("passes of the workflow `until` or `untilJudged` may make (default 3)"),
	sandbox,
	args: z
		.record(z.string(), z.unknown())
		.optional()
		.describe("a workflow script's arguments, checked against its args schema"),
};
