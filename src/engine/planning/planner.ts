// The planner: turns a goal, a workflow and a team into a run's recorded options and tasks.

import { readKnowledge } from "../../config/knowledge-file.js";
import { projectAt } from "../../config/project.js";
import { budgetProblem } from "../../core/budget.js";
import { buildDag } from "../../core/dag.js";
import { MAX_DURATION_MS } from "../../core/duration.js";
import { CrewError, ErrorCode, errorMessage, isCrewError } from "../../core/errors.js";
import { fillGoal } from "../../core/prompt.js";
import type { RunSandbox } from "../../core/sandbox-level.js";
import { specPrompt } from "../../core/spec-contract.js";
import { thinkingProblem } from "../../core/thinking.js";
import { type AgentSpec, IntegrationMode, type RunOptions, type TaskSpec } from "../../core/types.js";
import { withoutCredentials } from "../../core/url-credentials.js";
import { type Diagnostic, list } from "../../resources/frontmatter.js";
import type { Loaded, ResourceLoader } from "../../resources/resource-loader.js";
import type { TeamResource } from "../../resources/team-file.js";
import type { WorkflowResource, WorkflowStep } from "../../resources/workflow-file.js";
import { redisAddress } from "../../runtimes/remote/redis-url.js";
import type { RuntimeRegistry } from "../../runtimes/runtime-registry.js";
import { hasCommit } from "../../workspace/worktrees.js";
import { untilId, untilTask } from "../goals/until-task.js";
import { type PlanProblem, type Resolver, resolveAgent } from "./agent-resolver.js";
import { agentWorkflow } from "./agent-workflow.js";
import type { Plan, PlanInput } from "./plan-input.js";
import { runSandbox } from "./sandbox.js";
import { planScript } from "./script-plan.js";
import { setupWarnings } from "./setup-check.js";
import { stepSpecs } from "./step-specs.js";
import { thinkingWarnings } from "./thinking-check.js";
import { chooseWorkflow } from "./workflow-choice.js";

/** pi-crew's name for a planner step's output: such a step's plan expands the run. */
const ADAPTIVE_PLAN_OUTPUT = "adaptive-plan.json";
/** Tasks one phase of an adaptive plan may have (pi-crew's cap), and the whole plan. */
const MAX_PHASE_TASKS = 12;
const MAX_PLANNED_TASKS = 48;

/** Tasks running at once when neither the command, the team nor the workflow says. */
export const DEFAULT_CONCURRENCY = 4;
const FAILURE_POLICIES: readonly string[] = ["drain", "continue", "abort"];

function invalid(message: string): CrewError {
	return new CrewError(ErrorCode.InvalidInput, message);
}

function checkCount(what: string, value: number | undefined, min: number): void {
	if (value !== undefined && !(Number.isInteger(value) && value >= min)) {
		throw invalid(`invalid ${what} ${JSON.stringify(value)}: expected an integer >= ${min}`);
	}
}

/** A limit in ms: 0 (none) up to a week, as a duration may be. */
function checkLimit(what: string, ms: number | undefined): void {
	if (ms !== undefined && !(Number.isInteger(ms) && ms >= 0 && ms <= MAX_DURATION_MS)) {
		throw invalid(`invalid ${what} ${JSON.stringify(ms)}: expected 0 (no limit) or a number of ms up to a week`);
	}
}

/** A plan, and every problem found making it; a plan with problems must not run. */
export interface Draft {
	readonly plan: Plan;
	readonly problems: readonly PlanProblem[];
}

/**
 * Turns a goal, a workflow and a team into the tasks of a run. Everything the run needs later is
 * resolved here and recorded, so a resumed run does not depend on files that changed since. Every
 * problem of the workflow's files, roles and agents is refused at once, one per line.
 */
export function planRun(
	input: PlanInput,
	context: { loader: ResourceLoader; runtimes: RuntimeRegistry; cwd: string },
): Plan {
	const { plan, problems } = draftPlan(input, context);
	const [first] = problems;
	if (!first) return plan;
	const lines = problems.map(({ diagnostic: d }) =>
		d.line === undefined ? d.message : `${d.file}:${d.line}: ${d.message}`,
	);
	throw new CrewError(first.code, lines.join("\n"));
}

/**
 * The plan `planRun` makes, with the problems of the workflow's steps, the team's roles and the
 * agents they name collected rather than thrown: `crew validate` reports them as `crew run` refuses
 * them. Bad flags and files that do not load are still thrown.
 */
