// The specs a run is planned into: agents, tasks, run options, scripts and integration records.

import type { AgentSetup } from "./agent-setup.js";
import type { BudgetLimits } from "./budget.js";
import type { ResourceSource } from "./resource-source.js";
import type { RunSandbox, SandboxLevel } from "./sandbox-level.js";
import type { TaskSpecs } from "./spec-contract.js";
import type { ThinkingLevel } from "./thinking.js";
import type { VerifySpec } from "./verdict.js";

export const FailurePolicy = {
	/** Running tasks finish and are saved, nothing new starts, the rest are skipped, the run fails. */
	Drain: "drain",
	/** Independent branches go on; only dependents of the failed task are skipped. */
	Continue: "continue",
	/** Running tasks are cancelled at once. */
	Abort: "abort",
} as const;
export type FailurePolicy = (typeof FailurePolicy)[keyof typeof FailurePolicy];

/**
 * What an agent CLI may do unasked: `workspace` edits files and runs commands in its task's
 * workspace; `read-only` changes nothing; `full` is unrestricted.
 */
export const PERMISSIONS = ["workspace", "read-only", "full"] as const;
export type Permissions = (typeof PERMISSIONS)[number];

/** An agent as resolved when the run was planned; the run keeps it, so resume reads no files. */
export interface AgentSpec {
	readonly name: string;
	/** Its agent file; absent for an agent no file defines (recorded by an older crew, or made by crew). */
	readonly source?: ResourceSource;
	readonly runtime: string;
	readonly command?: string;
	readonly model?: string;
	/** Models tried in order after `model` fails with a rate limit, overload or network error. */
	readonly fallbackModels?: readonly string[];
	/** How much the model reasons; absent: the CLI's own default. */
	readonly thinking?: ThinkingLevel;
	readonly tools?: readonly string[];
	readonly permissions?: Permissions;
	/** The sandbox its tasks ask for; a step's wins over it. See `taskSandbox`. */
	readonly sandbox?: SandboxLevel;
	/** What one task of this agent is expected to spend at most, in tokens: its budget reservation. */
	readonly maxTokens?: number;
	/** Wall-clock limit of one attempt of this agent's tasks, in ms; 0: none. See `attemptLimits`. */
	readonly timeoutMs?: number;
	/** Limit on time without output of this agent's attempts, in ms; 0: none. */
	readonly stallTimeoutMs?: number;
	/** pi-crew's keys for its CLI's system prompt, context, skills, extensions and turns. */
	readonly setup?: AgentSetup;
	/** `false`: its tasks' later attempts start afresh rather than continue the session of the attempt before. */
	readonly continue?: false;
	readonly systemPrompt: string;
}

