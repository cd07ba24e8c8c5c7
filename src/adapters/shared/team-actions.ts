// What agent-facing surfaces (MCP server, pi extension, dashboard) can do with a project's runs.

import type { Project } from "../../config/project.js";
import { resourceLayers, userResourceDirs } from "../../config/resource-layers.js";
import { loadSettings } from "../../config/settings.js";
import { TrustStore } from "../../config/trust.js";
import { CrewError, ErrorCode } from "../../core/errors.js";
import { checkId } from "../../core/ids.js";
import { RunStatus } from "../../core/status.js";
import type { StatusSelection } from "../../core/status-selection.js";
import { Crew } from "../../engine/crew.js";
import type { AnswerGiven } from "../../engine/messages/answer.js";
import type { Steered } from "../../engine/messages/steer.js";
import { estimateFromStore } from "../../engine/planning/estimate.js";
import { planRun } from "../../engine/planning/planner.js";
import { eventJson, listedGoal, type StatusJson } from "../../engine/views/json.js";
import { RunReader } from "../../engine/views/reader.js";
import { ResourceLoader } from "../../resources/resource-loader.js";
import type { Check } from "../../runtimes/agent/cli-readiness.js";
import { RuntimeRegistry } from "../../runtimes/runtime-registry.js";
import { type TaskWorktree, Worktrees } from "../../workspace/worktrees.js";
import { doctorReport } from "../cli/doctor-command.js";
import { statusText } from "../pi/run-report.js";
import { type RunTracing, runTracing, withTracing } from "../tracing/run-tracing.js";
import { type AgentRequest, type AgentStarted, agentWaitMs, startAgentRun } from "./agent-request.js";
import { retryInBackground, startBackgroundRunner, startCallerRun } from "./background-runner.js";
import { type InboxItem, inboxItems } from "./inbox.js";
import { checkPlanModel } from "./model-check.js";
import { type PlanSummary, planSummary } from "./plan-summary.js";
import {
	type Recommendation,
	type ResourceRow,
	recommendTeam,
	resourceKind,
	resourceRows,
	type ValidationReport,
	validationReport,
} from "./resource-reports.js";
import { type Forked, forkRun, type Replayed, replayRun } from "./run-again.js";
import { checkAskedSandbox, type RunAsker } from "./run-asker.js";
import { runStanding } from "./run-ending.js";
import { exportToFile, pathInside } from "./run-export.js";
import { type RunAsk, runInput } from "./run-input.js";
import { type MergeOutcome, mergeRun } from "./run-merge.js";
import { type RunOutcome, type WaitOptions, waitForRuns } from "./run-waiting.js";

/** Longest an agent-facing call waits for a runner to deliver a steering message or an answer, in ms. */
const STEER_WAIT_MS = 5000;
/** Longest an agent-facing call waits for a runner to confirm a cancel, in ms: under clients' timeouts. */
const CANCEL_WAIT_MS = 10_000;
/** Events one call returns at most; the caller asks again from `next`. */
const EVENTS_PER_CALL = 200;
/** Characters of a result one call returns; the whole text stays in the run's files. */
const MAX_RESULT = 100_000;

/**
 * What an agent-facing surface may ask of a run: what `crew run` may (see `RunAsk`), but the queue
 * and the repository its workers fetch from, which stay the user's config's; and `session`, the
 * caller's session id, recorded with the run.
 */
export type RunRequest = Omit<RunAsk, "queue" | "repository"> & { readonly session?: string };

/** A run as `crew runs --json` lists it, with the caller's session and what a report says of it. */
export type RunEntry = StatusJson["run"] & {
	/** The whole goal's length; `goal` is its first 500 characters (see `listedGoal`). */
	readonly goalLength: number;
	/** The run's id again, under the name every other answer gives it. */
	readonly runId: string;
	readonly session: string | null;
	/** The run and each task with its status and error, a line each. */
	readonly summary: string;
	/** The command a person would type next, if any. */
	readonly next: string | null;
};

/** Runs `runs` lists when not asked for a number. */
const RUNS_PER_CALL = 20;
/** A session id: printable, no spaces, as pi's and Claude Code's are. */
const SESSION_ID = /^[\x21-\x7e]{1,200}$/;

