// Forks of a run: which tasks are reused and which run again, and the fork recorded as a run of its own.

import { cpSync, existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { buildDag } from "../../core/dag.js";
import { CrewError, ErrorCode } from "../../core/errors.js";
import type { ArtifactRecord, RunRecord, TaskRecord } from "../../core/records.js";
import { redactTask } from "../../core/redact.js";
import { TaskStatus } from "../../core/status.js";
import type { TaskSpec } from "../../core/types.js";
import { addUsage } from "../../core/usage.js";
import type { ArtifactFiles } from "../../store/artifact-files.js";
import type { Inheritance } from "../../store/run-forks.js";
import type { RunStore } from "../../store/run-store.js";
import { git, gitRun } from "../../workspace/git.js";
import type { Worktrees } from "../../workspace/worktrees.js";
import { AGENT_WORKFLOW_PREFIX } from "../planning/agent-workflow.js";
import type { Plan, PlanInput } from "../planning/plan-input.js";

/**
 * How a run executes: what runs its agents, how they are confined, what runs before them, and
 * where. A fork or a replay takes these from the user now (config and flags), never from the
 * record it plans from: a record may come from another store, or from a bundle someone edited.
 */
export type ExecutionSettings = Pick<
	PlanInput,
	"runtime" | "sandbox" | "sandboxHosts" | "setup" | "queue" | "repository"
>;

/** What `crew fork` is asked: the run, where to start again, what to change, and how it executes now. */
export interface ForkInput {
	readonly runId: string;
	readonly now: ExecutionSettings;
	/** Tasks or steps to run again, with everything after them; absent: only what changed. */
	readonly from?: readonly string[];
	/** The model of every task that runs again. */
	readonly model?: string;
	readonly team?: string;
	readonly workflow?: string;
	/** New task text by step id. */
	readonly prompts?: Readonly<Record<string, string>>;
}

/** A task the fork runs, and why. */
export interface RunAgain {
	readonly taskId: string;
	readonly why: string;
}

/** What a fork reuses of its run, and what it runs again. */
export interface ForkDecision {
	readonly reused: readonly TaskRecord[];
	readonly rerun: readonly RunAgain[];
}

/**
 * The plan input that plans run `run` again: its goal, workflow (its file, as planned; by name for
 * a run this store did not make) and team, and its options but how it executes, with the fork's
 * changes and the user's execution settings now.
 */
export function forkPlanInput(run: RunRecord, input: ForkInput, what = "crew fork"): PlanInput {
	if (run.options.script) {
		throw new CrewError(
			ErrorCode.InvalidInput,
			`run ${run.id} is a workflow script's run: ${what} takes runs of markdown workflows`,
		);
	}
	const o = run.options;
	// A run's workflow file, read again as it is now; a run of one agent has its agent's file there,
	// and is planned again by the workflow's name (`agent:<name>`).
	const ownWorkflow = run.importedAt === null && !run.workflow.startsWith(AGENT_WORKFLOW_PREFIX);
	const recorded = ownWorkflow ? o.source?.file : undefined;
	const workflow = input.workflow ?? recorded ?? run.workflow;
	const team = input.team ?? run.team ?? undefined;
	return {
		goal: run.goal,
		workflow,
		...(team !== undefined ? { team } : {}),
		...input.now,
		...(input.model !== undefined ? { model: input.model } : {}),
		concurrency: o.concurrency,
		failure: o.failure,
		retries: o.retries,
		...(o.timeoutMs !== undefined ? { timeoutMs: o.timeoutMs } : {}),
		...(o.stallTimeoutMs !== undefined ? { stallTimeoutMs: o.stallTimeoutMs } : {}),
		...(o.budget !== undefined ? { budget: o.budget } : {}),
		...(o.approvePlan !== undefined ? { approvePlan: o.approvePlan } : {}),
		...(o.knowledge === false ? { knowledge: false } : {}),
		...(o.workspace !== undefined ? { workspace: o.workspace } : {}),
		...(o.allowDirty !== undefined ? { allowDirty: o.allowDirty } : {}),
		...(o.integration !== undefined ? { integration: o.integration.mode } : {}),
	};
}

/**
 * Which tasks of the fork's plan take their outcome from `run`'s tasks and which run again. A task
 * is reused when the run completed a task of its id with the same spec (its model aside: a fork
 * keeps each reused task's model, and `--model` sets that of the tasks that run), every task it
 * depends on is reused, and it is not one `from` names nor after one. The tasks that run keep their
 * model in the run unless the fork gives one.
 */
export function decideFork(
	plan: Plan,
	run: {
		readonly record: RunRecord;
		readonly tasks: readonly TaskRecord[];
		readonly specs: readonly TaskSpec[];
		/** Tasks whose work was on a branch that is gone since: they run again. */
		readonly lost: ReadonlyMap<string, string>;
	},
	input: ForkInput,
): { readonly decision: ForkDecision; readonly plan: Plan } {
	const runId = run.record.id;
	const added = run.specs.filter((s) => s.expand || s.until);
	if (added.length > 0) {
		throw new CrewError(
			ErrorCode.InvalidInput,
			`run ${runId} added tasks as it ran (${added.map((s) => s.id).join(", ")}: a planner's plan or --until passes): crew fork does not fork such runs`,
		);
	}
	if (input.model !== undefined && (input.from ?? []).length === 0) {
		throw new CrewError(
			ErrorCode.InvalidInput,
			"--model sets the model of the tasks that run again: name them with --from <task|step>",
		);
	}
	const tasks = withPrompts(plan.tasks, input.prompts ?? {}, plan.goal);
	const named = namedTasks(tasks, input.from ?? []);
	const after = downstream(tasks, named);
	const before = new Map(run.tasks.map((t) => [t.id, t]));
	const specs = new Map(run.specs.map((s) => [s.id, s]));
	const reused = new Set<string>();
	const rerun: RunAgain[] = [];
	for (const task of topological(tasks)) {
		const was = before.get(task.id);
		const lost = run.lost.get(task.id);
		const why = againBecause(task, { runId, named, after, reused, was, spec: specs.get(task.id), lost });
		if (why === undefined) reused.add(task.id);
		else rerun.push({ taskId: task.id, why });
	}
	const keep = (t: TaskSpec): TaskSpec => {
		const was = specs.get(t.id);
		if (reused.has(t.id) && was) return was;
		return input.model === undefined && was ? { ...t, agent: { ...t.agent, ...modelOf(was) } } : t;
	};
	return {
		plan: { ...plan, tasks: tasks.map(keep) },
		decision: { reused: run.tasks.filter((t) => reused.has(t.id)), rerun },
	};
}

function againBecause(
	task: TaskSpec,
	c: {
		runId: string;
		named: ReadonlySet<string>;
		after: ReadonlyMap<string, string>;
		reused: ReadonlySet<string>;
		was: TaskRecord | undefined;
		spec: TaskSpec | undefined;
		lost: string | undefined;
	},
): string | undefined {
	if (c.named.has(task.id)) return "named by --from";
	const cause = c.after.get(task.id);
	if (cause !== undefined) return `after ${cause}, which runs again`;
	if (!c.was || !c.spec) return `run ${c.runId} has no task ${task.id}`;
	if (c.was.status !== TaskStatus.Completed) return `it ended ${c.was.status} in run ${c.runId}`;
	if (!sameSpec(task, c.spec)) return `its step changed since run ${c.runId}`;
	if (c.lost !== undefined) return `its branch ${c.lost} is gone`;
	const rerunDep = task.dependsOn.find((d) => !c.reused.has(d));
	if (rerunDep !== undefined) return `after ${rerunDep}, which runs again`;
	return undefined;
}

/** Whether two specs ask the same of their agent, models aside. */
function sameSpec(a: TaskSpec, b: TaskSpec): boolean {
	const bare = (t: TaskSpec) => {
		const { model: _m, thinking: _t, fallbackModels: _f, ...agent } = t.agent;
		return JSON.stringify({ ...redactTask(t), agent: { ...agent, source: agent.source?.file ?? null } });
	};
	return bare(a) === bare(b);
}

/** The model settings of a task's agent: what a task that runs again keeps of its run. */
export function modelOf(spec: TaskSpec): Partial<TaskSpec["agent"]> {
	const { model, thinking, fallbackModels } = spec.agent;
	return {
		...(model !== undefined ? { model } : {}),
		...(thinking !== undefined ? { thinking } : {}),
		...(fallbackModels !== undefined ? { fallbackModels } : {}),
	};
}

/** The tasks with `--prompt`'s new texts, each step's `{goal}` filled in as the planner does. */
function withPrompts(tasks: readonly TaskSpec[], prompts: Readonly<Record<string, string>>, goal: string): TaskSpec[] {
	const steps = new Set(tasks.map((t) => t.stepId));
	const unknown = Object.keys(prompts).filter((s) => !steps.has(s));
	if (unknown.length > 0) {
		throw new CrewError(
			ErrorCode.NotFound,
			`--prompt names no step of the workflow: ${unknown.join(", ")}; its steps: ${[...steps].join(", ")}`,
		);
	}
	return tasks.map((t) => {
		const text = prompts[t.stepId];
		return text === undefined ? t : { ...t, text: text.replaceAll("{goal}", goal) };
	});
}

/** The ids of the tasks `refs` name, by task or step id, or an error naming the one that names none. */
function namedTasks(tasks: readonly TaskSpec[], refs: readonly string[]): Set<string> {
	const named = new Set<string>();
	for (const ref of refs) {
		const matched = tasks.filter((t) => t.id === ref || t.stepId === ref);
		if (matched.length === 0) {
			throw new CrewError(
				ErrorCode.NotFound,
				`--from ${ref} names no task or step of the fork's plan; its tasks: ${tasks.map((t) => t.id).join(", ")}`,
			);
		}
		for (const t of matched) named.add(t.id);
	}
	return named;
}

/** Every task after one of `named`, each with the named task it comes after. */
function downstream(tasks: readonly TaskSpec[], named: ReadonlySet<string>): Map<string, string> {
	const after = new Map<string, string>();
	for (const task of topological(tasks)) {
		if (named.has(task.id)) continue;
		for (const d of task.dependsOn) {
			const cause = named.has(d) ? d : after.get(d);
			if (cause !== undefined) {
				after.set(task.id, cause);
				break;
			}
		}
	}
	return after;
}

/** The tasks in an order where each comes after those it depends on. */
function topological(tasks: readonly TaskSpec[]): TaskSpec[] {
	return buildDag(tasks, "the fork's plan").order.map((i) => tasks[i] as TaskSpec);
}

/** A fork planned: its plan, what it reuses of its run and runs again. */
export interface PlannedFork {
	readonly plan: Plan;
	readonly decision: ForkDecision;
	readonly source: RunRecord;
}

/** What a fork of run `source` would reuse and run again (see `decideFork`), and the plan it would run. */
export async function planFork(
	deps: Omit<ForkRecordDeps, "files"> & { readonly plan: (input: PlanInput) => Promise<Plan> },
	source: RunRecord,
	input: ForkInput,
): Promise<PlannedFork> {
	const specs = deps.store.queries.taskSpecs(source.id);
	const lost = await lostBranches(deps.root, deps.worktrees, source.id, specs);
	const run = { record: source, tasks: deps.store.queries.listTasks(source.id), specs, lost };
	return { ...decideFork(await deps.plan(forkPlanInput(source, input)), run, input), source };
}

/** The tasks of run `runId` whose work was on a branch that is gone (pruned), each with its branch. */
async function lostBranches(
	root: string,
	worktrees: Worktrees,
	runId: string,
	specs: readonly TaskSpec[],
): Promise<Map<string, string>> {
	const lost = new Map<string, string>();
	for (const spec of specs.filter((s) => s.worktree)) {
		const branch = worktrees.branchOf(runId, spec.id);
		const found = await gitRun(root, ["rev-parse", "--verify", "--quiet", `refs/heads/${branch}`]);
		if (found.code !== 0) lost.set(spec.id, branch);
	}
	return lost;
}

export interface ForkRecordDeps {
	readonly store: RunStore;
	readonly files: ArtifactFiles;
	readonly worktrees: Worktrees;
	readonly root: string;
}

/** What makes a fork's run: the run recorded under a given id, inside the store's transaction. */
export interface ForkCreateDeps extends ForkRecordDeps {
	readonly newId: () => string;
	readonly create: (plan: Plan, base: string | undefined, id: string) => void;
}

/**
 * Makes fork `fork` a run and returns its id. The outcomes of the tasks it reuses come first:
 * their branches (worktree mode) made again under its name and their files copied into its
 * folder; then the run and those tasks' completed records, usage marked as spent in the run they
 * came from, are one transaction. A failure leaves no run, and takes the branches and files away.
 */
/** The file in a fork's run folder while the fork is made, naming the run it is made from. */
export const UNFINISHED_FORK = "fork.unfinished";

export async function createFork(deps: ForkCreateDeps, fork: PlannedFork): Promise<string> {
	const { store, files, worktrees, root } = deps;
	const { source, decision } = fork;
	const id = deps.newId();
	const made: string[] = [];
	// Until the store records the fork, its folder says whose it is: what a kill -9 leaves is known
	// for what it is, and `crew reconcile --fix` takes it away (see `reconcile`).
	mkdirSync(files.runDir(id), { recursive: true });
	writeFileSync(join(files.runDir(id), UNFINISHED_FORK), `${source.id}\n`);
	try {
		const worked = new Set(
			store.queries
				.taskSpecs(source.id)
				.filter((s) => s.worktree)
				.map((s) => s.id),
		);
		for (const task of decision.reused.filter((t) => worked.has(t.id))) {
			const branch = worktrees.branchOf(id, task.id);
			await git(root, ["branch", branch, worktrees.branchOf(source.id, task.id)]);
			made.push(branch);
		}
		const artifacts = store.queries.artifacts(source.id);
		const taken = decision.reused.map((task) => {
			const own = artifacts.filter((a) => a.taskId === task.id);
			// Its folder (logs beside its artifacts), and every file it made, shared outputs too.
			for (const path of [join("tasks", task.id), ...own.map((a) => a.path)]) {
				const from = join(files.runDir(source.id), path);
				if (existsSync(from)) cpSync(from, join(files.runDir(id), path), { recursive: true });
			}
			return inheritance(store, source, task, own);
		});
		store.batch(() => {
			deps.create(fork.plan, source.options.baseCommit, id);
			store.forks.record(id, source.id, taken);
		});
		rmSync(join(files.runDir(id), UNFINISHED_FORK), { force: true });
		return id;
	} catch (error) {
		for (const branch of made) await gitRun(root, ["branch", "-D", branch]);
		rmSync(files.runDir(id), { recursive: true, force: true });
		throw error;
	}
}

function inheritance(
	store: RunStore,
	source: RunRecord,
	task: TaskRecord,
	artifacts: readonly ArtifactRecord[],
): Inheritance {
	// What the task spent counts what the runs it delegated spent: they are part of its outcome.
	const delegated = store.queries.delegations.children(source.id).filter((child) => child.taskId === task.id);
	const usage = delegated.reduce((sum, child) => addUsage(sum, child.usage), task.usage);
	return {
		taskId: task.id,
		// A task a fork of a fork reuses was spent in the first run.
		outcome: task.inherited ?? { runId: source.id, taskId: task.id, usage },
		resultChars: task.resultChars,
		startedAt: task.startedAt,
		finishedAt: task.finishedAt,
		excerpt: store.queries.resultExcerpt(source.id, task.id).excerpt,
		evidence: store.queries.evidenceOf(source.id, task.id) ?? null,
		artifacts,
	};
}
