// The prepared SQL statements behind the run store's writes.

import type { Statement } from "better-sqlite3";
import type { Db } from "./database.js";

type Untyped = Statement<unknown[], unknown>;

/** The statements of `RunStore`'s writes, prepared together when the store opens. */
export interface RunStatements {
	readonly epoch: Statement<[string], { epoch: number }>;
	readonly nextSeq: Untyped;
	readonly event: Untyped;
	readonly insertRun: Untyped;
	readonly insertTask: Untyped;
	readonly insertTaskData: Untyped;
	readonly nextIdx: Statement<[string], { next: number }>;
	readonly taskEvidence: Untyped;
	readonly setDependsOn: Untyped;
	/** Records a new run as delegated: parent run, task, attempt and delegation key, then its id. */
	readonly delegated: Statement<[string, string, number, string, string]>;
	readonly runStatus: Statement<[string], { status: string }>;
	readonly moveRun: Untyped;
	readonly takeLease: Untyped;
	readonly releaseLease: Untyped;
	readonly heartbeat: Untyped;
	readonly bumpEpoch: Untyped;
	readonly cancelRequest: Untyped;
	readonly setBudget: Untyped;
	readonly waitingTasks: Statement<[string], { id: string }>;
	readonly approveTasks: Untyped;
	readonly cancelRequested: Statement<[string], { cancel_requested: string | null }>;
	readonly taskStatus: Statement<[string, string], { status: string; attempts: number }>;
	readonly moveTask: Untyped;
	readonly startTask: Untyped;
	readonly taskResultChars: Untyped;
	readonly taskExcerpt: Untyped;
	readonly insertAttempt: Untyped;
	readonly attemptProcess: Untyped;
	readonly attemptConfined: Untyped;
	readonly attemptSession: Untyped;
	readonly attemptLeft: Untyped;
	readonly taskConfined: Untyped;
	readonly taskSetAside: Untyped;
	readonly finishAttempt: Untyped;
	readonly loseAttempt: Untyped;
	readonly loseAllAttempts: Untyped;
	readonly artifact: Untyped;
}

/** A task that waits for an answer to its question, not at its approval gate: approving passes it by. */
const NOT_ASKING = `NOT EXISTS (SELECT 1 FROM messages m WHERE m.run_id = tasks.run_id AND m.task_id = tasks.id
	AND m.kind = 'question' AND m.state IN ('asked', 'answered'))`;