export interface TaskSpec {
	readonly id: string;
	readonly stepId: string;
	readonly role: string;
	readonly agent: AgentSpec;
	/** The task text with the run's goal filled in. */
	readonly text: string;
	readonly dependsOn: readonly string[];
	/** Wall-clock limit of one attempt, in ms; 0: none. The step's own, above its agent's: see `attemptLimits`. */
	readonly timeoutMs?: number;
	/** Limit on time without any output from the worker, in ms; 0: none. */
	readonly stallTimeoutMs?: number;
	/** How long a question its agent asks may wait for an answer, in ms; 0: no limit. */
	readonly askTimeoutMs?: number;
	/** `false`: its agent gets no `ask` tool. */
	readonly ask?: false;
	/** `false`: a later attempt starts afresh rather than continue the session of the attempt before. */
	readonly continue?: false;
	/** Extra attempts after a retryable failure. */
	readonly retries?: number;
	/** How the task's work is checked before it may complete. */
	/** The specs its agent is held to, frozen when its run was planned. */
	readonly specs?: TaskSpecs;
	readonly verify?: VerifySpec;
	/** The task waits for a person's approval before it starts. */
	readonly approval?: boolean;
	/** A planner: its result's plan adds tasks to the run, run by these roles' agents. */
	readonly expand?: ExpandSpec;
	/** The run's `--until` check after iteration `iteration` of the workflow. */
	readonly until?: UntilSpec;
	/** Which pass of an `--until` loop the task belongs to; 1 when absent. */
	readonly iteration?: number;
	/** The planner whose plan added the task. */
	readonly plannedBy?: string;
	/** The task works in a git worktree of its own. */
	readonly worktree?: boolean;
	/** Paths the task writes (files or folders); in a shared checkout, overlapping tasks take turns. */
	readonly writes?: readonly string[];
	/** The run's shared file its answer is (`shared/<output>`): an attempt without an answer fails. */
	readonly output?: string;
	/**
	 * `attention`: an attempt that ends without a usable answer (none at all, or no verdict where
	 * one is needed) leaves the task `needs_attention` for a person, and its dependents run.
	 */
	readonly onMissing?: "attention";
	/** Shared files of earlier steps its prompt carries, by name (`output:`, or `<task>.md` for a task's result). */
	readonly reads?: readonly string[];
	/** The sandbox its step asks for. See `taskSandbox`. */
	readonly sandbox?: SandboxLevel;
	/** The workflow script's call that made the task. */
	readonly call?: ScriptCall;
	/** A resolution task: it merges a conflicting task's branch into the run's integration. */
	readonly integration?: ResolutionSpec;
}

/**
 * The conflict a resolution task resolves, fixed when the task joins the run: merging `task`'s
 * branch at commit `head` onto an integration whose tree was `intoTree` conflicted in `files`.
 * The same conflict met again (the same tree, the same head) takes the task's resolution.
 */
export interface ResolutionSpec {
	readonly task: string;
	readonly branch: string;
	readonly head: string;
	readonly intoTree: string;
	readonly files: readonly string[];
}

/** How integrating a worktree run's task branches into `crew/<runId>` went, as every view shows it. */
export const IntegrationStatus = {
	/** Every completed task's branch is merged. */
	Merged: "merged",
	/** Every completed task's branch is merged, with conflicts resolved by resolution tasks. */
	Resolved: "resolved",
	/** A branch conflicts and was left for a person: it, and the branches that hold its work, are missing. */
	Conflict: "conflict",
	/** git failed for another reason; see `error`. */
	Failed: "failed",
	/** Not integrated: the run was cancelled. */
	Skipped: "skipped",
} as const;
export type IntegrationStatus = (typeof IntegrationStatus)[keyof typeof IntegrationStatus];

export interface IntegrationRecord {
	readonly status: IntegrationStatus;
	/** `crew/<runId>`. */
	readonly branch: string;
	/** Where the branch is, when it was made. */
	readonly commit?: string;
	/** Completed tasks whose work is on the branch, in the order merged. */
	readonly merged: readonly string[];
	/**
	 * Tasks not merged themselves (one that needs attention, say) whose work is on the branch all
	 * the same, through the merged tasks `by` that depended on them; absent when there is none.
	 */
	readonly carried?: readonly { readonly task: string; readonly by: readonly string[] }[];
	/** Completed tasks whose work is not on the branch. */
	readonly missing: readonly string[];
	/** Merges left for a person: each task's branch and the files it conflicts in. */
	readonly conflicts: readonly { readonly task: string; readonly branch: string; readonly files: readonly string[] }[];
	/** The resolution tasks whose work is on the branch. */
	readonly resolvedBy: readonly string[];
	readonly error?: string;
	/** Why the branches were merged in another order than dependency order; absent when they were not. */
	readonly order?: MergeOrder;
}

/**
 * An order to merge a run's branches in, chosen by trial merges: its conflicting merges, against
 * those of dependency order, and how many trial merges the choice made.
 */
export interface MergeOrder {
	readonly chosen: readonly string[];
	readonly conflicts: number;
	readonly dependencyOrder: readonly string[];
	readonly dependencyOrderConflicts: number;
	readonly tried: number;
}

