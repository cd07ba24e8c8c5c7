import type { Statement } from "better-sqlite3";
import { activityLine, logEntry } from "../core/log-line.js";
import type { ArtifactRecord, AttemptRecord, EventRecord, TaskView } from "../core/types.js";
import type { Db } from "./database.js";
import {
	type ArtifactRow,
	type AttemptRow,
	type EventRow,
	type TaskRow,
	toArtifact,
	toAttempt,
	toEvent,
	toTask,
} from "./rows.js";

/** Who runs a task and what it waits for, as live views show it. */
export interface TaskDetails {
	readonly agent: string;
	/** The runtime of its latest attempt, or the one its agent names before it has run. */
	readonly runtime: string;
	readonly model: string | null;
	/** What it waits for; for a script's task, the tasks the script had awaited before making it. */
	readonly dependsOn: readonly string[];
	readonly phase: string | null;
}

/** What places a task in a list, as `TaskDetails` gives it. */
export type TaskLinks = Pick<TaskDetails, "dependsOn" | "phase">;

interface LinksRow {
	id: string;
	depends_on: string | null;
	phase: string | null;
}

/** A task's row as live views read it: its status row, who runs it, what it waits for, its last activity. */
interface ViewRow extends TaskRow {
	agent: string | null;
	runtime: string | null;
	model: string | null;
	depends_on: string | null;
	phase: string | null;
	activity_type: string | null;
	activity_data: string | null;
}

// The latest attempt's runtime and model come through the (run_id, task_id, number) index; a
// task's last activity through the seq its row keeps (see TaskMarks).
const VIEW_SELECT = `SELECT t.id, t.idx, t.step_id, t.role, t.status, t.attempts, t.started_at, t.finished_at, t.error,
		t.result_chars, t.tokens_in, t.tokens_out, t.cache_read, t.cache_write, t.cost, t.usage_partial,
		d.spec ->> '$.agent.name' AS agent,
		coalesce((SELECT a.runtime FROM attempts a WHERE a.run_id = t.run_id AND a.task_id = t.id ORDER BY a.number DESC LIMIT 1),
			d.spec ->> '$.agent.runtime') AS runtime,
		coalesce((SELECT a.model FROM attempts a WHERE a.run_id = t.run_id AND a.task_id = t.id ORDER BY a.number DESC LIMIT 1),
			d.spec ->> '$.agent.model') AS model,
		coalesce(d.spec -> '$.call.after', d.spec -> '$.dependsOn') AS depends_on, d.spec ->> '$.call.phase' AS phase,
		e.type AS activity_type, e.data AS activity_data
	FROM tasks t JOIN task_data d ON d.run_id = t.run_id AND d.task_id = t.id
	LEFT JOIN events e ON e.run_id = t.run_id AND e.seq = t.activity_seq`;

function activityOf(row: ViewRow): string | null {
	if (row.activity_type === null) return null;
	const entry = logEntry({ type: row.activity_type, data: JSON.parse(row.activity_data ?? "{}") });
	return entry ? activityLine(entry) : null;
}

function toView(row: ViewRow): TaskView {
	return {
		...toTask(row),
		agent: row.agent ?? "",
		runtime: row.runtime ?? "",
		model: row.model,
		dependsOn: row.depends_on ? (JSON.parse(row.depends_on) as string[]) : [],
		phase: row.phase,
		activity: activityOf(row),
	};
}

/** Reads that live views (watch, logs, the dashboard) make of a run, beside its status rows. */
export class ViewQueries {
	readonly #changed: Statement<[{ runId: string; since: number }], ViewRow>;
	readonly #task: Statement<[{ runId: string; taskId: string }], ViewRow>;
	readonly #links: Statement<[{ runId: string }], LinksRow>;
	readonly #lastSeq: Statement<[string], number>;
	readonly #taskEvents: Statement<[string, string, number, number], EventRow>;
	readonly #taskEventsBefore: Statement<[string, string, number, number], EventRow>;
	readonly #taskAttempts: Statement<[string, string], AttemptRow>;
	readonly #taskArtifacts: Statement<[string, string], ArtifactRow>;

