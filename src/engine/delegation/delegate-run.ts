// A run delegated by an agent inside another: planned under its parent's limits, recorded under it, run here.

import type { Project } from "../../config/project.js";
import { loadSettings } from "../../config/settings.js";
import type { BudgetLimits } from "../../core/budget.js";
import { type DelegationAnswer, type DelegationAsk, delegationKey } from "../../core/delegation.js";
import { type NestingSettings, nestingDepth } from "../../core/nesting.js";
import type { ParentLink, RunRecord } from "../../core/records.js";
import type { SandboxLevel } from "../../core/sandbox-level.js";
import { isTerminalRun, RunStatus } from "../../core/status.js";
import { addUsage, type Usage } from "../../core/usage.js";
import type { ArtifactFiles } from "../../store/artifact-files.js";
import type { RunStore } from "../../store/run-store.js";
import type { ExecuteOptions } from "../options.js";
import { agentWorkflowName } from "../planning/agent-workflow.js";
import type { Plan, PlanInput } from "../planning/plan-input.js";

/** One delegation as the parent's runner hands it on: who asks, what, and within which limits. */
export interface ChildAsk {
	readonly parent: ParentLink;
	readonly parentRun: RunRecord;
	readonly ask: DelegationAsk;
	/** What the parent run has left, which the child's caps may not exceed; absent: no cap. */
	readonly left: Pick<BudgetLimits, "tokens" | "usd">;
	/** Where the delegating attempt works: the child's tasks work there too. */
	readonly cwd: string;
	/** The child run's depth: its workers run one deeper. */
	readonly depth: number;
	/** The child's tasks change nothing in their workspace (a run nested beyond depth 1). */
	readonly readOnly: boolean;
	/** The delegating attempt's sandbox level: no task of the child's is confined less. */
	readonly sandbox: SandboxLevel;
	/** Aborted when the delegating agent, its attempt or its run stops: the child is cancelled. */
	readonly signal: AbortSignal;
	/** Hears the child's id once it is recorded. */
	readonly started: (runId: string) => void;
	/** Hears each token the child (or a run below it) spends, as it is recorded. */
	readonly onSpend: (usage: Usage) => void;
}

/** Carries out one delegation to its end; see `delegateRun`. */
export type Delegate = (child: ChildAsk) => Promise<DelegationAnswer>;

/** How a run's agents delegate runs of their own. */
export interface RunDelegation {
	readonly delegate: Delegate;
	/** The user's limits; without them no agent delegates. */
	readonly nesting: NestingSettings | undefined;
	/** The depth of a run that was not delegated (a delegated one's record says its own). */
	readonly depth: number;
}

/** What carrying out a delegation takes of the engine: its planner, its store and a runner. */
export interface DelegateDeps {
	readonly store: RunStore;
	readonly files: ArtifactFiles;
	plan(input: PlanInput): Promise<Plan>;
	create(plan: Plan): string;
	execute(runId: string, options: ExecuteOptions): Promise<RunStatus>;
}

/**
 * How the agents of a project's runs delegate: through `deps`, within the user's `nesting`, from
 * this process's depth in crew runs.
 */
export function runDelegation(project: Project, deps: DelegateDeps): RunDelegation {
	return {
		delegate: (child) => delegateRun(deps, child),
		nesting: loadSettings(project).nesting,
		depth: nestingDepth(process.env),
	};
}

/**
 * Carries out `child` as a run in this process, recorded under its parent attempt: a completed run
 * an earlier attempt of the same task delegated with the same ask is answered again, not run
 * again; an unfinished one (its runner died with the parent's) is resumed; else a new run is
 * planned with the parent's sandbox, limits and setup, within what its budget has left.
 */
export async function delegateRun(deps: DelegateDeps, child: ChildAsk): Promise<DelegationAnswer> {
	const { parent, ask } = child;
	const key = delegationKey(ask);
	const earlier = deps.store.queries.delegations.find(parent.runId, parent.taskId, key);
	const found = earlier === undefined ? undefined : deps.store.queries.getRun(earlier);
	if (found?.status === RunStatus.Completed) return answerOf(deps, found.id, true);
	let runId: string;
	if (found && !isTerminalRun(found.status)) runId = found.id;
	else {
		const plan = await deps.plan(childInput(child));
		const nested = {
			depth: child.depth,
			...(child.readOnly ? { readOnly: true as const } : {}),
			sandbox: child.sandbox,
		};
		const options = { ...plan.options, cwd: child.cwd, nested };
		runId = deps.create({ ...plan, options });
		deps.store.recordDelegation(runId, parent, key);
	}
	child.started(runId);
	child.signal.throwIfAborted();
	await deps.execute(runId, { signal: child.signal, onSpend: child.onSpend });
	return answerOf(deps, runId, false);
}

/** The plan's input of a delegated run: the ask, in the parent run's sandbox, with its limits and setup. */
function childInput({ ask, parentRun, left }: ChildAsk): PlanInput {
	const { options } = parentRun;
	const budget = {
		...capped(ask.budgetTokens, left.tokens, "tokens"),
		...capped(undefined, left.usd, "usd"),
	};
	return {
		goal: ask.task,
		...(ask.agent !== undefined ? { workflow: agentWorkflowName(ask.agent) } : {}),
		...(ask.workflow !== undefined ? { workflow: ask.workflow } : {}),
		...(ask.team !== undefined ? { team: ask.team } : {}),
		...(ask.model !== undefined ? { model: ask.model } : {}),
		...(ask.concurrency !== undefined ? { concurrency: ask.concurrency } : {}),
		...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
		...(options.stallTimeoutMs !== undefined ? { stallTimeoutMs: options.stallTimeoutMs } : {}),
		...(options.runtime !== undefined ? { runtime: options.runtime } : {}),
		...(options.setup ? { setup: options.setup } : {}),
		...(options.sandbox ? { sandbox: options.sandbox.level, sandboxHosts: options.sandbox.hosts ?? [] } : {}),
		// Its tasks work in the parent's checkout, alongside the task that waits for them.
		allowShared: true,
		...(Object.keys(budget).length > 0 ? { budget } : {}),
	};
}

/** A cap of the child's: the smaller of what it asks and what its parent has left. */
function capped(asked: number | undefined, left: number | undefined, name: "tokens" | "usd"): Partial<BudgetLimits> {
	const cap = asked === undefined ? left : left === undefined ? asked : Math.min(asked, left);
	return cap === undefined ? {} : { [name]: cap };
}

/** How run `runId` ended, with its last task's result and what it and the runs below it spent. */
function answerOf(deps: DelegateDeps, runId: string, reused: boolean): DelegationAnswer {
	const { queries } = deps.store;
	const run = queries.getRun(runId);
	const last = queries.listTasks(runId).at(-1);
	const name = last ? `tasks/${last.id}/result.md` : undefined;
	const text = name && queries.artifact(runId, name) ? deps.files.read(runId, name) : "";
	const error = run.error ?? last?.error ?? undefined;
	const usage = addUsage(queries.usage(runId), queries.delegations.nested(runId));
	return { runId, status: run.status, text, ...(error ? { error } : {}), usage, reused };
}