/** How conflicts between a worktree run's branches are settled: by an integrator agent, or by a person. */
export const IntegrationMode = { Auto: "auto", Manual: "manual" } as const;
export type IntegrationMode = (typeof IntegrationMode)[keyof typeof IntegrationMode];

/**
 * A task's place among a workflow script's calls. Replaying the script makes the same calls in the
 * same places; a call whose inputs hash differently from the recorded one is a divergence.
 */
export interface ScriptCall {
	/** The call's position: its number in its scope, after the positions of the enclosing branches (`2.1.3`). */
	readonly key: string;
	/** Hash of what the call asked for: role, prompt, model, check, schema and limits. */
	readonly fingerprint: string;
	/** The script's phase when it made the call. */
	readonly phase?: string;
	/** The result must be JSON matching a schema; the task is retried while it is not. */
	readonly json?: boolean;
	/** The tasks the script had awaited before this call, in its branch: the edges views draw. */
	readonly after?: readonly string[];
}

/** A run whose tasks a TypeScript workflow script makes as it runs. */
export interface ScriptSpec {
	/** The script file, absolute. */
	readonly file: string;
	/** Where the file comes from: a project's own script runs only when the project is trusted. */
	readonly layer: "builtin" | "user" | "project";
	/** The file's sha256 when the run was planned. */
	readonly sha256: string;
	/** The run's arguments as given; the script's `args` schema checks them at every start. */
	readonly args?: unknown;
	/** The agent `ctx.agent({ role })` runs for each role, resolved when the run was planned. */
	readonly roles: Readonly<Record<string, AgentSpec>>;
	/** The run's own model (`--model`): it wins over a call's `model`, as over a step's. */
	readonly model?: string;
}

/** The check after a pass of the workflow: a command that must pass, a judge agent's verdict, or both in that order. */
export interface UntilSpec {
	readonly command?: string;
	/** The task's agent judges the goal against the pass's results and the change so far (`--until-judged`). */
	readonly judge?: true;
	readonly iteration: number;
	readonly maxIterations: number;
}

export interface ExpandSpec {
	readonly roles: Readonly<Record<string, AgentSpec>>;
	readonly maxPhaseTasks: number;
	readonly maxTasks: number;
}

