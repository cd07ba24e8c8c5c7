import type { Statement } from "better-sqlite3";
import { CrewError, ErrorCode } from "../core/errors.js";
import type { ArtifactRecord, AttemptRecord, EventRecord, RunRecord, TaskRecord, TaskSpec } from "../core/types.js";
import type { Db } from "./database.js";
import {
	type AttemptRow,
	type EventRow,
	type RunRow,
	type TaskRow,
	toAttempt,
	toEvent,
	toRun,
	toTask,
} from "./rows.js";

export interface RunSnapshot {
	readonly run: RunRecord;
	readonly tasks: readonly TaskRecord[];
}

const TASK_COLUMNS = "id, idx, step_id, role, status, attempts, started_at, finished_at, error, result_chars, usage";

/**
 * Reads of the run store. Works on a read-only connection; every multi-statement read runs in one
 * read transaction, so it sees a single committed state even while a runner writes.
 */
export class RunQueries {
	readonly #db: Db;
	readonly #run: Statement<[string], RunRow>;
	readonly #latest: Statement<[], { id: string }>;
	readonly #runs: Statement<[number], RunRow>;
	readonly #tasks: Statement<[string], TaskRow>;
	readonly #task: Statement<[string, string], TaskRow>;
	readonly #taskByStep: Statement<[string, string], TaskRow>;
	readonly #specs: Statement<[string], { id: string; spec: string }>;
	readonly #excerpt: Statement<[string, string], { result_excerpt: string | null; result_chars: number }>;
	readonly #events: Statement<[string, number, number], EventRow>;
	readonly #attempts: Statement<[string], AttemptRow>;
	readonly #liveAttempts: Statement<[string], AttemptRow>;
	readonly #artifacts: Statement<[string], ArtifactRow>;

	constructor(db: Db) {
		this.#db = db;
		this.#run = db.prepare("SELECT * FROM runs WHERE id = ?");
		this.#latest = db.prepare("SELECT id FROM runs ORDER BY rowid DESC LIMIT 1");
		this.#runs = db.prepare("SELECT * FROM runs ORDER BY rowid DESC LIMIT ?");
		this.#tasks = db.prepare(`SELECT ${TASK_COLUMNS} FROM tasks WHERE run_id = ? ORDER BY idx`);
		this.#task = db.prepare(`SELECT ${TASK_COLUMNS} FROM tasks WHERE run_id = ? AND id = ?`);
		this.#taskByStep = db.prepare(`SELECT ${TASK_COLUMNS} FROM tasks WHERE run_id = ? AND step_id = ? ORDER BY idx`);
		this.#specs = db.prepare("SELECT id, spec FROM tasks WHERE run_id = ? ORDER BY idx");
		this.#excerpt = db.prepare("SELECT result_excerpt, result_chars FROM tasks WHERE run_id = ? AND id = ?");
		this.#events = db.prepare("SELECT * FROM events WHERE run_id = ? AND seq > ? ORDER BY seq LIMIT ?");
		this.#attempts = db.prepare("SELECT * FROM attempts WHERE run_id = ? ORDER BY id");
		this.#liveAttempts = db.prepare("SELECT * FROM attempts WHERE run_id = ? AND status = 'running' ORDER BY id");
		this.#artifacts = db.prepare("SELECT * FROM artifacts WHERE run_id = ? ORDER BY path");
	}

	findRun(runId: string): RunRecord | undefined {
		const row = this.#run.get(runId);
		return row ? toRun(row) : undefined;
	}

	getRun(runId: string): RunRecord {
		const run = this.findRun(runId);
		if (!run) throw new CrewError(ErrorCode.NotFound, `no run '${runId}' in this repository`);
		return run;
	}

	latestRunId(): string | undefined {
		return this.#latest.get()?.id;
	}

	listRuns(limit = 1000): RunRecord[] {
		return this.#runs.all(limit).map(toRun);
	}

	listTasks(runId: string): TaskRecord[] {
		return this.#tasks.all(runId).map(toTask);
	}

	/** A run and all its tasks as of one committed state. */
	snapshot(runId: string): RunSnapshot {
		return this.#db.transaction(() => ({ run: this.getRun(runId), tasks: this.listTasks(runId) }))();
	}

	/** A task by task id, or by step id when that names exactly one task. */
	findTask(runId: string, ref: string): TaskRecord {
		const row = this.#task.get(runId, ref);
		if (row) return toTask(row);
		const bySteps = this.#taskByStep.all(runId, ref);
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
		return this.#specs.all(runId).map((row) => JSON.parse(row.spec) as TaskSpec);
	}

	resultExcerpt(runId: string, taskId: string): { excerpt: string; chars: number } {
		const row = this.#excerpt.get(runId, taskId);
		return { excerpt: row?.result_excerpt ?? "", chars: row?.result_chars ?? 0 };
	}

	eventsAfter(runId: string, afterSeq: number, limit = 10_000): EventRecord[] {
		return this.#events.all(runId, afterSeq, limit).map(toEvent);
	}

	attempts(runId: string): AttemptRecord[] {
		return this.#attempts.all(runId).map(toAttempt);
	}

	/** Attempts recorded as running: on a run without a live runner, their processes may be orphans. */
	liveAttempts(runId: string): AttemptRecord[] {
		return this.#liveAttempts.all(runId).map(toAttempt);
	}

	artifacts(runId: string): ArtifactRecord[] {
		return this.#artifacts.all(runId).map((row) => ({
			path: row.path,
			taskId: row.task_id,
			kind: row.kind,
			size: row.size,
			sha256: row.sha256,
			createdAt: row.created_at,
		}));
	}
}

interface ArtifactRow {
	path: string;
	task_id: string | null;
	kind: string;
	size: number;
	sha256: string;
	created_at: string;
}
