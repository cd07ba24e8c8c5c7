// The derived rows live views read (each task's latest change, activity and details), kept with every write.

import type { Statement } from "better-sqlite3";
import { activityLine, logEntry } from "../core/log-line.js";
import type { Db } from "./database.js";
import { reorderedSql } from "./reordered-sql.js";

/** Whether an event is what a task's last activity shows: a worker's event other than its usage. */
export function isActivity(type: string): boolean {
	return type.startsWith("worker.") && type !== "worker.usage";
}

// Who runs a task and what it waits for, from its stored spec.
const DETAILS = `SELECT run_id, task_id, spec ->> '$.agent.name', spec ->> '$.agent.runtime', spec ->> '$.agent.model',
	coalesce(spec -> '$.call.after', spec -> '$.dependsOn'), spec ->> '$.call.phase' FROM task_data`;

/**
 * The rows live views read, kept by the store's writes in the transaction of each change, so views
 * read neither the event log nor tasks' specs: on each task's row the seq of its latest event
 * (`changed_seq`), of its latest activity (`activity_seq`) and that activity as a line (`activity`,
 * null when the event makes no line); and each task's `task_details`. A change to a task made with
 * an event that does not name it is marked with `touch`.
 */
export class ViewRows {
	readonly #changed: Statement<[number, string, string]>;
	readonly #activity: Statement<[{ runId: string; taskId: string; seq: number; line: string | null }]>;
	readonly #touchAll: Statement<[number, string]>;
	readonly #details: Statement<[string, string]>;
	readonly #runDetails: Statement<[string]>;
	readonly #rebuild: Statement<[{ runId: string }]>;
	readonly #reordered: Statement<[{ runId: string; tasks: string | null }]>;

	constructor(db: Db) {
		this.#changed = db.prepare("UPDATE tasks SET changed_seq = ? WHERE run_id = ? AND id = ?");
		this.#activity = db.prepare(
			"UPDATE tasks SET changed_seq = @seq, activity_seq = @seq, activity = @line WHERE run_id = @runId AND id = @taskId",
		);
		this.#touchAll = db.prepare("UPDATE tasks SET changed_seq = ? WHERE run_id = ?");
		this.#details = db.prepare(`INSERT OR REPLACE INTO task_details ${DETAILS} WHERE run_id = ? AND task_id = ?`);
		this.#runDetails = db.prepare(`INSERT OR REPLACE INTO task_details ${DETAILS} WHERE run_id = ?`);
		this.#reordered = db.prepare(reorderedSql("@runId", "@tasks"));
		this.#rebuild = db.prepare(
			`UPDATE tasks SET changed_seq = (SELECT last_seq FROM runs WHERE id = @runId), activity = NULL,
				activity_seq = (SELECT max(seq) FROM events e INDEXED BY events_by_task
					WHERE e.run_id = @runId AND e.task_id = tasks.id AND e.type LIKE 'worker.%' AND e.type <> 'worker.usage')
			WHERE run_id = @runId`,
		);
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

	/** Event `seq` created the run: every task changed, their details come from their specs. */
	created(runId: string, seq: number): void {
		this.#touchAll.run(seq, runId);
		this.#runDetails.run(runId);
		this.#reordered.run({ runId, tasks: null });
	}

	/** Event `seq` wrote or changed these tasks' specs. */
	specs(runId: string, seq: number, taskIds: readonly string[]): void {
		for (const taskId of taskIds) {
			this.#changed.run(seq, runId, taskId);
			this.#details.run(runId, taskId);
		}
		this.#reordered.run({ runId, tasks: JSON.stringify(taskIds) });
	}

	/**
	 * Makes a run's view rows again from its events and specs, for a run whose rows came from
	 * elsewhere (an import); lines of activity are then read from their events.
	 */
	rebuild(runId: string): void {
		this.#rebuild.run({ runId });
		this.#runDetails.run(runId);
		this.#reordered.run({ runId, tasks: null });
	}
}
