import type { Project } from "../config/project.js";
import { resourceLayers, userResourceDirs } from "../config/resource-layers.js";
import { loadSettings, runLimits } from "../config/settings.js";
import { CrewError, ErrorCode } from "../core/errors.js";
import { checkId } from "../core/ids.js";
import { RunStatus } from "../core/status.js";
import { Crew } from "../engine/crew.js";
import { estimateFromStore } from "../engine/plan-estimate.js";
import { type PlanInput, planRun } from "../engine/planner.js";
import { eventJson, RunReader, type StatusJson } from "../engine/run-reader.js";
import { type ResourceKind, ResourceLoader } from "../resources/resource-loader.js";
import { RuntimeRegistry } from "../runtimes/runtime-registry.js";
import { type AgentRequest, type AgentStarted, agentWaitMs, startAgentRun } from "./agent-request.js";
import { startBackgroundRunner } from "./background-runner.js";
import { type PlanSummary, planSummary } from "./plan-summary.js";
import { type RunOutcome, type WaitOptions, waitForRuns } from "./run-waiting.js";

/** Longest an agent-facing call waits for a runner to confirm a cancel, in ms: under clients' timeouts. */
const CANCEL_WAIT_MS = 10_000;
/** Events one call returns at most; the caller asks again from `next`. */
const EVENTS_PER_CALL = 200;
/** Characters of a result one call returns; the whole text stays in the run's files. */
const MAX_RESULT = 100_000;

/**
 * What an agent-facing surface may ask of a run: the plan's input, without the user's own
 * settings, and the run's limits on each attempt (`0` or a duration such as `30m`).
 */
export type RunRequest = Pick<
	PlanInput,
	| "goal"
	| "workflow"
	| "team"
	| "runtime"
	| "model"
	| "concurrency"
	| "args"
	| "thinking"
	| "defaultModel"
	| "defaultThinking"
> & {
	readonly timeout?: string;
	readonly stallTimeout?: string;
};

export interface ResourceRow {
	readonly kind: ResourceKind;
	readonly name: string;
	readonly layer: string;
	readonly file: string;
	readonly description: string;
}

export const RESOURCE_KINDS: Readonly<Record<string, ResourceKind>> = {
	agent: "agent",
	agents: "agent",
	team: "team",
	teams: "team",
	workflow: "workflow",
	workflows: "workflow",
};

/** The resource kind a word names (`agents`, `team`, …), or a clear error. */
export function resourceKind(word: string): ResourceKind {
	const kind = RESOURCE_KINDS[word];
	if (!kind) throw new CrewError(ErrorCode.InvalidInput, `unknown kind '${word}': expected agents, teams or workflows`);
	return kind;
}

/** Every agent, team and workflow (or those of `kinds`) a loader sees, with its layer. */
export function resourceRows(
	loader: ResourceLoader,
	kinds: readonly ResourceKind[] = ["agent", "team", "workflow"],
): ResourceRow[] {
	return kinds.flatMap((kind) =>
		loader.list(kind).items.map((listed) => ({
			kind,
			name: listed.name,
			layer: listed.layer,
			file: listed.file,
			description: listed.item?.description ?? "(does not load; see crew validate)",
		})),
	);
}

/**
 * What agent-facing surfaces (the MCP server, the pi extension, the dashboard's buttons) can do
 * with one project's runs, as plain data. A run starts detached; only `agent` with `wait` and
 * `wait` wait for runs, each for a bounded time.
 */
export class TeamActions {
	readonly project: Project;

	constructor(project: Project) {
		this.project = project;
	}