export function runStatements(db: Db): RunStatements {
	return {
		epoch: db.prepare("SELECT epoch FROM runs WHERE id = ?") as Statement<[string], { epoch: number }>,
		nextSeq: db.prepare("UPDATE runs SET last_seq = last_seq + 1, updated_at = ? WHERE id = ? RETURNING last_seq"),
		event: db.prepare("INSERT INTO events (run_id, seq, time, type, task_id, data) VALUES (?, ?, ?, ?, ?, ?)"),
		insertRun: db.prepare(
			"INSERT INTO runs (id, goal, team, workflow, status, options, created_at, updated_at) VALUES (?, ?, ?, ?, 'queued', ?, ?, ?)",
		),
		insertTask: db.prepare(
			"INSERT INTO tasks (run_id, idx, id, step_id, role, status) VALUES (?, ?, ?, ?, ?, 'queued')",
		),
		insertTaskData: db.prepare("INSERT INTO task_data (run_id, task_id, spec) VALUES (?, ?, ?)"),
		nextIdx: db.prepare("SELECT coalesce(max(idx), -1) + 1 AS next FROM tasks WHERE run_id = ?") as Statement<
			[string],
			{ next: number }
		>,
		taskEvidence: db.prepare("UPDATE task_data SET evidence = ? WHERE run_id = ? AND task_id = ?"),
		setDependsOn: db.prepare(
			"UPDATE task_data SET spec = json_set(spec, '$.dependsOn', json(?)) WHERE run_id = ? AND task_id = ?",
		),
		delegated: db.prepare(
			"UPDATE runs SET parent_run = ?, parent_task = ?, parent_attempt = ?, delegation_key = ? WHERE id = ?",
		) as Statement<[string, string, number, string, string]>,
		runStatus: db.prepare("SELECT status FROM runs WHERE id = ?") as Statement<[string], { status: string }>,
		moveRun: db.prepare("UPDATE runs SET status = ?, updated_at = ?, finished_at = ?, error = ? WHERE id = ?"),
		takeLease: db.prepare(
			"UPDATE runs SET epoch = epoch + 1, lease_pid = ?, lease_host = ?, lease_start = ?, lease_heartbeat = ?, cancel_requested = NULL WHERE id = ? RETURNING epoch",
		),
		releaseLease: db.prepare(
			"UPDATE runs SET lease_pid = NULL, lease_host = NULL, lease_start = NULL, lease_heartbeat = NULL WHERE id = ?",
		),
		heartbeat: db.prepare("UPDATE runs SET lease_heartbeat = ? WHERE id = ? AND epoch = ?"),
		bumpEpoch: db.prepare("UPDATE runs SET epoch = epoch + 1 WHERE id = ?"),
		cancelRequest: db.prepare("UPDATE runs SET cancel_requested = ? WHERE id = ?"),
		setBudget: db.prepare("UPDATE runs SET options = json_set(options, '$.budget', json(?)) WHERE id = ?"),
		waitingTasks: db.prepare(
			`SELECT id FROM tasks WHERE run_id = ? AND status = 'waiting' AND approved_at IS NULL AND ${NOT_ASKING} ORDER BY idx`,
		) as Statement<[string], { id: string }>,
		approveTasks: db.prepare(
			`UPDATE tasks SET approved_at = ? WHERE run_id = ? AND status = 'waiting' AND approved_at IS NULL AND ${NOT_ASKING}`,
		),
		cancelRequested: db.prepare("SELECT cancel_requested FROM runs WHERE id = ?") as Statement<
			[string],
			{ cancel_requested: string | null }
		>,
		taskStatus: db.prepare("SELECT status, attempts FROM tasks WHERE run_id = ? AND id = ?") as Statement<
			[string, string],
			{ status: string; attempts: number }
		>,
		moveTask: db.prepare("UPDATE tasks SET status = ?, finished_at = ?, error = ? WHERE run_id = ? AND id = ?"),
		startTask: db.prepare(
			"UPDATE tasks SET status = 'running', attempts = attempts + 1, started_at = ?, finished_at = NULL, error = NULL, sandbox = ? WHERE run_id = ? AND id = ?",
		),
		taskResultChars: db.prepare("UPDATE tasks SET result_chars = ? WHERE run_id = ? AND id = ?"),
		taskExcerpt: db.prepare("UPDATE task_data SET result_excerpt = ? WHERE run_id = ? AND task_id = ?"),
		insertAttempt: db.prepare(
			"INSERT INTO attempts (run_id, task_id, number, epoch, runtime, model, status, started_at, sandbox) VALUES (?, ?, ?, ?, ?, ?, 'running', ?, ?)",
		),
		attemptProcess: db.prepare("UPDATE attempts SET pid = ?, pgid = ?, proc_start = ? WHERE id = ?"),
		attemptSession: db.prepare("UPDATE attempts SET session = ?, origin = coalesce(?, origin) WHERE id = ?"),
		attemptLeft: db.prepare("UPDATE attempts SET workspace_left = ? WHERE id = ?"),
		// What is told of how an attempt is confined, merged into its recorded sandbox.
		attemptConfined: db.prepare(
			"UPDATE attempts SET sandbox = json_patch(sandbox, json(?)) WHERE id = ? AND sandbox IS NOT NULL",
		),
		// The task shows its latest attempt's.
		taskConfined: db.prepare(
			"UPDATE tasks SET sandbox = json_patch(sandbox, json(?)) WHERE run_id = ? AND id = ? AND sandbox IS NOT NULL AND attempts = (SELECT number FROM attempts WHERE id = ?)",
		),
		taskSetAside: db.prepare(
			"UPDATE tasks SET set_aside = json_insert(coalesce(set_aside, '[]'), '$[#]', json(?)) WHERE run_id = ? AND id = ?",
		),
		finishAttempt: db.prepare(
			"UPDATE attempts SET status = ?, finished_at = ?, exit_code = ?, error = ?, retryable = ?, evidence = ? WHERE id = ?",
		),
		loseAttempt: db.prepare("UPDATE attempts SET status = 'lost', finished_at = ?, error = ? WHERE id = ?"),
		loseAllAttempts: db.prepare(
			"UPDATE attempts SET status = 'lost', finished_at = ?, error = ? WHERE run_id = ? AND status = 'running'",
		),
		artifact: db.prepare(
			"INSERT OR REPLACE INTO artifacts (run_id, path, task_id, kind, size, sha256, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
		),
	};
}
