// Reads that live views (watch, logs, the dashboard) make of a run's tasks, events, attempts and artifacts.

import type { Statement } from "better-sqlite3";
import { activityLine, logEntry } from "../core/log-line.js";
import { once } from "../core/once.js";
import type { ArtifactRecord, AttemptRecord, EventRecord, TaskView } from "../core/records.js";
import type { TaskStatus } from "../core/status.js";
import type { Db } from "./database.js";
import {
	type ArtifactRow,
	type AttemptRow,
	type EventRow,
	inheritedOf,
	sandboxOf,
	setAsideOf,
	toArtifact,
	toAttempt,
	toEvent,
	usageFromArray,
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

// A task's row as live views read it, as an array: its status row in the column order of `TaskRow`,
// then who runs it, what it waits for, and its last activity. The latest attempt is the one
// numbered as the task's attempt count. A task's activity line is on its row (see TaskMarks); one
// whose activity came before the row kept lines has only its seq, and its event is read for it.
const VIEW_SELECT = `SELECT t.id, t.idx, t.step_id, t.role, t.status, t.attempts, t.started_at, t.finished_at, t.error,
		t.result_chars, t.tokens_in, t.tokens_out, t.cache_read, t.cache_write, t.cost, t.usage_partial, t.sandbox,
		v.agent, coalesce(a.runtime, v.runtime), coalesce(a.model, v.model), v.depends_on, v.phase, t.activity,
		CASE WHEN t.activity IS NULL AND t.activity_seq IS NOT NULL THEN
			(SELECT json_array(e.type, e.data) FROM events e WHERE e.run_id = t.run_id AND e.seq = t.activity_seq) END,
		t.inherited, t.set_aside
	FROM tasks t LEFT JOIN task_details v ON v.run_id = t.run_id AND v.task_id = t.id
	LEFT JOIN attempts a ON a.run_id = t.run_id AND a.task_id = t.id AND a.number = t.attempts`;

function activityOf(line: unknown, event: unknown): string | null {
	if (typeof line === "string") return line;
	if (typeof event !== "string") return null;
	const [type, data] = JSON.parse(event) as [string, string];
	const entry = logEntry({ type, data: JSON.parse(data) as Record<string, unknown> });
	return entry ? activityLine(entry) : null;
}

/**
 * A task as views show it, from a raw row of `VIEW_SELECT`. Its task fields are listed one by one,
 * as `taskFromArray` lists them, rather than spread from it: spread, a view of 2,000 tasks took
 * twice as long (48 ms against 21 ms in bench/views.mjs).
 */
function toView(r: unknown[]): TaskView {
	const dependsOn = r[20] as string | null;
	return {
		id: r[0] as string,
		index: r[1] as number,
		stepId: r[2] as string,
		role: r[3] as string,
		status: r[4] as TaskStatus,
		attempts: r[5] as number,
		startedAt: r[6] as string | null,
		finishedAt: r[7] as string | null,
		error: r[8] as string | null,
		resultChars: r[9] as number,
		usage: usageFromArray(r),
		sandbox: sandboxOf(r[16] as string | null),
		agent: (r[17] as string | null) ?? "",
		runtime: (r[18] as string | null) ?? "",
		model: r[19] as string | null,
		dependsOn: dependsOn ? (JSON.parse(dependsOn) as string[]) : [],
		phase: r[21] as string | null,
		activity: activityOf(r[22], r[23]),
		inherited: inheritedOf(r[24] as string | null),
		setAside: setAsideOf(r[25] as string | null),
	};
}

/**
 * Reads that live views (watch, logs, the dashboard) make of a run, beside its status rows; each
 * statement is prepared at its first use, as RunQueries' are.
 */
export class ViewQueries {
	readonly #changed: () => Statement<[{ runId: string; since: number }], unknown[]>;
	readonly #task: () => Statement<[{ runId: string; taskId: string }], unknown[]>;
	readonly #links: () => Statement<[{ runId: string }], LinksRow>;
	readonly #lastSeq: () => Statement<[string], number>;
	readonly #reordered: () => Statement<[string], number>;
	readonly #taskEvents: () => Statement<[string, string, number, number], EventRow>;
	readonly #taskEventsBefore: () => Statement<[string, string, number, number], EventRow>;
	readonly #taskAttempts: () => Statement<[string, string], AttemptRow>;
	readonly #taskArtifacts: () => Statement<[string, string], ArtifactRow>;

	constructor(db: Db) {
		this.#changed = once(
			() =>
				db
					.prepare(
						`${VIEW_SELECT} WHERE t.run_id = @runId AND (t.changed_seq > @since OR t.status = 'running') ORDER BY t.idx`,
					)
					.raw(true) as Statement<[{ runId: string; since: number }], unknown[]>,
		);
		this.#task = once(
			() =>
				db.prepare(`${VIEW_SELECT} WHERE t.run_id = @runId AND t.id = @taskId`).raw(true) as Statement<
					[{ runId: string; taskId: string }],
					unknown[]
				>,
		);
		this.#links = once(() =>
			db.prepare(
				`SELECT t.id, v.depends_on, v.phase FROM tasks t LEFT JOIN task_details v ON v.run_id = t.run_id AND v.task_id = t.id
			WHERE t.run_id = @runId ORDER BY t.idx`,
			),
		);
		this.#lastSeq = once(
			() => db.prepare("SELECT last_seq FROM runs WHERE id = ?").pluck() as Statement<[string], number>,
		);
		this.#reordered = once(
			() => db.prepare("SELECT reordered FROM runs WHERE id = ?").pluck() as Statement<[string], number>,
		);
		// SQLite would rather walk the run's events in seq order than use the index by task.
		this.#taskEvents = once(() =>
			db.prepare(
				"SELECT * FROM events INDEXED BY events_by_task WHERE run_id = ? AND task_id = ? AND seq > ? ORDER BY seq LIMIT ?",
			),
		);
		this.#taskEventsBefore = once(() =>
			db.prepare(
				"SELECT * FROM events INDEXED BY events_by_task WHERE run_id = ? AND task_id = ? AND seq < ? ORDER BY seq DESC LIMIT ?",
			),
		);
		this.#taskAttempts = once(() =>
			db.prepare("SELECT * FROM attempts WHERE run_id = ? AND task_id = ? ORDER BY number"),
		);
		this.#taskArtifacts = once(() =>
			db.prepare("SELECT * FROM artifacts INDEXED BY artifacts_by_task WHERE run_id = ? AND task_id = ? ORDER BY path"),
		);
	}

	/**
	 * The run's tasks whose latest event came after `since`, and its running tasks (whether their
	 * runner is alive shows without an event), in the order they joined the run. A negative
	 * `since` gives every task.
	 */
	changedTasks(runId: string, since: number): TaskView[] {
		return this.#changed().all({ runId, since }).map(toView);
	}

	/** One task of the run as `changedTasks` gives it, by task id. */
	task(runId: string, taskId: string): TaskView | undefined {
		const row = this.#task().get({ runId, taskId });
		return row ? toView(row) : undefined;
	}

	/** The seq of the run's latest event: what a view read now is as of. */
	lastSeq(runId: string): number {
		return this.#lastSeq().get(runId) ?? 0;
	}

	/** Whether views may list the run's tasks in another order than they joined it in (see `reorderedSql`). */
	reordered(runId: string): boolean {
		return this.#reordered().get(runId) === 1;
	}

	/** Each task's dependencies and phase, by task id in the order the tasks joined the run. */
	links(runId: string): Map<string, TaskLinks> {
		const byId = new Map<string, TaskLinks>();
		for (const row of this.#links().all({ runId })) {
			byId.set(row.id, {
				dependsOn: row.depends_on ? (JSON.parse(row.depends_on) as string[]) : [],
				phase: row.phase,
			});
		}
		return byId;
	}

	/** A task's events after `afterSeq`, oldest first. */
	taskEvents(runId: string, taskId: string, afterSeq: number, limit = 10_000): EventRecord[] {
		return this.#taskEvents().all(runId, taskId, afterSeq, limit).map(toEvent);
	}

	/** A task's events before `beforeSeq`, newest first. */
	taskEventsBefore(runId: string, taskId: string, beforeSeq: number, limit: number): EventRecord[] {
		return this.#taskEventsBefore().all(runId, taskId, beforeSeq, limit).map(toEvent);
	}

	/** A task's attempts, oldest first. */
	taskAttempts(runId: string, taskId: string): AttemptRecord[] {
		return this.#taskAttempts().all(runId, taskId).map(toAttempt);
	}

	/** The files a task produced, by path. */
	taskArtifacts(runId: string, taskId: string): ArtifactRecord[] {
		return this.#taskArtifacts().all(runId, taskId).map(toArtifact);
	}
}