function checkSession(session: string | undefined): void {
	if (session !== undefined && !SESSION_ID.test(session)) {
		throw new CrewError(
			ErrorCode.InvalidInput,
			`invalid session ${JSON.stringify(session)}: expected an id of 1 to 200 printable characters without spaces`,
		);
	}
}

/**
 * Who asks through a surface: `agents` (the MCP server, the pi extension), whose runs record the
 * caller and its session; or a `person` over the HTTP API, whose runs record that they were
 * started over it and count as the user's own, as the CLI's do.
 */
export type Surface = "agents" | "person";

/**
 * What agent-facing surfaces (the MCP server, the pi extension, the dashboard's buttons) can do
 * with one project's runs, as plain data. A run starts detached; only `agent` with `wait` and
 * `wait` wait for runs, each for a bounded time.
 */
export class TeamActions {
	readonly project: Project;
	/** Asks made here are a person's over the API; else an agent's. */
	readonly #person: boolean;
	/** Made at the first write, when this process's `OTEL_*` variables ask for traces: one for every Crew it opens. */
	#tracing: { readonly tracing: RunTracing | undefined } | undefined;

	constructor(project: Project, surface: Surface = "agents") {
		this.project = project;
		this.#person = surface === "person";
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
		this.#tracing ??= {
			tracing: runTracing(this.project.dbFile, (message) => process.stderr.write(`crew: warning: ${message}\n`)),
		};
		const crew = new Crew(withTracing({ project: this.project }, this.#tracing.tracing));
		try {
			return await fn(crew);
		} finally {
			crew.close();
		}
	}

	/** Who asks, giving `session`: a person over the API gives none. */
	#asker(session: string | undefined): RunAsker {
		if (this.#person) return "api";
		return session === undefined ? {} : { session };
	}

	list(kind?: string): ResourceRow[] {
		return resourceRows(this.#loader(), kind === undefined ? undefined : [resourceKind(kind)]);
	}

	/** The plan `run` would make of `request`, checked as `run` checks it; nothing is made. */
	async plan(request: RunRequest): Promise<PlanSummary> {
		const runtimes = RuntimeRegistry.standard();
		const settings = loadSettings(this.project);
		const { session, ...ask } = request;
		checkAskedSandbox(this.#asker(session), ask.sandbox, settings, runtimes.sandbox);
		const plan = planRun(runInput(ask, settings), { loader: this.#loader(), runtimes, cwd: this.project.root });
		await checkPlanModel(plan, ask.model, settings);
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
		const { session, ...ask } = request;
		checkSession(session);
		return await this.#write(async (crew) => {
			const asker = this.#asker(session);
			checkAskedSandbox(asker, ask.sandbox, settings, crew.runtimes.sandbox);
			const plan = await crew.plan(runInput(ask, settings));
			await checkPlanModel(plan, ask.model, settings);
			// Read before the run joins the history it reads.
			const estimate = estimateFromStore(plan, this.project);
			const { runId, runner, warnings } = await startCallerRun(crew, plan, settings.warnings, asker);
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
		checkSession(request.session);
		const settings = loadSettings(this.project);
		const asker = this.#asker(request.session);
		const started = await this.#write((crew) => startAgentRun(crew, settings, request, asker));
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

	/**
	 * `crew status --json` of a run (default: the latest); with `select`, as `--tasks` and
	 * `--fields` narrow it, so each task has only the fields selected.
	 */
	status(runId?: string, select: StatusSelection = {}): StatusJson {
		return this.#read((reader) => JSON.parse(reader.statusJson(runId, select)) as StatusJson);
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

	/** Everything waiting on a person, oldest first; see `inboxItems`. */
	inbox(): { items: InboxItem[] } {
		return { items: this.#read((reader) => inboxItems(reader)) };
	}

	/** Gives a running task's agent `message` at its next turn; see `Crew.steer`. */
	async steer(runId: string, task: string, message: string): Promise<Steered> {
		checkId("run", runId);
		return await this.#write((crew) => crew.steer(runId, task, message, STEER_WAIT_MS));
	}

	/**
	 * Answers the question a task's agent waits on; see `Crew.answer`. A run whose runner is gone
	 * gets a background runner, whose next attempt of the task is told the answer.
	 */
	async answer(
		runId: string,
		task: string,
		answer: string,
		question?: number,
	): Promise<AnswerGiven & { status: string }> {
		checkId("run", runId);
		return await this.#write(async (crew) => {
			const given = await crew.answer(runId, task, answer, {
				waitMs: STEER_WAIT_MS,
				...(question !== undefined ? { question } : {}),
			});
			const orphaned = given.state === "answered" && !given.runnerAlive;
			const status = orphaned ? (await startBackgroundRunner(crew, runId)).status : crew.run(runId).status;
			return { ...given, status };
		});
	}

	async reject(runId: string, reason: string): Promise<{ runId: string; status: string }> {
		checkId("run", runId);
		return { runId, status: await this.#write((crew) => crew.reject(runId, reason)) };
	}

	/** Retries a failed, cancelled, skipped or needs_attention task (and the dependents it skipped) in a background runner. */
	async retry(runId: string, task: string): Promise<{ runId: string; task: string; status: string }> {
		checkId("run", runId);
		return await this.#write(async (crew) => {
			const runner = await retryInBackground(crew, runId, task);
			return { runId, task, status: runner.status };
		});
	}

	/** A new run of run `runId` that takes the outcomes of its tasks before `from`; see `forkRun`. */
	async fork(runId: string, ask: { from?: readonly string[]; session?: string } = {}): Promise<Forked> {
		const settings = loadSettings(this.project);
		return await this.#write((crew) => forkRun(crew, settings, runId, this.#asker(ask.session), ask.from));
	}

	/** A replay of run `runId` in a background runner; see `replayRun`. */
	async replay(runId: string, ask: { liveOnDivergence?: boolean; session?: string } = {}): Promise<Replayed> {
		const settings = loadSettings(this.project);
		const live = ask.liveOnDivergence === true;
		return await this.#write((crew) => replayRun(crew, settings, runId, this.#asker(ask.session), live));
	}

	/**
	 * The runs, newest first (`limit`, default 20), each as `crew runs --json` lists it with its
	 * session, its status in a few lines and what to do next; with `session`, only that session's.
	 */
	runs(filter: { session?: string; limit?: number } = {}): { runs: RunEntry[] } {
		checkSession(filter.session);
		const limit = filter.limit ?? RUNS_PER_CALL;
		return this.#read((reader) => ({
			runs: reader.repo
				.runs()
				.filter((run) => filter.session === undefined || run.options.caller?.session === filter.session)
				.slice(0, limit)
				.map((run): RunEntry => {
					const status = JSON.parse(reader.statusJson(run.id)) as StatusJson;
					const budgetSpent = reader.budgetStopped(run.id);
					const { next } = runStanding(run, reader.status(run.id).tasks, { budgetSpent });
					return {
						runId: run.id,
						...status.run,
						...listedGoal(status.run.goal),
						session: run.options.caller?.session ?? null,
						summary: statusText(status),
						next: next ?? null,
					};
				}),
		}));
	}

	recommend(goal: string): Recommendation {
		return recommendTeam(this.#loader(), goal);
	}

	/** `crew validate --json` of this project's resources. */
	validate(): ValidationReport {
		return validationReport({
			loader: this.#loader(),
			runtimes: RuntimeRegistry.standard(),
			cwd: this.project.root,
			trusted: new TrustStore().isTrusted(this.project.root),
		});
	}

	/** `crew doctor --json`, and whether every check the project needs passed; `smoke` makes real model calls. */
	async doctor(smoke = false): Promise<{ checks: Check[]; ok: boolean }> {
		return await doctorReport({ smoke }, this.project.root);
	}

	/** `crew worktrees --json` of one run. */
	async worktrees(runId: string): Promise<{ worktrees: TaskWorktree[] }> {
		checkId("run", runId);
		this.#read((reader) => reader.run(runId));
		return { worktrees: await new Worktrees(this.project.root, this.project.crewDir).list(runId) };
	}

	merge(runId: string, partial = false): Promise<MergeOutcome> {
		return mergeRun(this.project, runId, partial);
	}

	/**
	 * Writes an ended run's bundle to `file` (default `<runId>.crew-run.json`), a path inside the
	 * repository: an agent may not write beyond it through crew.
	 */
	async export(runId: string, file?: string): Promise<{ runId: string; file: string; tasks: number; files: number }> {
		checkId("run", runId);
		const root = this.project.root;
		const path = pathInside(root, file ?? `${runId}.crew-run.json`);
		return await this.#write(async (crew) => exportToFile(crew, runId, path, root, root));
	}
}