	constructor(db: Db) {
		this.#changed = db.prepare(
			`${VIEW_SELECT} WHERE t.run_id = @runId AND (t.changed_seq > @since OR t.status = 'running') ORDER BY t.idx`,
		);
		this.#task = db.prepare(`${VIEW_SELECT} WHERE t.run_id = @runId AND t.id = @taskId`);
		this.#links = db.prepare(
			`SELECT t.id, coalesce(d.spec -> '$.call.after', d.spec -> '$.dependsOn') AS depends_on,
				d.spec ->> '$.call.phase' AS phase
			FROM tasks t JOIN task_data d ON d.run_id = t.run_id AND d.task_id = t.id
			WHERE t.run_id = @runId ORDER BY t.idx`,
		);
		this.#lastSeq = db.prepare("SELECT last_seq FROM runs WHERE id = ?").pluck() as Statement<[string], number>;
		this.#taskEvents = db.prepare(
			"SELECT * FROM events WHERE run_id = ? AND task_id = ? AND seq > ? ORDER BY seq LIMIT ?",
		);
		this.#taskEventsBefore = db.prepare(
			"SELECT * FROM events WHERE run_id = ? AND task_id = ? AND seq < ? ORDER BY seq DESC LIMIT ?",
		);
		this.#taskAttempts = db.prepare("SELECT * FROM attempts WHERE run_id = ? AND task_id = ? ORDER BY number");
		this.#taskArtifacts = db.prepare("SELECT * FROM artifacts WHERE run_id = ? AND task_id = ? ORDER BY path");
	}

	/**
	 * The run's tasks whose latest event came after `since`, and its running tasks (whether their
	 * runner is alive shows without an event), in the order they joined the run. A negative
	 * `since` gives every task.
	 */
	changedTasks(runId: string, since: number): TaskView[] {
		return this.#changed.all({ runId, since }).map(toView);
	}

	/** One task of the run as `changedTasks` gives it, by task id. */
	task(runId: string, taskId: string): TaskView | undefined {
		const row = this.#task.get({ runId, taskId });
		return row ? toView(row) : undefined;
	}

	/** The seq of the run's latest event: what a view read now is as of. */
	lastSeq(runId: string): number {
		return this.#lastSeq.get(runId) ?? 0;
	}

	/** Each task's dependencies and phase, by task id in the order the tasks joined the run. */
	links(runId: string): Map<string, TaskLinks> {
		const byId = new Map<string, TaskLinks>();
		for (const row of this.#links.all({ runId })) {
			byId.set(row.id, {
				dependsOn: row.depends_on ? (JSON.parse(row.depends_on) as string[]) : [],
				phase: row.phase,
			});
		}
		return byId;
	}

	/** A task's events after `afterSeq`, oldest first. */
	taskEvents(runId: string, taskId: string, afterSeq: number, limit = 10_000): EventRecord[] {
		return this.#taskEvents.all(runId, taskId, afterSeq, limit).map(toEvent);
	}

	/** A task's events before `beforeSeq`, newest first. */
	taskEventsBefore(runId: string, taskId: string, beforeSeq: number, limit: number): EventRecord[] {
		return this.#taskEventsBefore.all(runId, taskId, beforeSeq, limit).map(toEvent);
	}

	/** A task's attempts, oldest first. */
	taskAttempts(runId: string, taskId: string): AttemptRecord[] {
		return this.#taskAttempts.all(runId, taskId).map(toAttempt);
	}

	/** The files a task produced, by path. */
	taskArtifacts(runId: string, taskId: string): ArtifactRecord[] {
		return this.#taskArtifacts.all(runId, taskId).map(toArtifact);
	}
}
