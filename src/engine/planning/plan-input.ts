// What a run is planned from (its goal and every choice made for it), and the plan made of it.

import type { BudgetLimits } from "../../core/budget.js";
import type { SandboxLevel } from "../../core/sandbox-level.js";
import type { ThinkingLevel } from "../../core/thinking.js";
import type { FailurePolicy, IntegrationMode, RunOptions, TaskSpec } from "../../core/types.js";
import type { Diagnostic } from "../../resources/frontmatter.js";

/** What a run is planned from: the goal and every choice a person or a caller made. */
export interface PlanInput {
	readonly goal: string;
	/**
	 * A workflow name in `.crew/workflows/`, or a path. Default: the team's `defaultWorkflow`, and
	 * without a team, that of the `default` team, which then runs it.
	 */
	readonly workflow?: string;
	/**
	 * A team name in `.crew/teams/`, or a path; without one (and with a workflow), each role is run
	 * by the agent of that name.
	 */
	readonly team?: string;
	/** Overrides every agent's runtime, e.g. `dry-run`. */
	readonly runtime?: string;
	/** Overrides every agent's model; their fallback models still follow it. */
	readonly model?: string;
	/** Overrides every agent's thinking level, as `model` does its model. */
	readonly thinking?: ThinkingLevel;
	/**
	 * The calling session's model (pi's `provider/id`): the model of each pi agent that names none
	 * (no `model:`, or `model: false`) and that neither `model`, its step nor its team role sets.
	 * Agents of other runtimes keep their CLI's default, since each CLI names models its own way.
	 */
	readonly defaultModel?: string;
	/** The calling session's thinking level: for every agent that, as for `defaultModel`, has none. */
	readonly defaultThinking?: ThinkingLevel;
	/** Tasks running at once; overrides the team's and the workflow's `maxConcurrency`. */
	readonly concurrency?: number;
	readonly failure?: FailurePolicy;
	/**
	 * The run's wall-clock limit of one attempt, in ms (its flag, else the config's); 0: none. A
	 * step's or agent's own limit wins over it; without any, the engine's default applies.
	 */
	readonly timeoutMs?: number;
	/** The run's limit on time without output, in ms, as `timeoutMs`. */
	readonly stallTimeoutMs?: number;
	/** Default extra attempts after a retryable failure. Default 2. */
	readonly retries?: number;
	/** Spending caps of the run, and per-task reservations. */
	readonly budget?: BudgetLimits;
	/** Tasks a planner adds wait for approval before they start. */
	readonly approvePlan?: boolean;
	/** `false`: the tasks' prompts go without the project's knowledge (`.crew/knowledge.md`). */
	readonly knowledge?: boolean;
	/** `false`: a task's later attempt never continues the agent session of the one before. */
	readonly continueSessions?: boolean;
	/** `false`: a worktree run's tasks' changes are not trial-merged while they work. */
	readonly foresight?: boolean;
	/** `worktree` gives every task a git worktree of its own; overrides the team's workspaceMode. */
	readonly workspace?: "shared" | "worktree";
	/** Worktree mode starts even with uncommitted changes to tracked files, which it will not see. */
	readonly allowDirty?: boolean;
	/** No warning when another live run writes the same checkout (see `sharedCheckoutWarning`). */
	readonly allowShared?: boolean;
	/** A command run in each new task worktree before its agent (the user's config only). */
	readonly setup?: { readonly command: string; readonly timeoutMs: number };
	/** A command that must pass after the workflow; while it fails, the workflow runs again. */
	readonly until?: string;
	/** After each pass a judge agent decides whether the goal is achieved (after `until`, when both are given). */
	readonly untilJudged?: boolean;
	/** The judge's agent, by name. Default `goal-judge`. */
	readonly judge?: string;
	/** Passes of the workflow an `until` loop may make. Default 3. */
	readonly maxIterations?: number;
	/** Most tasks at once a project's own team or workflow may ask for (the user's config). */
	readonly concurrencyCap?: number;
	/** Arguments of a workflow script's run, read by `ctx.args()`; checked against its `args` schema. */
	readonly args?: unknown;
	/**
	 * A Redis URL: the run's attempts go to `crew worker` processes through a BullMQ queue there. In a
	 * git repository with a commit, every task then works in a worktree of its own, since a worker
	 * elsewhere brings its changes back as the task's branch.
	 */
	readonly queue?: string;
	/** Where the queue's workers fetch the run's base commit from: a git URL or path. */
	readonly repository?: string;
	/** How conflicts between a worktree run's branches are settled; overrides the team's. Default `auto`. */
	readonly integration?: IntegrationMode;
	/** The run's sandbox level (its flag, else the user's config); absent: the machine's default. See `runSandbox`. */
	readonly sandbox?: SandboxLevel;
	/** Hosts (`host:port`) its confined agents may reach beside their model provider's: the user's config's. */
	readonly sandboxHosts?: readonly string[];
}

export interface Plan {
	readonly goal: string;
	readonly team: string | null;
	readonly workflow: string;
	readonly options: RunOptions;
	readonly tasks: readonly TaskSpec[];
	readonly diagnostics: readonly Diagnostic[];
}
