// `RunReader`: read-only access to a project's runs, tasks, events, files and counts, as people see them.

import type { Project } from "../../config/project.js";
import { CrewError, ErrorCode } from "../../core/errors.js";
import { checkId } from "../../core/ids.js";
import { logEntry } from "../../core/log-line.js";
import type {
	ArtifactRecord,
	AttemptRecord,
	EventRecord,
	ListedTask,
	RunRecord,
	TaskRecord,
	TaskView,
} from "../../core/records.js";
import type { TaskSample } from "../../core/run-estimate.js";
import { RunStatus, TaskStatus } from "../../core/status.js";
import type { StatusSelection } from "../../core/status-selection.js";
import { taskOrder } from "../../core/task-order.js";
import type { TaskSpec } from "../../core/types.js";
import { type Usage, ZERO_USAGE } from "../../core/usage.js";
import { ArtifactFiles } from "../../store/artifact-files.js";
import { type Db, openReader } from "../../store/database.js";
import { HistoryQueries } from "../../store/history-queries.js";
import { InsightQueries, type Insights, insightWindow, noInsights } from "../../store/insight-queries.js";
import { MetricQueries, type StoredCounts } from "../../store/metric-queries.js";
import { type FailedNotification, failedNotifications } from "../../store/notification-records.js";
import { RunArchive } from "../../store/run-archive.js";
import { type PagedRun, type RunFilter, RunPages } from "../../store/run-pages.js";
import { RunQueries } from "../../store/run-queries.js";
import { type ScheduledCounts, ScheduleRecords } from "../../store/schedule-records.js";
import { type MailRow, waitingMail } from "../../store/script-mail.js";
import { type OpenQuestion, waitingQuestions } from "../../store/task-questions.js";
import { type TaskLinks, ViewQueries } from "../../store/view-queries.js";
import { runSummary, usageByJson, usageJson } from "./json.js";
import { presentRun, type RunChanges, type RunListing, type RunView } from "./run-view.js";
import { TIMELINE_EVENTS, type Timeline, timeline } from "./timeline.js";

const NO_LINKS: TaskLinks = { dependsOn: [], phase: null };

/**
 * Read-only access to the runs of a project, through a read-only connection, so readers never
 * block a runner and always see a committed state.
 */
export class RunReader {
	readonly project: Project;
	readonly files: ArtifactFiles;
	readonly #db: Db | null;
	readonly #queries: RunQueries | null;
	readonly #views: ViewQueries | null;
	readonly #metrics: MetricQueries | null;
	readonly #now: () => number;

	constructor(project: Project, options: { now?: () => number } = {}) {
		this.project = project;
		this.files = new ArtifactFiles(project.runsDir);
		this.#db = openReader(project.dbFile);
		this.#queries = this.#db ? new RunQueries(this.#db) : null;
		this.#views = this.#db ? new ViewQueries(this.#db) : null;
		this.#metrics = this.#db ? new MetricQueries(this.#db) : null;
		this.#now = options.now ?? Date.now;
	}

	close(): void {
		this.#db?.close();
	}

	#q(): RunQueries {
		if (!this.#queries) throw new CrewError(ErrorCode.NotFound, `no runs yet in ${this.project.root}`);
		return this.#queries;
	}