export interface RunOptions {
	readonly concurrency: number;
	readonly failure: FailurePolicy;
	/** Per-role limits on tasks running at once. */
	readonly roleLimits: Readonly<Record<string, number>>;
	/** Runtime that overrides every agent's own, e.g. `dry-run`. */
	readonly runtime?: string;
	/** The run's limits on each attempt, in ms (its flags, else the config's); 0: none. See `attemptLimits`. */
	readonly timeoutMs?: number;
	readonly stallTimeoutMs?: number;
	readonly retries: number;
	/** Spending caps; a run without them spends what it needs. */
	readonly budget?: BudgetLimits;
	/** Tasks a planner adds wait for approval before the first of them starts. */
	readonly approvePlan?: boolean;
	/** `false`: its tasks' prompts go without the project's knowledge (`.crew/knowledge.md`). */
	readonly knowledge?: false;
	/** `false`: a task's later attempt never continues the agent session of the one before. */
	readonly continueSessions?: false;
	/** `false`: no conflict foresight while a worktree run's tasks work (see `RunForesight`). */
	readonly foresight?: false;
	/** `worktree`: every task works in a git worktree of its own. Default `shared`. */
	readonly workspace?: "shared" | "worktree";
	/** The commit worktrees start from: the repository's HEAD when the run was created. */
	readonly baseCommit?: string;
	/** Worktree mode may start although the repository has uncommitted changes to tracked files. */
	readonly allowDirty?: boolean;
	/** A command run in each new task worktree before its agent, from the user's config. */
	readonly setup?: { readonly command: string; readonly timeoutMs: number };
	/** Working directory of the tasks: the repository root. */
	readonly cwd: string;
	/** The markdown workflow's file: its steps' checks come from it. */
	readonly source?: ResourceSource;
	/** The run's tasks come from this workflow script as it runs. */
	readonly script?: ScriptSpec;
	/** A Redis URL: attempts go through a BullMQ queue to `crew worker` processes instead of running here. */
	readonly queue?: string;
	/** Where a queue's workers fetch the base commit from: a git URL or path. Default: the repository's own path. */
	readonly repository?: string;
	/**
	 * How conflicts met when integrating the run's branches are settled, and the agent that
	 * resolves them in `auto` mode. A run without it (recorded by an older crew) leaves them.
	 */
	readonly integration?: { readonly mode: IntegrationMode; readonly agent?: AgentSpec };
	/**
	 * Present when an agent asked for the run (through crew's MCP tools or pi extension) rather
	 * than a person: a command it gives, such as `until`, counts as the repository's own (see
	 * `runReach`). `session` is the caller's session id, by which it finds its runs again.
	 */
	readonly caller?: { readonly session?: string };
	/** `api`: a person started the run over `crew serve`'s HTTP API (the dashboard's form, say) rather than the CLI. */
	readonly startedOver?: "api";
	/**
	 * Present on a run a schedule started: the schedule's name and the slot (ms since 1970) it
	 * started for; `missed`, the slots before it that passed while no scheduler ran; `now`, started
	 * by `crew schedule run` outside the slots.
	 */
	readonly schedule?: { readonly name: string; readonly slot: number; readonly missed?: number; readonly now?: true };
	/** How the run's processes are confined; absent on a run recorded by an older crew: off. */
	readonly sandbox?: RunSandbox;
	/**
	 * Present on a run an agent inside another run delegated: its depth in crew runs (its workers
	 * are one deeper), `readOnly` when its tasks may change nothing in their workspace, and `sandbox`,
	 * the delegating attempt's level, which no task of it is confined less than.
	 */
	readonly nested?: { readonly depth: number; readonly readOnly?: true; readonly sandbox?: SandboxLevel };
	/**
	 * A replay (`crew replay`): each task is answered from run `of`, no agent started; a task whose
	 * prompt differs from the recorded one fails, or with `live` runs for real. One that `failures`
	 * names (by task id, how run `of` ended it) is answered with a failure. A task run `of` took from
	 * another run as a fork has its prompt as that run made it: `madeIn` names that run, by task id.
	 * `attempts` holds, by task id, the attempts run `of` made of each task it started or left
	 * unstarted (not those a fork took as they were): the replay makes the same attempts, in the
	 * order the run made them.
	 */
	readonly replay?: {
		readonly of: string;
		readonly live: boolean;
		readonly failures?: Readonly<Record<string, string>>;
		readonly madeIn?: Readonly<Record<string, string>>;
		readonly attempts?: Readonly<Record<string, readonly ReplayedAttempt[]>>;
		/** Why run `of` was cancelled, when it was: the replay is cancelled where it was. */
		readonly cancelled?: string;
	};
}

/** What a run's options keep of who asked for it: `caller` for an agent, `startedOver` for a person over the API. */
export type RunOrigin = Pick<RunOptions, "caller" | "startedOver">;

/** An attempt of a replayed run, as its replay makes it again. */
export interface ReplayedAttempt {
	readonly status: string;
	readonly error: string | null;
	/** The runner that made it: the next attempt of another runner came of a resume, not a retry. */
	readonly epoch: number;
	/** When it started and ended, in milliseconds since 1970; null when it never ended. */
	readonly startedAt: number;
	readonly finishedAt: number | null;
	/**
	 * How the run queued its task again after it: to retry it, or as its runner was resumed (its
	 * retries then count afresh); absent when it did not.
	 */
	readonly requeued?: "retry" | "resume";
}
