// `Crew`, the engine's public API that every adapter uses: plans, starts, resumes, retries and cancels runs.

import { ensureCrewDir, IGNORE_HEADING, type Project, STATE_PATTERNS } from "../config/project.js";
import { resourceLayers, userResourceDirs } from "../config/resource-layers.js";
import { credentialUrls } from "../config/settings.js";
import { TrustStore } from "../config/trust.js";
import type { BudgetLimits } from "../core/budget.js";
import { CrewError, ErrorCode } from "../core/errors.js";
import { checkId } from "../core/ids.js";
import type { EventRecord, RunRecord, TaskRecord } from "../core/records.js";
import { type Cause, RunStatus } from "../core/status.js";
import type { RunOrigin } from "../core/types.js";
import { ResourceLoader } from "../resources/resource-loader.js";
import { RuntimeRegistry } from "../runtimes/runtime-registry.js";
import { ArtifactFiles } from "../store/artifact-files.js";
import { type Db, openWriter } from "../store/database.js";
import { isLeaseHolderAlive } from "../store/lease.js";
import { RunArchive } from "../store/run-archive.js";
import type { NewRun, TaskChange } from "../store/run-changes.js";
import type { RunQueries, RunSnapshot } from "../store/run-queries.js";
import { RunStore } from "../store/run-store.js";
import { ScheduleRecords, type SlotClaim, type SlotRecord } from "../store/schedule-records.js";
import { claimStore } from "../store/store-origin.js";
import { excludeInRepository } from "../workspace/git-surfaces/git-exclude.js";
import { IntegrationBranch } from "../workspace/integration-branch.js";
import { refuseTrackedStore } from "../workspace/tracked-store.js";
import { Worktrees } from "../workspace/worktrees.js";
import { approveRun, rejection } from "./control/approval.js";
import { changeBudget } from "./control/budget-change.js";
import { cancelRun } from "./control/cancel.js";
import { type Cleaned, cleanupRun, forgetRun, pruneRuns, runsBeyond } from "./control/housekeeping.js";
import { type ReconcileReport, reconcile } from "./control/reconcile.js";
import { retryChanges } from "./control/retry.js";
import { createScheduled, type ScheduledRunDeps, skipSlot, slotMarks } from "./control/scheduled-runs.js";
import { runDelegation } from "./delegation/delegate-run.js";
import type { RunBundle } from "./history/bundle.js";
import { createFork, type ForkInput, type PlannedFork, planFork } from "./history/fork.js";
import { planReplay, replayedRun } from "./history/replay-plan.js";
import { type AnswerGiven, answerTask } from "./messages/answer.js";
import { type Steered, steerTask } from "./messages/steer.js";
import { type CrewOptions, DEFAULT_ENGINE_OPTIONS, type EngineOptions, type ExecuteOptions } from "./options.js";
import { newRunId, newRunRecord } from "./planning/new-run.js";
import type { Plan, PlanInput } from "./planning/plan-input.js";
import { planRun } from "./planning/planner.js";
import { checkRunTrusted, checkScriptTrusted, runReach } from "./planning/reach.js";
import { sharedCheckoutWarning } from "./planning/shared-checkout.js";
import { RunCredentials } from "./run/credentials.js";
import { remoteRuntimes } from "./run/remote-runtimes.js";
import { resumedTasks, runUnderLease } from "./runner.js";
import { liveScheduledRuns } from "./views/run-view.js";

/**
 * The engine's public API: plan, start, resume, retry and cancel runs of one project. Every
 * adapter (CLI, HTTP, MCP, pi) goes through it.
 */
export class Crew {
	readonly project: Project;
	readonly runtimes: RuntimeRegistry;
	readonly files: ArtifactFiles;
	readonly #options: EngineOptions;
	readonly #db: Db;
	readonly #store: RunStore;
	readonly #userDirs: readonly string[];
	readonly #trusted: (root: string) => boolean;
	readonly #credentials: RunCredentials;
	readonly worktrees: Worktrees;
	readonly integration: IntegrationBranch;
	/** The repository's schedules of runs and their slots (see `createScheduled`). */
	readonly schedules: ScheduleRecords;

