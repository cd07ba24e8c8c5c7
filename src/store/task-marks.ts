import type { Statement } from "better-sqlite3";
import { activityLine, logEntry } from "../core/log-line.js";
import type { Db } from "./database.js";

/** Whether an event is what a task's last activity shows: a worker's event other than its usage. */
export function isActivity(type: string): boolean {
	return type.startsWith("worker.") && type !== "worker.usage";
}

/**
 * Keeps, on each task's row, the seq of its latest event (`changed_seq`), of its latest activity
 * (`activity_seq`) and that activity as a line (`activity`, null when the event makes no line),
 * written in the transaction of the event, so views read them instead of the event log. A change
 * to a task made with an event that does not name it is marked with `touch`.
 */
export class TaskMarks {
	readonly #changed: Statement<[number, string, string]>;
	readonly #activity: Statement<[{ runId: string; taskId: string; seq: number; line: string | null }]>;
	readonly #touchAll: Statement<[number, string]>;

	constructor(db: Db) {
		this.#changed = db.prepare("UPDATE tasks SET changed_seq = ? WHERE run_id = ? AND id = ?");
		this.#activity = db.prepare(
			"UPDATE tasks SET changed_seq = @seq, activity_seq = @seq, activity = @line WHERE run_id = @runId AND id = @taskId",
		);
		this.#touchAll = db.prepare("UPDATE tasks SET changed_seq = ? WHERE run_id = ?");
	}

	/** Event `seq` names task `taskId`. */
	event(runId: string, seq: number, taskId: string, event: { type: string; data: Record<string, unknown> }): void {
		if (!isActivity(event.type)) {
			this.#changed.run(seq, runId, taskId);
			return;
		}
		const entry = logEntry(event);
		this.#activity.run({ runId, taskId, seq, line: entry ? activityLine(entry) : null });
	}

	/** Event `seq` changed these tasks without naming them. */
	touch(runId: string, seq: number, taskIds: readonly string[]): void {
		for (const taskId of taskIds) this.#changed.run(seq, runId, taskId);
	}

	/** Event `seq` changed every task of the run. */
	touchAll(runId: string, seq: number): void {
		this.#touchAll.run(seq, runId);
	}
}