export function draftPlan(
	input: PlanInput,
	context: { loader: ResourceLoader; runtimes: RuntimeRegistry; cwd: string },
): Draft {
	if (typeof input.goal !== "string" || input.goal.trim() === "")
		throw invalid("the goal is empty: say what the run is for");
	checkCount("concurrency", input.concurrency, 1);
	checkCount("retries", input.retries, 0);
	checkLimit("timeout", input.timeoutMs);
	checkLimit("stall timeout", input.stallTimeoutMs);
	for (const [key, value] of Object.entries(input.budget ?? {})) {
		const problem = budgetProblem(key, value);
		if (problem) throw invalid(`invalid budget ${key} ${JSON.stringify(value)}: ${problem}`);
	}
	if (input.failure !== undefined && !FAILURE_POLICIES.includes(input.failure)) {
		throw invalid(`invalid failure policy '${input.failure}': expected drain, continue or abort`);
	}
	if (input.runtime !== undefined) context.runtimes.get(input.runtime);
	if (input.workspace !== undefined && input.workspace !== "shared" && input.workspace !== "worktree") {
		throw invalid(`invalid workspace ${JSON.stringify(input.workspace)}: expected shared or worktree`);
	}
	for (const [what, model] of [
		["model", input.model],
		["default model", input.defaultModel],
	] as const) {
		if (model !== undefined && (typeof model !== "string" || model.trim() === "")) {
			throw invalid(`invalid ${what} ${JSON.stringify(model)}: expected a model name`);
		}
	}
	for (const [what, level] of [
		["", input.thinking],
		["default ", input.defaultThinking],
	] as const) {
		const problem = level === undefined ? undefined : thinkingProblem(level);
		if (problem) throw invalid(`invalid ${what}${problem}`);
	}
	checkIntegration(input.integration);
	checkCount("max iterations", input.maxIterations, 1);
	if (input.until !== undefined && input.until.trim() === "") throw invalid("--until needs a command line");
	if (input.judge !== undefined && !input.untilJudged)
		throw invalid(`--judge ${input.judge} names the agent of --until-judged, which was not given`);
	if (input.untilJudged && input.queue !== undefined)
		throw invalid("--until-judged runs its judge on this machine: it does not go with --queue");
	const { loader } = context;
	const choice = chooseWorkflow(input, loader);
	return planChosen({ ...input, workflow: choice.workflow, ...(choice.team ? { team: choice.team } : {}) }, context);
}

