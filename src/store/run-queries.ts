// Reads of the run store: runs, tasks, events, attempts, artifacts and usage, on a read-only connection.

import type { Statement } from "better-sqlite3";
import { CrewError, ErrorCode } from "../core/errors.js";
import { once } from "../core/once.js";
import type { ArtifactRecord, AttemptRecord, EventRecord, RunRecord, TaskRecord } from "../core/records.js";
import { type RequirementRow, requirementRows, SPEC_EVENTS } from "../core/spec-coverage.js";
import { isTerminalTask, type RunStatus, type TaskStatus } from "../core/status.js";
import { type StatusSelection, TASK_JSON_FIELDS } from "../core/status-selection.js";
import type { TaskSpec } from "../core/types.js";
import type { Usage } from "../core/usage.js";
import { ZERO_USAGE } from "../core/usage.js";
import type { Db } from "./database.js";
import {
	type ArtifactRow,
	type AttemptRow,
	type EventRow,
	type RunRow,
	type TaskRow,
	taskFromArray,
	toArtifact,
	toAttempt,
	toEvent,
	toRun,
	toTask,
} from "./rows.js";
import { RunDelegations } from "./run-delegations.js";
import { type TasksJsonParams, tasksJsonSql } from "./tasks-json-sql.js";

export interface RunSnapshot {
	readonly run: RunRecord;
	readonly tasks: readonly TaskRecord[];
}

const TASK_COLUMNS =
	"id, idx, step_id, role, status, attempts, started_at, finished_at, error, result_chars, tokens_in, tokens_out, cache_read, cache_write, cost, usage_partial, sandbox, inherited, (SELECT origin FROM attempts a WHERE a.run_id = tasks.run_id AND a.task_id = tasks.id AND a.number = tasks.attempts), set_aside";

/** Usage summed in SQL, with `partial` 1 when any row summed is partial. */
type UsageRow = Omit<Usage, "partial"> & { partial: number | null };

function usageFrom({ partial, ...counts }: UsageRow): Usage {
	return { ...ZERO_USAGE, ...counts, ...(partial ? { partial: true } : {}) };
}

/**
 * Reads of the run store. Works on a read-only connection; every multi-statement read runs in one
 * read transaction, so it sees a single committed state even while a runner writes. Statements are
 * prepared at first use: a command needs few of them, and preparing all cost it more than its reads.
 */
export class RunQueries {
	readonly #db: Db;
	readonly #run: () => Statement<[string], RunRow>;
	readonly #latest: () => Statement<[], { id: string }>;
	readonly #lastSeq: () => Statement<[string], number>;
	readonly #runs: () => Statement<[number], RunRow>;
	readonly #runsWithStatus: () => Statement<[string], RunRow>;
	readonly #tasks: () => Statement<[string], unknown[]>;
	readonly #task: () => Statement<[string, string], TaskRow>;
	readonly #taskByStep: () => Statement<[string, string], TaskRow>;
	readonly #specs: () => Statement<[string], { spec: string }>;
	readonly #excerpt: () => Statement<[string, string], { result_excerpt: string | null; result_chars: number }>;
	readonly #events: () => Statement<[string, number, number], EventRow>;
	readonly #eventsOfTypes: () => Statement<[string, string], EventRow>;
	readonly #taskEventsOfTypes: () => Statement<[string, string, string], EventRow>;
	readonly #budgetStopped: () => Statement<[string, string], number>;
	readonly #attempts: () => Statement<[string], AttemptRow>;
	readonly #liveAttempts: () => Statement<[string], AttemptRow>;
	readonly #lastAttempt: () => Statement<[string, string], AttemptRow>;
	readonly #artifacts: () => Statement<[string], ArtifactRow>;
	readonly #artifact: () => Statement<[string, string], ArtifactRow>;
	readonly #tasksJson: () => Statement<[TasksJsonParams], string>;
	readonly #tasksJsonInOrder: () => Statement<[TasksJsonParams], string>;
	readonly #usage: () => Statement<[string], UsageRow>;
	readonly #evidence: () => Statement<[string, string], { evidence: string | null }>;
	readonly #approvedAt: () => Statement<[string, string], { approved_at: string | null }>;
	readonly #approvedWaiting: () => Statement<[string], { id: string }>;
	readonly #runsWithTasksIn: () => Statement<[string], string>;
	readonly #usageByRole: () => Statement<[string], UsageRow & { key: string }>;
	readonly #usageByModel: () => Statement<[string], UsageRow & { key: string }>;

	/** Runs delegated by the tasks of a run, and what they spent. */
	readonly delegations: RunDelegations;