	#v(): ViewQueries {
		this.#q();
		return this.#views as ViewQueries;
	}

	#runId(runId: string | undefined): string {
		if (runId !== undefined) checkId("run", runId);
		const id = runId ?? this.#q().latestRunId();
		if (id === undefined) throw new CrewError(ErrorCode.NotFound, `no runs yet in ${this.project.root}`);
		return id;
	}

	/**
	 * A run (default: the most recently created) with its tasks in the order every view lists them
	 * (see `taskOrder`), as of one committed state.
	 */
	status(runId?: string): RunListing {
		const id = this.#runId(runId);
		const q = this.#q();
		return q.consistent(() => {
			const { run, tasks } = presentRun(q.snapshot(id), this.#now());
			const links = (this.#views as ViewQueries).links(id);
			return { run, tasks: taskOrder(tasks.map((t): ListedTask => ({ ...t, ...(links.get(t.id) ?? NO_LINKS) }))) };
		});
	}

	/**
	 * A run with its tasks as live views show them, in the order every view lists them (see
	 * `taskOrder`), as of one committed state.
	 */
	view(runId?: string): RunView {
		const { run, tasks, seq } = this.#changed(this.#runId(runId), -1);
		return { run, tasks: taskOrder(tasks), seq };
	}

	/**
	 * What changed in a run after event `afterSeq` (a `seq` of an earlier view), as of one
	 * committed state: the run, its tasks whose latest event came after it and its running ones
	 * (whose runner may be found gone without an event), in the order they joined; merge them into
	 * the earlier view with `mergeView`. After 0 it gives every task.
	 */
	changes(runId: string, afterSeq: number): RunChanges {
		checkId("run", runId);
		if (!Number.isSafeInteger(afterSeq) || afterSeq < 0) {
			throw new CrewError(ErrorCode.InvalidInput, `invalid seq ${afterSeq}: expected an integer >= 0`);
		}
		return this.#changed(runId, afterSeq);
	}

	#changed(id: string, since: number): RunChanges {
		const q = this.#q();
		const views = this.#v();
		return q.consistent(() => {
			const stored = q.getRun(id);
			const { run, tasks } = presentRun({ run: stored, tasks: views.changedTasks(id, since) }, this.#now());
			return { run, tasks, seq: views.lastSeq(id), usage: q.usage(id) };
		});
	}

	/** One task (by task id, or a step id naming one task) as the run's view shows it, with its run. */
	taskView(runId: string, ref: string): { run: RunRecord; task: TaskView } {
		checkId("run", runId);
		const q = this.#q();
		const views = this.#v();
		return q.consistent(() => {
			const stored = q.getRun(runId);
			const found = views.task(runId, q.findTask(runId, ref).id) as TaskView;
			const { run, tasks } = presentRun({ run: stored, tasks: [found] }, this.#now());
			return { run, task: tasks[0] as TaskView };
		});
	}

	/** A task's events after `afterSeq`, with the task as it is now. */
	taskEvents(runId: string, ref: string, afterSeq = 0): { task: TaskRecord; events: EventRecord[] } {
		checkId("run", runId);
		const q = this.#q();
		return q.consistent(() => {
			q.getRun(runId);
			const task = q.findTask(runId, ref);
			return { task, events: this.#v().taskEvents(runId, task.id, afterSeq) };
		});
	}

	/**
	 * The latest `limit` events of a task that make a line of its log (see `logEntry`), oldest
	 * first, read from its newest event back.
	 */
	taskLog(runId: string, taskId: string, limit: number): EventRecord[] {
		checkId("run", runId);
		const q = this.#q();
		const views = this.#v();
		if (limit <= 0) return [];
		return q.consistent(() => {
			const kept: EventRecord[] = [];
			let before = Number.MAX_SAFE_INTEGER;
			for (;;) {
				const page = views.taskEventsBefore(runId, taskId, before, Math.max(100, limit));
				for (const event of page) {
					if (logEntry(event)) kept.push(event);
					if (kept.length === limit) return kept.reverse();
				}
				const last = page.at(-1);
				if (!last || page.length < Math.max(100, limit)) return kept.reverse();
				before = last.seq;
			}
		});
	}

	/** A task's attempts, oldest first. */
	/** Run `runId`'s tasks as planned: each with its agent as resolved then. */
	taskSpecs(runId: string): TaskSpec[] {
		return this.#q().taskSpecs(this.#runId(runId));
	}

	taskAttempts(runId: string, taskId: string): AttemptRecord[] {
		checkId("run", runId);
		return this.#v().taskAttempts(runId, taskId);
	}

	/** The files a task produced, by path. */
	taskArtifacts(runId: string, taskId: string): ArtifactRecord[] {
		checkId("run", runId);
		return this.#v().taskArtifacts(runId, taskId);
	}

	/** The run's artifact at `path`, if it has one. */
	artifact(runId: string, path: string): ArtifactRecord | undefined {
		checkId("run", runId);
		return this.#q().artifact(runId, path);
	}

	/** A run without its tasks, as people see it. */
	/** Whole runs as rows, read through this reader's connection: what an export reads. */
	archive(): RunArchive {
		this.#q();
		return new RunArchive(this.#db as Db);
	}

	run(runId: string): RunRecord {
		const id = this.#runId(runId);
		return presentRun({ run: this.#q().getRun(id), tasks: [] }, this.#now()).run;
	}

	/**
	 * `crew status --json` of a run (default: the latest): `{"run": {id, status, goal, team,
	 * workflow, createdAt, updatedAt, usage, usageByRole, usageByModel}, "tasks": [{id, stepId,
	 * role, status, attempts, startedAt, finishedAt, error, usage}]}` with each usage as
	 * {inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens, costUsd, partial?} (by role and
	 * by model: an object of those by name; `partial: true` when a lower bound), counting every
	 * attempt however it ended, as of one committed state; tasks in the order every view lists them
	 * (see `taskOrder`). Scripts and the MCP server rely on it. `select` narrows the tasks listed,
	 * and the fields each has; the run part stays whole.
	 */
	statusJson(runId?: string, select: StatusSelection = {}): string {
		const id = this.#runId(runId);
		const q = this.#q();
		return q.consistent(() => {
			const stored = q.getRun(id);
			const run = presentRun({ run: stored, tasks: [] }, this.#now()).run;
			// A run whose tasks joined in the order views list them (most runs) is listed as it joined, which SQLite does fastest.
			const order = (this.#views as ViewQueries).reordered(id) ? this.#order(id) : undefined;
			const tasks = q.tasksJson(id, run.status !== stored.status, order, select);
			const usage = usageJson(q.usage(id));
			const by = q.usageBy(id);
			const usageByRole = usageByJson(by.role);
			const usageByModel = usageByJson(by.model);
			return `{"run":${JSON.stringify({ ...runSummary(run), usage, usageByRole, usageByModel })},"tasks":${tasks}}`;
		});
	}

	/** The ids of the run's tasks in the order views list them, or undefined when that is the order they joined in. */
	#order(runId: string): string[] | undefined {
		const joined = [...(this.#views as ViewQueries).links(runId)].map(([task, link]) => ({ id: task, ...link }));
		const ordered = taskOrder(joined);
		return ordered.every((t, i) => t === joined[i]) ? undefined : ordered.map((t) => t.id);
	}

	/**
	 * Counts over the whole store as people see them (a run whose runner is gone, and its running
	 * tasks, count as interrupted), with every finished task's duration in seconds.
	 */
	metrics(): StoredCounts & { readonly taskSeconds: readonly number[]; readonly scheduled: ScheduledCounts } {
		const q = this.#queries;
		const m = this.#metrics;
		if (!q || !m || !this.#db) {
			const scheduled = { started: 0, skipped: 0, now: 0, missed: 0 };
			return { runs: {}, tasks: {}, attempts: {}, usage: ZERO_USAGE, ready: 0, taskSeconds: [], scheduled };
		}
		const schedules = new ScheduleRecords(this.#db);
		return q.consistent(() => {
			const counts = m.counts();
			const runs = { ...counts.runs };
			const tasks = { ...counts.tasks };
			const move = (into: Record<string, number>, from: string, to: string, n: number) => {
				into[from] = (into[from] ?? 0) - n;
				into[to] = (into[to] ?? 0) + n;
			};
			const now = this.#now();
			for (const run of q.listRuns()) {
				if (presentRun({ run, tasks: [] }, now).run.status !== RunStatus.Interrupted) continue;
				if (run.status === RunStatus.Interrupted) continue;
				move(runs, run.status, RunStatus.Interrupted, 1);
				move(tasks, TaskStatus.Running, TaskStatus.Interrupted, m.runningTasks(run.id));
			}
			return { ...counts, runs, tasks, taskSeconds: m.taskDurations(), scheduled: schedules.counts() };
		});
	}

	/** The repository's schedules and their slots; none before the store exists. */
	schedules(): ScheduleRecords | undefined {
		return this.#db ? new ScheduleRecords(this.#db) : undefined;
	}

	/** A run's usage summed per role and per model. */
	usageBy(runId?: string): { role: Record<string, Usage>; model: Record<string, Usage> } {
		return this.#q().usageBy(this.#runId(runId));
	}

	/** Completed tasks of this repository's latest runs, for estimates; none before its first run. */
	taskHistory(): TaskSample[] {
		return this.#db ? new HistoryQueries(this.#db).samples() : [];
	}

	/**
	 * What this repository's runs of the last `days` UTC days (today's included) spent by day, and
	 * how each workflow, agent, model and step did (see `InsightQueries`); every day at zero before
	 * the first run.
	 */
	insights(days: number): Insights {
		const window = insightWindow(this.#now(), days);
		return this.#db ? new InsightQueries(this.#db).read(window) : noInsights(window);
	}

	/** A page of the runs as the runs page lists them (see `RunPages`), each run as people see it. */
	runPage(filter: RunFilter): { runs: PagedRun[]; total: number } {
		if (!this.#db) return { runs: [], total: 0 };
		const page = new RunPages(this.#db).page(filter);
		const now = this.#now();
		return { ...page, runs: page.runs.map((p) => ({ ...p, run: presentRun({ run: p.run, tasks: [] }, now).run })) };
	}

	/** The workflows and teams the runs name. */
	runChoices(): { workflows: string[]; teams: string[] } {
		return this.#db ? new RunPages(this.#db).choices() : { workflows: [], teams: [] };
	}

	runs(): RunRecord[] {
		if (!this.#queries) return [];
		return this.#queries.listRuns().map((run) => presentRun({ run, tasks: [] }, this.#now()).run);
	}

	events(runId: string, afterSeq = 0, limit?: number): EventRecord[] {
		checkId("run", runId);
		const q = this.#q();
		q.getRun(runId);
		return q.eventsAfter(runId, afterSeq, limit);
	}

	/** The seq of a run's latest event. */
	lastEventSeq(runId: string): number {
		checkId("run", runId);
		const seq = this.#q().lastSeq(runId);
		if (seq === undefined) throw new CrewError(ErrorCode.NotFound, `no run '${runId}' in this repository`);
		return seq;
	}

	/** Whether the run's latest runner stopped it for its budget (a resume with a larger one may not). */
	budgetStopped(runId: string): boolean {
		checkId("run", runId);
		return this.#q().budgetStopped(runId);
	}

	/** Notifications that failed after all their tries since `since` (an ISO time), oldest first; none before the store exists. */
	failedNotifications(since: string): FailedNotification[] {
		return this.#db ? failedNotifications(this.#db, since) : [];
	}

	/** The runs with a task left for a person (`needs_attention`); none before the store exists. */
	runsNeedingAttention(): ReadonlySet<string> {
		return this.#queries ? this.#queries.runsWithTasksIn(TaskStatus.NeedsAttention) : new Set();
	}

	/** The questions agents asked that wait for a person's answer, oldest first; none before the store exists. */
	waitingQuestions(): OpenQuestion[] {
		return this.#db ? waitingQuestions(this.#db) : [];
	}

	/** The mail of workflow scripts that waits for a reply, oldest first; none before the store exists. */
	waitingMail(): MailRow[] {
		return this.#db ? waitingMail(this.#db) : [];
	}

	/** Whether the store is there and sound: SQLite's quick check, the schema version and the run count. */
	health(): { file: string; exists: boolean; check: string; schemaVersion: number; runs: number } {
		const file = this.project.dbFile;
		if (!this.#db) return { file, exists: false, check: "not created yet", schemaVersion: 0, runs: 0 };
		const check = (this.#db.pragma("quick_check", { simple: true }) as string) ?? "no answer";
		const schemaVersion = this.#db.pragma("user_version", { simple: true }) as number;
		return { file, exists: true, check, schemaVersion, runs: this.#q().listRuns().length };
	}

	/** The files a run produced, by path. */
	artifacts(runId: string): ArtifactRecord[] {
		checkId("run", runId);
		return this.#q().artifacts(runId);
	}

	/** Every attempt of a run, oldest first. */
	attempts(runId: string): AttemptRecord[] {
		checkId("run", runId);
		return this.#q().attempts(runId);
	}

	/** A run's timeline (see `timeline`), as of one committed state. */
	timeline(runId: string): Timeline {
		const id = this.#runId(runId);
		const q = this.#q();
		return q.consistent(() => {
			const { run, tasks } = this.status(id);
			const events = q.eventsOfTypes(id, TIMELINE_EVENTS);
			return timeline({ run, tasks, attempts: q.attempts(id), events, now: this.#now() });
		});
	}

	/**
	 * What a workflow script returned, as JSON text (empty until it has returned). A run of a
	 * markdown workflow has no such result: its tasks each have theirs.
	 */
	scriptResult(runId: string): { status: RunStatus; error: string | null; text: string } {
		checkId("run", runId);
		const q = this.#q();
		const run = q.getRun(runId);
		if (!run.options.script) {
			throw new CrewError(
				ErrorCode.InvalidInput,
				`run ${runId} ran workflow ${run.workflow}, not a workflow script, so its results are its tasks': name one, e.g. crew result ${runId} <task>`,
			);
		}
		const has = q.artifact(runId, "result.json") !== undefined;
		return { status: run.status, error: run.error, text: has ? this.files.read(runId, "result.json") : "" };
	}

	/**
	 * The id of the only task of a run that has exactly one and is no workflow script (a one-agent
	 * run), whose result is then the run's; undefined for any other run.
	 */
	soleTask(runId: string): string | undefined {
		checkId("run", runId);
		const q = this.#q();
		return q.consistent(() => {
			const { run, tasks } = q.snapshot(runId);
			return !run.options.script && tasks.length === 1 ? tasks[0]?.id : undefined;
		});
	}

	/** A task's full result text (empty when it has none yet). */
	result(runId: string, ref: string): { task: TaskRecord; text: string } {
		checkId("run", runId);
		const q = this.#q();
		q.getRun(runId);
		const task = q.findTask(runId, ref);
		const name = `tasks/${task.id}/result.md`;
		const has = q.artifact(runId, name) !== undefined;
		return { task, text: has ? this.files.read(runId, name) : "" };
	}
}