	constructor(options: CrewOptions) {
		const { project, runtimes, onEvent, userDirs, trusted, credentials, ...engine } = options;
		this.#credentials = new RunCredentials(() => credentials ?? credentialUrls());
		this.project = project;
		this.#userDirs = userDirs ?? userResourceDirs();
		this.#trusted = trusted ?? ((root) => new TrustStore().isTrusted(root));
		this.worktrees = new Worktrees(project.root, project.crewDir);
		this.integration = new IntegrationBranch(project.root, project.crewDir, this.worktrees);
		this.#options = { ...DEFAULT_ENGINE_OPTIONS, ...engine };
		this.runtimes = runtimes ?? RuntimeRegistry.standard();
		refuseTrackedStore(project.root, project.dbFile);
		ensureCrewDir(project);
		// No file of crew's in the work tree: an agent's `git add -A` there commits its work alone.
		excludeInRepository(project.root, IGNORE_HEADING, STATE_PATTERNS);
		this.#db = openWriter(project.dbFile);
		claimStore(this.#db, project.root, new Date(this.#options.now()).toISOString());
		this.#store = new RunStore(this.#db, { now: this.#options.now, ...(onEvent ? { onEvent } : {}) });
		this.files = new ArtifactFiles(project.runsDir, { now: this.#options.now });
		this.schedules = new ScheduleRecords(this.#db);
	}

	get #queries(): RunQueries {
		return this.#store.queries;
	}

	/** A run as stored (not as presented: see `RunReader` for how people see it). */
	run(runId: string): RunRecord {
		return this.#queries.getRun(checkId("run", runId));
	}

	/** The environment that gives another crew process (a background runner) the run's credentials. */
	credentialEnvironment(runId: string): Record<string, string> {
		return this.#credentials.environment(this.run(runId));
	}

	/** A run and its tasks, as of one committed state. */
	snapshot(runId: string): RunSnapshot {
		return this.#queries.snapshot(checkId("run", runId));
	}

	events(runId: string, afterSeq = 0): EventRecord[] {
		return this.#queries.eventsAfter(checkId("run", runId), afterSeq);
	}

	close(): void {
		this.#db.close();
	}

	/**
	 * Plans a run. A workflow script is loaded here, once the project is trusted if it is the
	 * project's own, so bad `--args` are refused before the run exists.
	 */
	async plan(input: PlanInput): Promise<Plan> {
		const planned = planRun(input, { loader: this.resources(), runtimes: this.runtimes, cwd: this.project.root });
		const shared = input.allowShared
			? undefined
			: sharedCheckoutWarning(
					planned.options,
					this.#queries.runsWithStatus([RunStatus.Running, RunStatus.Waiting]),
					this.#options.now(),
					this.#options.staleAfterMs,
				);
		const plan = shared ? { ...planned, diagnostics: [...planned.diagnostics, shared] } : planned;
		this.#credentials.remember(input.queue);
		this.#credentials.remember(input.repository);
		const script = plan.options.script;
		if (script) {
			checkScriptTrusted(this.project.root, this.#trusted(this.project.root), script);
			const { scriptArgs, loadScript } = await import("./script/module.js");
			scriptArgs(await loadScript(script.file), script.args, script.file);
		}
		return plan;
	}

	/** The agents, teams and workflows this project sees: builtin, the user's, the project's. */
	resources(): ResourceLoader {
		return new ResourceLoader({
			layers: resourceLayers(this.project, this.#userDirs),
			cwd: process.cwd(),
		});
	}

	/**
	 * Records a planned run as queued and returns its id; nothing runs yet. A plan that would run
	 * commands from the project's own files is refused, listing them, until the user trusts it.
	 * Worktrees start from `base` when given (a fork's), else from HEAD.
	 */
	create(plan: Plan, base?: string, id?: string): string {
		const run = this.#newRun(plan, base, id);
		this.#store.createRun(run);
		return run.id;
	}

	/**
	 * Claims slot `claim` of a schedule and records its run, planned as `plan`, in one transaction:
	 * the run's id, or undefined when another scheduler claimed the slot first (no run then). The
	 * run is checked as `create` checks it, before anything is claimed.
	 */
	createScheduled(plan: Plan, claim: SlotClaim): string | undefined {
		const schedule = slotMarks(claim);
		const run = this.#newRun({ ...plan, options: { ...plan.options, schedule } }, undefined);
		return createScheduled(this.#scheduled(), run, claim);
	}

	/** Claims slot `claim` of a schedule as skipped, saying why; false when it was claimed before. */
	skipSlot(claim: Pick<SlotRecord, "schedule" | "slot" | "missed">, reason: string): boolean {
		return skipSlot(this.#scheduled(), claim, reason);
	}

	/**
	 * The runs a schedule started that have not ended, oldest first, as people see them: a run
	 * whose runner is gone is interrupted.
	 */
	liveScheduled(): RunRecord[] {
		return liveScheduledRuns(this.#queries, this.#options.now(), this.#options.staleAfterMs);
	}

	#scheduled(): ScheduledRunDeps {
		return { store: this.#store, schedules: this.schedules, now: this.#options.now };
	}

	/** Throws, listing them, when `plan` would run commands of this project's own and the project is not trusted. */
	checkTrust(plan: Plan): void {
		checkRunTrusted(this.project.root, this.#trusted(this.project.root), runReach(plan.tasks, plan.options));
	}

	/** The record of a new run planned as `plan`; see `newRunRecord`. */
	#newRun(plan: Plan, base: string | undefined, id = newRunId(this.#options.now())): NewRun {
		return newRunRecord(this.project.root, this.#trusted(this.project.root), plan, base, id);
	}

	/** What a fork of a run would reuse of it and run again (see `decideFork`), and the plan it would run. */
	planFork(input: ForkInput): Promise<PlannedFork> {
		const deps = { store: this.#store, worktrees: this.worktrees, root: this.project.root };
		return planFork({ ...deps, plan: (given) => this.plan(given) }, this.run(input.runId), input);
	}

	/**
	 * Records a replay of run `runId` as a new queued run (see `planReplay`), executing as a fork's
	 * `now`, with `origin`, who asked for it, in its options; returns its id.
	 */
	async replay(runId: string, live: boolean, now: ForkInput["now"], origin: RunOrigin = {}): Promise<string> {
		const source = replayedRun(this.#queries, checkId("run", runId), this.#options);
		const plan = await planReplay((given) => this.plan(given), source, live, now);
		return this.create({ ...plan, options: { ...plan.options, ...origin } }, source.record.options.baseCommit);
	}

	/** Records a fork `planFork` planned as a new queued run, from its run's base commit; returns its id. */
	createFork(fork: PlannedFork): Promise<string> {
		const deps = { store: this.#store, files: this.files, worktrees: this.worktrees, root: this.project.root };
		const make = { newId: () => newRunId(this.#options.now()), create: this.create.bind(this) };
		return createFork({ ...deps, ...make }, fork);
	}

	/**
	 * Refuses a run this store may not execute: one it did not make here (see `claimStore`), or one that would run the project's own commands in a
	 * project the user does not trust, as the user trusts it now, not when the run was made.
	 * Every path that runs a run's tasks checks it first: execute, retry, approve, a background runner.
	 */
	checkRunnable(runId: string): void {
		const run = this.#queries.getRun(checkId("run", runId));
		if (run.importedAt !== null) {
			throw new CrewError(
				ErrorCode.Conflict,
				`run ${run.id} was not made by this store here (it was imported, or its store was copied from elsewhere; since ${run.importedAt}): crew never executes what another store recorded; view it with crew status ${run.id}, or plan its goal again with this repository's workflow: crew import --rerun <bundle>`,
			);
		}
		const reach = runReach(this.#queries.taskSpecs(run.id), run.options);
		checkRunTrusted(this.project.root, this.#trusted(this.project.root), reach);
	}

	/**
	 * Runs `runId` in this process until it ends: a queued run starts, any other unfinished run is
	 * resumed. Leftover workers of a dead runner are ended first, and only tasks that did not
	 * complete are queued again.
	 */
	async execute(runId: string, options: ExecuteOptions = {}): Promise<RunStatus> {
		const run = this.#queries.getRun(checkId("run", runId));
		if (run.status === RunStatus.Completed) return RunStatus.Completed;
		if (options.onlyIfQueued && run.status !== RunStatus.Queued) {
			throw new CrewError(ErrorCode.Conflict, `run ${runId} is ${run.status}, not queued; not starting it`);
		}
		const cause = run.status === RunStatus.Queued ? "dispatch" : "resume";
		return this.#runUnderLease(run, cause, options, (tasks) => resumedTasks(run, tasks));
	}

	/**
	 * Queues one failed, cancelled, skipped or needs_attention task again, with the dependents it had skipped or
	 * cancelled, and runs them. Its own dependencies must have completed.
	 */
	async retry(runId: string, ref: string, options: ExecuteOptions = {}): Promise<RunStatus> {
		const { run, changes } = this.checkRetry(runId, ref);
		return this.#runUnderLease(run, "retry", options, () => changes);
	}

	/** Throws, saying why, unless task `ref` of the run can be retried now; else the run and what a retry queues. */
	checkRetry(runId: string, ref: string): { run: RunRecord; changes: TaskChange[] } {
		this.checkRunnable(runId);
		const run = this.#queries.getRun(checkId("run", runId));
		const live = run.lease !== null && isLeaseHolderAlive(run.lease, this.#options.now(), this.#options.staleAfterMs);
		return { run, changes: retryChanges(this.#queries, run, ref, live) };
	}

	#runUnderLease(
		run: RunRecord,
		cause: Cause,
		options: ExecuteOptions,
		requeue: (tasks: readonly TaskRecord[]) => TaskChange[],
	): Promise<RunStatus> {
		this.checkRunnable(run.id);
		const deps = {
			store: this.#store,
			files: this.files,
			project: this.project,
			runtimes: this.runtimes,
			options: this.#options,
			credentials: this.#credentials,
			worktrees: this.worktrees,
			integration: this.integration,
			trusted: this.#trusted(this.project.root),
			workflow: (name: string) => this.resources().workflow(name).item,
			delegation: runDelegation(this.project, {
				store: this.#store,
				files: this.files,
				plan: (input) => this.plan(input),
				create: (plan) => this.create(plan),
				execute: (id, options) => this.execute(id, options),
			}),
		};
		return runUnderLease(deps, run, cause, options, requeue);
	}

	/** An ended run, its records and files, as one bundle; see `exportRun`. */
	async exportRun(runId: string): Promise<RunBundle> {
		const { exportRun } = await import("./history/bundle.js");
		return exportRun(new RunArchive(this.#db), this.files, checkId("run", runId));
	}

	/** Adds the run of a bundle to this store, after checking all of it; see `importRun`. */
	async importRun(bundle: unknown): Promise<{ runId: string; files: number }> {
		const { importRun } = await import("./history/bundle.js");
		return importRun(new RunArchive(this.#db), this.files, bundle, new Date(this.#options.now()).toISOString());
	}

	/** Deletes an ended run's records and files; see `forgetRun`. */
	forget(runId: string): Promise<void> {
		return forgetRun({ ...this.#housekeeping(), archive: new RunArchive(this.#db), files: this.files }, runId);
	}

	/** The ended runs among those older than the `keep` newest: what `crew prune --keep` forgets. */
	runsBeyond(keep: number): RunRecord[] {
		return runsBeyond(this.#queries, keep);
	}

	/** Checks that runs, leases, workers, worktrees and branches agree; see `reconcile`. */
	reconcile(fix: boolean): Promise<ReconcileReport> {
		const { now, staleAfterMs } = this.#options;
		const deps = { store: this.#store, queries: this.#queries, runtimes: this.runtimes, worktrees: this.worktrees };
		return reconcile({ ...deps, runsDir: this.files.root, now, staleAfterMs }, fix);
	}

	/** Approves every task of the run waiting at its gate; see `approveRun`. */
	approve(runId: string): { tasks: string[]; runnerAlive: boolean } {
		const { now, staleAfterMs } = this.#options;
		const checkRunnable = (id: string) => this.checkRunnable(id);
		return approveRun({ store: this.#store, checkRunnable, now, staleAfterMs }, runId);
	}

	/**
	 * Gives the running agent of task or step `ref` a message at its next turn, through the run's
	 * runner; waits up to `waitMs` (default 5 s) to say whether it was delivered. See `steerTask`.
	 */
	steer(runId: string, ref: string, text: string, waitMs = 5000): Promise<Steered> {
		const { now, staleAfterMs, pollMs } = this.#options;
		return steerTask({ store: this.#store, now, staleAfterMs, pollMs }, runId, ref, text, waitMs);
	}

	/**
	 * Answers the question the agent of task or step `ref` waits on (`question`, its number, when it
	 * waits on several); waits up to `waitMs` (default 5 s) for the run's runner to give it to the
	 * agent. See `answerTask`.
	 */
	answer(
		runId: string,
		ref: string,
		text: string,
		options: { readonly waitMs?: number; readonly question?: number } = {},
	): Promise<AnswerGiven> {
		const { now, staleAfterMs, pollMs } = this.#options;
		const deps = { store: this.#store, now, staleAfterMs, pollMs };
		return answerTask(deps, runId, ref, text, options.waitMs ?? 5000, options.question);
	}

	/** Changes the caps of a run that no runner holds, before it is resumed; see `changeBudget`. */
	changeBudget(runId: string, caps: Pick<BudgetLimits, "tokens" | "usd">): void {
		const { now, staleAfterMs } = this.#options;
		changeBudget({ store: this.#store, now, staleAfterMs }, runId, caps);
	}

	/** Removes an ended run's worktrees, their work kept on their branches; see `cleanupRun`. */
	cleanup(runId: string, force = false): Promise<Cleaned> {
		return cleanupRun(this.#housekeeping(), checkId("run", runId), force);
	}

	/** Cleans up every ended run that finished more than `ageMs` ago; see `pruneRuns`. */
	prune(ageMs: number): ReturnType<typeof pruneRuns> {
		return pruneRuns(this.#housekeeping(), ageMs);
	}

	#housekeeping() {
		const { now, staleAfterMs } = this.#options;
		return { queries: this.#queries, worktrees: this.worktrees, now, staleAfterMs };
	}

	/** Rejects what the run waits for: the run is cancelled, with the reason as its error. */
	async reject(runId: string, reason: string): Promise<RunStatus> {
		return this.cancel(runId, rejection(this.#queries, runId, reason));
	}

	/**
	 * Cancels a run. A live runner is asked through the store and waited for up to `waitMs`; a run
	 * without one has its leftover workers ended and its unfinished tasks cancelled here.
	 */
	cancel(runId: string, why = "cancelled by request", waitMs = 30_000): Promise<RunStatus> {
		const { now, staleAfterMs } = this.#options;
		const deps = { store: this.#store, runtimes: this.runtimes, files: this.files, now, staleAfterMs };
		const remote = (run: RunRecord) => remoteRuntimes(this.#credentials.restore(run), this.project.root, this.runtimes);
		return cancelRun({ ...deps, remote }, runId, why, waitMs);
	}
}