	constructor(db: Db) {
		this.#db = db;
		this.delegations = new RunDelegations(db);
		this.#run = once(() => db.prepare("SELECT * FROM runs WHERE id = ?"));
		this.#latest = once(() => db.prepare("SELECT id FROM runs ORDER BY rowid DESC LIMIT 1"));
		this.#lastSeq = once(
			() => db.prepare("SELECT last_seq FROM runs WHERE id = ?").pluck() as Statement<[string], number>,
		);
		this.#runs = once(() => db.prepare("SELECT * FROM runs ORDER BY rowid DESC LIMIT ?"));
		this.#runsWithStatus = once(() =>
			db.prepare("SELECT * FROM runs WHERE status IN (SELECT value FROM json_each(?)) ORDER BY rowid DESC"),
		);
		// Rows as arrays: a run's status reads thousands of rows, and objects per row cost twice as much.
		this.#tasks = once(
			() =>
				db.prepare(`SELECT ${TASK_COLUMNS} FROM tasks WHERE run_id = ? ORDER BY idx`).raw(true) as Statement<
					[string],
					unknown[]
				>,
		);
		this.#task = once(() => db.prepare(`SELECT ${TASK_COLUMNS} FROM tasks WHERE run_id = ? AND id = ?`));
		this.#taskByStep = once(() =>
			db.prepare(`SELECT ${TASK_COLUMNS} FROM tasks WHERE run_id = ? AND step_id = ? ORDER BY idx`),
		);
		this.#specs = once(() =>
			db.prepare(
				"SELECT d.spec FROM tasks t JOIN task_data d ON d.run_id = t.run_id AND d.task_id = t.id WHERE t.run_id = ? ORDER BY t.idx",
			),
		);
		this.#excerpt = once(() =>
			db.prepare(
				"SELECT d.result_excerpt, t.result_chars FROM task_data d JOIN tasks t ON t.run_id = d.run_id AND t.id = d.task_id WHERE d.run_id = ? AND d.task_id = ?",
			),
		);
		this.#events = once(() => db.prepare("SELECT * FROM events WHERE run_id = ? AND seq > ? ORDER BY seq LIMIT ?"));
		this.#eventsOfTypes = once(() =>
			db.prepare("SELECT * FROM events WHERE run_id = ? AND type IN (SELECT value FROM json_each(?)) ORDER BY seq"),
		);
		this.#taskEventsOfTypes = once(() =>
			db.prepare(
				"SELECT * FROM events WHERE run_id = ? AND task_id = ? AND type IN (SELECT value FROM json_each(?)) ORDER BY seq",
			),
		);
		this.#budgetStopped = once(
			() =>
				db
					.prepare(
						`SELECT 1 FROM events WHERE run_id = ? AND type = 'budget.exhausted' AND seq > coalesce(
							(SELECT max(seq) FROM events WHERE run_id = ? AND type = 'run.running'), 0) LIMIT 1`,
					)
					.pluck() as Statement<[string, string], number>,
		);
		this.#evidence = once(() => db.prepare("SELECT evidence FROM task_data WHERE run_id = ? AND task_id = ?"));
		this.#approvedAt = once(() => db.prepare("SELECT approved_at FROM tasks WHERE run_id = ? AND id = ?"));
		this.#approvedWaiting = once(() =>
			db.prepare(
				"SELECT id FROM tasks WHERE run_id = ? AND status = 'waiting' AND approved_at IS NOT NULL ORDER BY idx",
			),
		);
		this.#runsWithTasksIn = once(
			() => db.prepare("SELECT DISTINCT run_id FROM tasks WHERE status = ?").pluck() as Statement<[string], string>,
		);
		this.#attempts = once(() => db.prepare("SELECT * FROM attempts WHERE run_id = ? ORDER BY id"));
		this.#liveAttempts = once(() =>
			db.prepare("SELECT * FROM attempts WHERE run_id = ? AND status = 'running' ORDER BY id"),
		);
		this.#lastAttempt = once(() =>
			db.prepare("SELECT * FROM attempts WHERE run_id = ? AND task_id = ? ORDER BY number DESC LIMIT 1"),
		);
		this.#artifacts = once(() => db.prepare("SELECT * FROM artifacts WHERE run_id = ? ORDER BY path"));
		this.#artifact = once(() => db.prepare("SELECT * FROM artifacts WHERE run_id = ? AND path = ?"));
		// A task's token columns are the sum of its attempts' usage, running ones' included: every
		// write of an attempt's usage changes them in the same transaction.
		const sums =
			"sum(input) AS input, sum(output) AS output, sum(cache_read) AS cacheRead, sum(cache_write) AS cacheWrite, sum(cost) AS cost, max(partial) AS partial";
		// Every attempt's usage counts under its task's role once: the roles' sums are the run's.
		this.#usage = once(() =>
			db.prepare(
				`SELECT coalesce(sum(input), 0) AS input, coalesce(sum(output), 0) AS output, coalesce(sum(cache_read), 0) AS cacheRead,
				coalesce(sum(cache_write), 0) AS cacheWrite, coalesce(sum(cost), 0) AS cost, max(partial) AS partial
			FROM usage_totals WHERE run_id = ? AND by = 'role'`,
			),
		);
		this.#usageByRole = once(() =>
			db.prepare(`SELECT key, ${sums} FROM usage_totals WHERE run_id = ? AND by = 'role' GROUP BY key ORDER BY key`),
		);
		// An attempt without a model (a command, a dry run) counts under its runtime's name.
		this.#usageByModel = once(() =>
			db.prepare(`SELECT key, ${sums} FROM usage_totals WHERE run_id = ? AND by = 'model' GROUP BY key ORDER BY key`),
		);
		this.#tasksJson = once(
			() => db.prepare(tasksJsonSql(TASK_JSON_FIELDS, false, false)).pluck() as Statement<[TasksJsonParams], string>,
		);
		this.#tasksJsonInOrder = once(
			() => db.prepare(tasksJsonSql(TASK_JSON_FIELDS, true, false)).pluck() as Statement<[TasksJsonParams], string>,
		);
	}

	findRun(runId: string): RunRecord | undefined {
		const row = this.#run().get(runId);
		return row ? toRun(row) : undefined;
	}

	getRun(runId: string): RunRecord {
		const run = this.findRun(runId);
		if (!run) throw new CrewError(ErrorCode.NotFound, `no run '${runId}' in this repository`);
		return run;
	}

	latestRunId(): string | undefined {
		return this.#latest().get()?.id;
	}

	/** Runs whose status is one of `statuses`, newest first. */
	runsWithStatus(statuses: readonly RunStatus[]): RunRecord[] {
		return this.#runsWithStatus().all(JSON.stringify(statuses)).map(toRun);
	}

	listRuns(limit = 1000): RunRecord[] {
		return this.#runs().all(limit).map(toRun);
	}

	listTasks(runId: string): TaskRecord[] {
		return this.#tasks().all(runId).map(taskFromArray);
	}

	/**
	 * The requirements of a run's specs as they stand (see `requirementRows`), as of one committed
	 * state. A run's events are read only when it may have specs: the specs frozen into a planned
	 * run's tasks are its first events (see `RunStore.createRun`); a script's calls name theirs later.
	 */
	requirements(runId: string): RequirementRow[] {
		return this.consistent(() => {
			const planned = this.eventsAfter(runId, 0, 1)[0]?.type.startsWith("spec.");
			if (!planned && this.getRun(runId).options.script === undefined) return [];
			const status = new Map(this.listTasks(runId).map((t) => [t.id, t.status]));
			const ended = (taskId: string) => {
				const now = status.get(taskId);
				return now !== undefined && isTerminalTask(now);
			};
			return requirementRows(this.eventsOfTypes(runId, SPEC_EVENTS), ended);
		});
	}

	/** A run and all its tasks as of one committed state. */
	snapshot(runId: string): RunSnapshot {
		return this.consistent(() => ({ run: this.getRun(runId), tasks: this.listTasks(runId) }));
	}

	/** Runs `read` in one read transaction, so all it reads comes from one committed state. */
	consistent<T>(read: () => T): T {
		return this.#db.transaction(read)();
	}

	/**
	 * A run's tasks as the JSON array of `crew status --json` (id, stepId, role, status, attempts,
	 * startedAt, finishedAt, error, usage), built by SQLite: on a large run this is several times
	 * cheaper than making an object per row. With `runnerGone`, running tasks read as interrupted.
	 * Tasks come in the order they joined the run, or as `order` lists their ids (those it leaves out
	 * are left out); `select` keeps only tasks of some statuses (as read) and only some fields.
	 */
	tasksJson(runId: string, runnerGone: boolean, order?: readonly string[], select: StatusSelection = {}): string {
		const params: TasksJsonParams = {
			runId,
			gone: runnerGone ? 1 : 0,
			...(order ? { order: JSON.stringify(order) } : {}),
			...(select.tasks ? { statuses: JSON.stringify(select.tasks) } : {}),
		};
		const statement =
			select.tasks || select.fields
				? (this.#db
						.prepare(tasksJsonSql(select.fields ?? TASK_JSON_FIELDS, order !== undefined, select.tasks !== undefined))
						.pluck() as Statement<[TasksJsonParams], string>)
				: order
					? this.#tasksJsonInOrder()
					: this.#tasksJson();
		return statement.get(params) ?? "[]";
	}

	/** Tokens and cost of all the run's attempts, whatever their end, running ones' reports so far included. */
	usage(runId: string): Usage {
		const row = this.#usage().get(runId);
		return row ? usageFrom(row) : ZERO_USAGE;
	}

	/** A run's usage summed per role and per model, by name. */
	usageBy(runId: string): { role: Record<string, Usage>; model: Record<string, Usage> } {
		const byKey = (rows: (UsageRow & { key: string })[]) =>
			Object.fromEntries(rows.map(({ key, ...usage }) => [key, usageFrom(usage)]));
		return { role: byKey(this.#usageByRole().all(runId)), model: byKey(this.#usageByModel().all(runId)) };
	}

	/** A task by task id, or by step id when that names exactly one task. */
	findTask(runId: string, ref: string): TaskRecord {
		const row = this.#task().get(runId, ref);
		if (row) return toTask(row);
		const bySteps = this.#taskByStep().all(runId, ref);
		if (bySteps.length === 1 && bySteps[0]) return toTask(bySteps[0]);
		if (bySteps.length > 1) {
			throw new CrewError(
				ErrorCode.InvalidInput,
				`step '${ref}' has ${bySteps.length} tasks in run ${runId}; name one: ${bySteps.map((t) => t.id).join(", ")}`,
			);
		}
		throw new CrewError(ErrorCode.NotFound, `run ${runId} has no task or step '${ref}'`);
	}

	taskSpecs(runId: string): TaskSpec[] {
		return this.#specs()
			.all(runId)
			.map((row) => JSON.parse(row.spec) as TaskSpec);
	}

	/** Whether the task's gate was approved. */
	isApproved(runId: string, taskId: string): boolean {
		return this.#approvedAt().get(runId, taskId)?.approved_at != null;
	}

	/** The run's waiting tasks that have been approved since. */
	approvedWaiting(runId: string): string[] {
		return this.#approvedWaiting()
			.all(runId)
			.map((row) => row.id);
	}

	/** What the task's last failed check printed, kept for its next attempt. */
	evidenceOf(runId: string, taskId: string): string | undefined {
		return this.#evidence().get(runId, taskId)?.evidence ?? undefined;
	}

	resultExcerpt(runId: string, taskId: string): { excerpt: string; chars: number } {
		const row = this.#excerpt().get(runId, taskId);
		return { excerpt: row?.result_excerpt ?? "", chars: row?.result_chars ?? 0 };
	}

	/** The seq of a run's latest event (0 before its first); undefined for an unknown run. */
	lastSeq(runId: string): number | undefined {
		return this.#lastSeq().get(runId);
	}

	eventsAfter(runId: string, afterSeq: number, limit = 10_000): EventRecord[] {
		return this.#events().all(runId, afterSeq, limit).map(toEvent);
	}

	/** The runs with a task in `status`. */
	runsWithTasksIn(status: TaskStatus): Set<string> {
		return new Set(this.#runsWithTasksIn().all(status));
	}

	/** Whether the run's latest runner stopped it for its budget: it spent it after it took the run. */
	budgetStopped(runId: string): boolean {
		return this.#budgetStopped().get(runId, runId) !== undefined;
	}

	/** Every event of the run of one of `types`, oldest first. */
	eventsOfTypes(runId: string, types: readonly string[]): EventRecord[] {
		return this.#eventsOfTypes().all(runId, JSON.stringify(types)).map(toEvent);
	}

	/** Every event of one task of the run of one of `types`, oldest first. */
	taskEventsOfTypes(runId: string, taskId: string, types: readonly string[]): EventRecord[] {
		return this.#taskEventsOfTypes().all(runId, taskId, JSON.stringify(types)).map(toEvent);
	}

	attempts(runId: string): AttemptRecord[] {
		return this.#attempts().all(runId).map(toAttempt);
	}

	/** The latest attempt of a task; undefined before its first. */
	lastAttempt(runId: string, taskId: string): AttemptRecord | undefined {
		const row = this.#lastAttempt().get(runId, taskId);
		return row && toAttempt(row);
	}

	/** Attempts recorded as running: on a run without a live runner, their processes may be orphans. */
	liveAttempts(runId: string): AttemptRecord[] {
		return this.#liveAttempts().all(runId).map(toAttempt);
	}

	/** The run's artifact at `path`, if it has one. */
	artifact(runId: string, path: string): ArtifactRecord | undefined {
		const row = this.#artifact().get(runId, path);
		return row ? toArtifact(row) : undefined;
	}

	artifacts(runId: string): ArtifactRecord[] {
		return this.#artifacts().all(runId).map(toArtifact);
	}
}