/** Drafts a run's plan once its workflow is known. */
function planChosen(
	input: PlanInput & { readonly workflow: string },
	context: { loader: ResourceLoader; runtimes: RuntimeRegistry; cwd: string },
): Draft {
	const { loader } = context;
	const oneAgent = agentWorkflow(input.workflow, loader);
	if (oneAgent && input.team !== undefined) {
		throw invalid(`workflow ${input.workflow} runs that one agent: it takes no team (got '${input.team}')`);
	}
	const workflow = oneAgent ?? loader.workflow(input.workflow);
	const team = input.team === undefined ? undefined : loader.team(input.team);
	const diagnostics: Diagnostic[] = [...workflow.diagnostics, ...(team?.diagnostics ?? [])];
	const sandbox = runSandbox(
		{ level: input.sandbox, hosts: input.sandboxHosts },
		team,
		context.runtimes.sandbox,
		input.runtime === "dry-run",
		diagnostics,
	);
	const problems: PlanProblem[] = [];
	const resolver: Resolver = {
		team: team?.item,
		input,
		loader,
		runtimes: context.runtimes,
		cache: new Map(),
		diagnostics,
		problems,
		file: workflow.item.file,
	};
	if (workflow.item.script) {
		const plan = planScript(input, {
			workflow,
			team,
			loader,
			options: {
				...runOptions(input, workflow, team, context.cwd, diagnostics, sandbox),
				integration: integrationOf(input, team, resolver),
			},
			diagnostics,
			resolve: (role) => resolveAgent({ id: role, role, dependsOn: [], text: "", fields: {} }, resolver, false),
		});
		return { plan, problems };
	}
	const file = workflow.item.file;
	if (workflow.item.steps.length === 0) {
		problems.push({
			code: ErrorCode.InvalidWorkflow,
			diagnostic: { level: "error", file, message: `workflow ${file} has no steps` },
		});
	}
	try {
		buildDag(workflow.item.steps, `workflow ${file}`);
	} catch (error) {
		problems.push({
			code: isCrewError(error) ? error.code : ErrorCode.InvalidWorkflow,
			diagnostic: { level: "error", file, message: errorMessage(error) },
		});
	}

	const specs = stepSpecs(workflow.item, context.cwd, diagnostics, problems);
	const mode = input.workspace ?? team?.item.workspaceMode;
	// A worker elsewhere can only bring a task's changes back as its branch.
	const remoteRepository = input.queue !== undefined && hasCommit(context.cwd);
	const tasks = workflow.item.steps.map(
		(step): TaskSpec => ({
			id: step.id,
			stepId: step.id,
			role: step.role,
			agent: resolveAgent(step, resolver),
			text: `${fillGoal(step.text, input.goal)}${specPrompt(specs.get(step.id))}`,
			dependsOn: step.dependsOn,
			...(specs.has(step.id) ? { specs: specs.get(step.id) } : {}),
			...(step.timeoutMs !== undefined ? { timeoutMs: step.timeoutMs } : {}),
			...(step.stallTimeoutMs !== undefined ? { stallTimeoutMs: step.stallTimeoutMs } : {}),
			...(step.askTimeoutMs !== undefined ? { askTimeoutMs: step.askTimeoutMs } : {}),
			...(step.ask === false ? { ask: false as const } : {}),
			...(step.continue === false ? { continue: false as const } : {}),
			...(step.retries !== undefined ? { retries: step.retries } : {}),
			...(step.verify ? { verify: step.verify } : {}),
			...(remoteRepository || usesWorktree(step, mode) ? { worktree: true } : {}),
			...(step.approval ? { approval: true } : {}),
			...(step.writes && step.writes.length > 0 ? { writes: step.writes } : {}),
			...(step.sandbox ? { sandbox: step.sandbox } : {}),
			...(step.onMissing ? { onMissing: step.onMissing } : {}),
			...sharedFiles(step),
		}),
	);

	const expanded = tasks.map((task, k) => {
		const step = workflow.item.steps[k] as WorkflowStep;
		if (!step.expand && step.fields.output !== ADAPTIVE_PLAN_OUTPUT) return task;
		const roles: Record<string, AgentSpec> = {};
		if (team) {
			for (const role of team.item.roles) {
				roles[role.name] = resolveAgent(
					{ ...step, role: role.name, model: undefined, thinking: undefined, fields: {} },
					resolver,
				);
			}
		} else for (const t of tasks) roles[t.role] = t.agent;
		return { ...task, expand: { roles, maxPhaseTasks: MAX_PHASE_TASKS, maxTasks: MAX_PLANNED_TASKS } };
	});

	const checked = input.until !== undefined || input.untilJudged === true;
	if (checked && expanded.some((t) => t.id === untilId(1))) {
		throw invalid(`the workflow has a step '${untilId(1)}', the id of the --until check`);
	}
	// The judge is an agent of its own, whatever the team's roles.
	const judgeStep = { id: untilId(1), role: input.judge ?? "goal-judge", dependsOn: [], text: "", fields: {} };
	const judge = input.untilJudged ? resolveAgent(judgeStep, { ...resolver, team: undefined }) : undefined;
	const check = {
		...(input.until !== undefined ? { command: input.until } : {}),
		...(judge ? { judge } : {}),
		goal: input.goal,
	};
	// In worktree mode the pass's work is on its tasks' branches until the run ends: the check runs
	// in a worktree of its own, where the branches of the tasks it follows are merged.
	const inWorktree = remoteRepository || expanded.some((t) => t.worktree);
	const untilTasks = checked ? [untilTask(check, input.maxIterations ?? 3, expanded, inWorktree)] : [];
	const integration = expanded.some((t) => t.worktree) ? integrationOf(input, team, resolver) : undefined;
	const agents = expanded.flatMap((t) => [t.agent, ...Object.values(t.expand?.roles ?? {})]);
	diagnostics.push(...thinkingWarnings(agents, input.runtime, context.runtimes));
	diagnostics.push(...setupWarnings(agents, input.runtime, context.runtimes, context.cwd));
	const known = input.knowledge === false ? undefined : readKnowledge(projectAt(context.cwd).crewDir);
	if (known && "refused" in known) diagnostics.push({ level: "warning", file: "", message: known.refused });

	const plan: Plan = {
		goal: input.goal,
		team: team?.item.name ?? null,
		workflow: workflow.item.name,
		options: {
			...runOptions(input, workflow, team, context.cwd, diagnostics, sandbox),
			source: { layer: workflow.layer, file: workflow.item.file },
			...(integration ? { integration } : {}),
		},
		tasks: [...expanded, ...untilTasks],
		diagnostics,
	};
	return { plan, problems };
}