	#loader(): ResourceLoader {
		return new ResourceLoader({ layers: resourceLayers(this.project, userResourceDirs()), cwd: this.project.root });
	}

	#read<T>(fn: (reader: RunReader) => T): T {
		const reader = new RunReader(this.project);
		try {
			return fn(reader);
		} finally {
			reader.close();
		}
	}

	async #write<T>(fn: (crew: Crew) => Promise<T>): Promise<T> {
		const crew = new Crew({ project: this.project });
		try {
			return await fn(crew);
		} finally {
			crew.close();
		}
	}

	list(kind?: string): ResourceRow[] {
		return resourceRows(this.#loader(), kind === undefined ? undefined : [resourceKind(kind)]);
	}

	plan(request: RunRequest): PlanSummary {
		const { timeout, stallTimeout, ...input } = request;
		const plan = planRun(
			{ ...input, ...runLimits({ timeout, stallTimeout }, {}) },
			{
				loader: this.#loader(),
				runtimes: RuntimeRegistry.standard(),
				cwd: this.project.root,
			},
		);
		return planSummary(plan, estimateFromStore(plan, this.project));
	}

	/** Plans and creates the run, and hands it to a background runner; returns once that holds it. */
	async run(request: RunRequest): Promise<{
		runId: string;
		status: string;
		tasks: number;
		workflow: string;
		warnings: string[];
		/** What the run should cost and take, as `crew plan` says. */
		estimate: string;
	}> {
		const settings = loadSettings(this.project);
		const { timeout, stallTimeout, ...input } = request;
		const limits = runLimits({ timeout, stallTimeout }, settings);
		return await this.#write(async (crew) => {
			const plan = await crew.plan({
				...input,
				...limits,
				...(settings.setup ? { setup: settings.setup } : {}),
				...(settings.queue ? { queue: settings.queue } : {}),
				concurrencyCap: settings.maxConcurrency,
				budget: settings.budget,
			});
			// Read before the run joins the history it reads.
			const estimate = estimateFromStore(plan, this.project);
			const runId = crew.create(plan);
			const runner = await startBackgroundRunner(crew, runId, ["--if-queued"]);
			const warnings = [
				...settings.warnings,
				...plan.diagnostics.filter((d) => d.level === "warning").map((d) => `${d.file}: ${d.message}`),
			];
			return {
				runId,
				status: runner.status,
				tasks: plan.tasks.length,
				workflow: plan.workflow,
				warnings,
				estimate: estimate.line,
			};
		});
	}

	/**
	 * Starts one agent on one task as a detached one-task run; with `wait`, waits (at most
	 * `waitMs`) for its end and answers its outcome too (`result` once it ended, `timedOut` if not).
	 */
	async agent(
		request: AgentRequest,
		options: WaitOptions = {},
	): Promise<AgentStarted | (AgentStarted & RunOutcome & { timedOut: boolean })> {
		const waitMs = agentWaitMs(request);
		const settings = loadSettings(this.project);
		const started = await this.#write((crew) => startAgentRun(crew, settings, request));
		if (!request.wait) return started;
		const { runs, timedOut } = await this.wait([started.runId], waitMs, options);
		return { ...started, ...(runs[0] as RunOutcome), timedOut };
	}

	/** Waits until every run of `runIds` stopped or `timeoutMs` passed; answers each run's outcome. */
	wait(
		runIds: readonly string[],
		timeoutMs: number,
		options: WaitOptions = {},
	): Promise<{ runs: RunOutcome[]; timedOut: boolean }> {
		return waitForRuns(this.project, runIds, timeoutMs, options);
	}

	/** `crew status --json` of a run (default: the latest). */
	status(runId?: string): StatusJson {
		return this.#read((reader) => JSON.parse(reader.statusJson(runId)) as StatusJson);
	}

	events(runId: string, since = 0): { events: object[]; next: number } {
		const events = this.#read((reader) => reader.events(runId, since, EVENTS_PER_CALL));
		return { events: events.map(eventJson), next: events.at(-1)?.seq ?? since };
	}

	result(
		runId: string,
		task: string,
	): { runId: string; taskId: string; stepId: string; status: string; error: string | null; result: string } {
		const { task: record, text } = this.#read((reader) => reader.result(runId, task));
		const result =
			text.length > MAX_RESULT
				? `${text.slice(0, MAX_RESULT)}\n[crew: ${text.length - MAX_RESULT} more characters: crew result ${runId} ${record.id}]`
				: text;
		return { runId, taskId: record.id, stepId: record.stepId, status: record.status, error: record.error, result };
	}

	async cancel(runId: string, reason = "cancelled by request"): Promise<{ runId: string; status: string }> {
		checkId("run", runId);
		const status = await this.#write((crew) => crew.cancel(runId, reason, CANCEL_WAIT_MS));
		return { runId, status };
	}

	/** Hands an unfinished run to a background runner; a completed run has nothing to resume. */
	async resume(runId: string): Promise<{ runId: string; status: string; started: boolean }> {
		checkId("run", runId);
		return await this.#write(async (crew) => {
			const run = crew.run(runId);
			if (run.status === RunStatus.Completed) return { runId, status: run.status, started: false };
			return { runId, status: (await startBackgroundRunner(crew, runId)).status, started: true };
		});
	}

	/** Approves what the run waits for; a run whose runner is gone gets a background runner. */
	async approve(runId: string): Promise<{ runId: string; approved: string[]; status: string }> {
		checkId("run", runId);
		return await this.#write(async (crew) => {
			const { tasks, runnerAlive } = crew.approve(runId);
			const status = runnerAlive ? crew.run(runId).status : (await startBackgroundRunner(crew, runId)).status;
			return { runId, approved: tasks, status };
		});
	}

	async reject(runId: string, reason: string): Promise<{ runId: string; status: string }> {
		checkId("run", runId);
		return { runId, status: await this.#write((crew) => crew.reject(runId, reason)) };
	}
}
