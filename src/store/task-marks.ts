import type { Statement } from "better-sqlite3";
import type { Db } from "./database.js";

/** Whether an event is what a task's last activity shows: a worker's event other than its usage. */
export function isActivity(type: string): boolean {
	return type.startsWith("worker.") && type !== "worker.usage";
}

/**
 * Keeps, on each task's row, the seq of its latest event (`changed_seq`) and of its latest activity
 * (`activity_seq`), written in the transaction of the event, so views read them instead of the
 * event log. A change to a task made with an event that does not name it is marked with `touch`.
 */
export class TaskMarks {
	readonly #event: Statement<[{ runId: string; taskId: string; seq: number; activity: number }]>;
	readonly #touch: Statement<[number, string, string]>;
	readonly #touchAll: Statement<[number, string]>;

	constructor(db: Db) {
		this.#event = db.prepare(
			`UPDATE tasks SET changed_seq = @seq, activity_seq = CASE WHEN @activity THEN @seq ELSE activity_seq END
			WHERE run_id = @runId AND id = @taskId`,
		);
		this.#touch = db.prepare("UPDATE tasks SET changed_seq = ? WHERE run_id = ? AND id = ?");
		this.#touchAll = db.prepare("UPDATE tasks SET changed_seq = ? WHERE run_id = ?");
	}

	/** Event `seq` of `type` names task `taskId`. */
	event(runId: string, seq: number, type: string, taskId: string): void {
		this.#event.run({ runId, taskId, seq, activity: isActivity(type) ? 1 : 0 });
	}

	/** Event `seq` changed these tasks without naming them. */
	touch(runId: string, seq: number, taskIds: readonly string[]): void {
		for (const taskId of taskIds) this.#touch.run(seq, runId, taskId);
	}

	/** Event `seq` changed every task of the run. */
	touchAll(runId: string, seq: number): void {
		this.#touchAll.run(seq, runId);
	}
}
