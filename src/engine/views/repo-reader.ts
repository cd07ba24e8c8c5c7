// `RepoReader`: reads across a project's runs: lists, counts, schedules, what waits on people, health.

import type { RunRecord } from "../../core/records.js";
import type { TaskSample } from "../../core/run-estimate.js";
import { RunStatus, TaskStatus } from "../../core/status.js";
import { ZERO_USAGE } from "../../core/usage.js";
import type { Db } from "../../store/database.js";
import { HistoryQueries } from "../../store/history-queries.js";
import { InsightQueries, type Insights, insightWindow, noInsights } from "../../store/insight-queries.js";
import { MetricQueries, type StoredCounts } from "../../store/metric-queries.js";
import { type FailedNotification, failedNotifications } from "../../store/notification-records.js";
import { RunArchive } from "../../store/run-archive.js";
import { type PagedRun, type RunFilter, RunPages } from "../../store/run-pages.js";
import { type ScheduledCounts, ScheduleRecords } from "../../store/schedule-records.js";
import { type MailRow, waitingMail } from "../../store/script-mail.js";
import { type OpenQuestion, waitingQuestions } from "../../store/task-questions.js";
import type { ReadConnection } from "./read-connection.js";
import { presentRun } from "./run-view.js";

/**
 * Reads across all the runs of a project's store, through the connection of a `RunReader` (see
 * `RunReader.repo`), which closes it. Unlike a run's reads, which throw `NotFound` before the
 * store exists, most of these answer with nothing then.
 */
export class RepoReader {
	readonly #connection: ReadConnection;
	readonly #metrics: MetricQueries | null;
	readonly #now: () => number;

	constructor(connection: ReadConnection, now: () => number) {
		this.#connection = connection;
		this.#metrics = connection.db ? new MetricQueries(connection.db) : null;
		this.#now = now;
	}

	/** The latest runs (at most 1000), newest first, each as people see it; none before the store exists. */
	runs(): RunRecord[] {
		const q = this.#connection.queries;
		if (!q) return [];
		const now = this.#now();
		return q.listRuns().map((run) => this.#present(run, now));
	}

	/** A page of the runs as the runs page lists them (see `RunPages`), each run as people see it. */
	runPage(filter: RunFilter): { runs: PagedRun[]; total: number } {
		const db = this.#connection.db;
		if (!db) return { runs: [], total: 0 };
		const page = new RunPages(db).page(filter);
		const now = this.#now();
		return { ...page, runs: page.runs.map((p) => ({ ...p, run: this.#present(p.run, now) })) };
	}

	/**
	 * `run` as people see it; one whose runner is found gone is read again first, since a runner
	 * records its run's end before it exits, and that end may have come since `run` was read.
	 */
	#present(run: RunRecord, now: number): RunRecord {
		const shown = presentRun({ run, tasks: [] }, now).run;
		if (shown.status === run.status) return shown;
		const again = this.#connection.queries?.findRun(run.id) ?? run;
		return presentRun({ run: again, tasks: [] }, now).run;
	}

	/** The workflows and teams the runs name. */
	runChoices(): { workflows: string[]; teams: string[] } {
		const db = this.#connection.db;
		return db ? new RunPages(db).choices() : { workflows: [], teams: [] };
	}

	/**
	 * Counts over the whole store as people see them (a run whose runner is gone, and its running
	 * tasks, count as interrupted), with every finished task's duration in seconds.
	 */
	metrics(): StoredCounts & { readonly taskSeconds: readonly number[]; readonly scheduled: ScheduledCounts } {
		const { db, queries: q } = this.#connection;
		const m = this.#metrics;
		if (!q || !m || !db) {
			const scheduled = { started: 0, skipped: 0, now: 0, missed: 0 };
			return { runs: {}, tasks: {}, attempts: {}, usage: ZERO_USAGE, ready: 0, taskSeconds: [], scheduled };
		}
		const schedules = new ScheduleRecords(db);
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
		const db = this.#connection.db;
		return db ? new ScheduleRecords(db) : undefined;
	}

	/** Completed tasks of this repository's latest runs, for estimates; none before its first run. */
	taskHistory(): TaskSample[] {
		const db = this.#connection.db;
		return db ? new HistoryQueries(db).samples() : [];
	}

	/**
	 * What this repository's runs of the last `days` UTC days (today's included) spent by day, and
	 * how each workflow, agent, model and step did (see `InsightQueries`); every day at zero before
	 * the first run.
	 */
	insights(days: number): Insights {
		const window = insightWindow(this.#now(), days);
		const db = this.#connection.db;
		return db ? new InsightQueries(db).read(window) : noInsights(window);
	}

	/** Notifications that failed after all their tries since `since` (an ISO time), oldest first; none before the store exists. */
	failedNotifications(since: string): FailedNotification[] {
		const db = this.#connection.db;
		return db ? failedNotifications(db, since) : [];
	}

	/** The runs with a task left for a person (`needs_attention`); none before the store exists. */
	runsNeedingAttention(): ReadonlySet<string> {
		const q = this.#connection.queries;
		return q ? q.runsWithTasksIn(TaskStatus.NeedsAttention) : new Set();
	}

	/** The questions agents asked that wait for a person's answer, oldest first; none before the store exists. */
	waitingQuestions(): OpenQuestion[] {
		const db = this.#connection.db;
		return db ? waitingQuestions(db) : [];
	}

	/** The mail of workflow scripts that waits for a reply, oldest first; none before the store exists. */
	waitingMail(): MailRow[] {
		const db = this.#connection.db;
		return db ? waitingMail(db) : [];
	}

	/** Whether the store is there and sound: SQLite's quick check, the schema version and the run count. */
	health(): { file: string; exists: boolean; check: string; schemaVersion: number; runs: number } {
		const { project, db } = this.#connection;
		const file = project.dbFile;
		if (!db) return { file, exists: false, check: "not created yet", schemaVersion: 0, runs: 0 };
		const check = (db.pragma("quick_check", { simple: true }) as string) ?? "no answer";
		const schemaVersion = db.pragma("user_version", { simple: true }) as number;
		return { file, exists: true, check, schemaVersion, runs: this.#connection.runQueries().listRuns().length };
	}

	/** Whole runs as rows, read through this reader's connection: what an export reads. */
	archive(): RunArchive {
		this.#connection.runQueries();
		return new RunArchive(this.#connection.db as Db);
	}
}