/** The run's options from the command's flags, the team's and the workflow's settings. */
function runOptions(
	input: PlanInput,
	workflow: Loaded<WorkflowResource>,
	team: Loaded<TeamResource> | undefined,
	cwd: string,
	diagnostics: Diagnostic[],
	sandbox: RunSandbox,
): RunOptions {
	const roleLimits: Record<string, number> = {};
	for (const role of team?.item.roles ?? []) if (role.maxConcurrency) roleLimits[role.name] = role.maxConcurrency;
	return {
		concurrency: input.concurrency ?? declaredConcurrency(workflow, team, input.concurrencyCap, diagnostics),
		failure: input.failure ?? workflow.item.failure ?? "drain",
		roleLimits,
		...(input.runtime !== undefined ? { runtime: input.runtime } : {}),
		...(input.timeoutMs !== undefined ? { timeoutMs: input.timeoutMs } : {}),
		...(input.stallTimeoutMs !== undefined ? { stallTimeoutMs: input.stallTimeoutMs } : {}),
		retries: input.retries ?? 2,
		...(input.approvePlan ? { approvePlan: true } : {}),
		...(input.knowledge === false ? { knowledge: false as const } : {}),
		...(input.continueSessions === false ? { continueSessions: false as const } : {}),
		...(input.foresight === false ? { foresight: false as const } : {}),
		...(input.allowDirty ? { allowDirty: true } : {}),
		...(input.setup ? { setup: input.setup } : {}),
		...((input.workspace ?? team?.item.workspaceMode) === "worktree" ? { workspace: "worktree" as const } : {}),
		...(input.budget && Object.values(input.budget).some((v) => v !== undefined) ? { budget: input.budget } : {}),
		// What is stored of either URL is without its credentials; the runner gets them again.
		...(input.queue !== undefined ? { queue: withoutCredentials(checkQueue(input.queue)) } : {}),
		...(input.repository !== undefined
			? { repository: withoutCredentials(checkRepository(input.repository, input.queue)) }
			: {}),
		sandbox,
		cwd,
	};
}

const INTEGRATION_MODES: readonly string[] = Object.values(IntegrationMode);

function checkIntegration(mode: unknown): void {
	if (mode !== undefined && !INTEGRATION_MODES.includes(mode as string)) {
		throw invalid(`invalid integration ${JSON.stringify(mode)}: expected ${INTEGRATION_MODES.join(" or ")}`);
	}
}

/**
 * How the run settles conflicts between its branches: in `auto` mode, by the agent of the team's
 * `integrator` role, or else the agent named `integrator` (crew's own, unless the user has one).
 */
function integrationOf(
	input: PlanInput,
	team: Loaded<TeamResource> | undefined,
	resolver: Resolver,
): NonNullable<RunOptions["integration"]> {
	const { loader, diagnostics } = resolver;
	const mode = input.integration ?? team?.item.integration ?? IntegrationMode.Auto;
	if (mode === IntegrationMode.Manual) return { mode };
	const role = team?.item.roles.some((r) => r.name === "integrator");
	if (!role && !loader.findAgent("integrator")) {
		diagnostics.push({
			level: "warning",
			file: team?.item.file ?? "",
			message: "no integrator agent: conflicts between the run's branches are left for a person",
		});
		return { mode: IntegrationMode.Manual };
	}
	const step = { id: "integrate", role: "integrator", dependsOn: [], text: "", fields: {} };
	return { mode, agent: resolveAgent(step, { ...resolver, team: role ? team?.item : undefined }, false) };
}

/** Where a queue's workers fetch the repository from, once it is one; only a run with a queue has workers. */
function checkRepository(repository: string, queue: string | undefined): string {
	if (queue === undefined)
		throw invalid("--repository is where queue workers fetch the run's repository from: it needs --queue");
	if (typeof repository !== "string" || repository.trim() === "")
		throw invalid(`invalid repository ${JSON.stringify(repository)}: expected a git URL or path`);
	return repository;
}

/** A step's `output:` and `reads:`, as pi-crew names the run's shared files; `false` is none. */
function sharedFiles(step: WorkflowStep): { output?: string; reads?: string[] } {
	const output = step.fields.output;
	const reads = list(step.fields.reads);
	return {
		...(output && output !== "false" ? { output } : {}),
		...(reads.length > 0 ? { reads } : {}),
	};
}

/** A queue URL as given, once it reads as one. */
function checkQueue(url: string): string {
	redisAddress(url);
	return url;
}

/** A step works in a worktree when it says so, or the run does and the step does not say no. */
function usesWorktree(step: WorkflowStep, mode: "shared" | "worktree" | undefined): boolean {
	return step.worktree === true || (mode === "worktree" && step.worktree !== false);
}

/**
 * The concurrency a run's team or workflow asks for. What a project's own file asks for is held to
 * the user's cap, with a warning: a repository must not make a machine run unbounded agents.
 */
function declaredConcurrency(
	workflow: Loaded<WorkflowResource>,
	team: Loaded<TeamResource> | undefined,
	cap: number | undefined,
	diagnostics: Diagnostic[],
): number {
	const source = team?.item.maxConcurrency !== undefined ? team : workflow;
	const asked = source.item.maxConcurrency;
	if (asked === undefined) return DEFAULT_CONCURRENCY;
	if (cap === undefined || source.layer !== "project" || asked <= cap) return asked;
	diagnostics.push({
		level: "warning",
		file: source.item.file,
		message: `maxConcurrency ${asked} is held to ${cap}, the most your user config (maxConcurrency) lets a project ask for`,
	});
	return cap;
}
