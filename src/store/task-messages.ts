import type { Statement } from "better-sqlite3";
import type { Db } from "./database.js";

/** A message for a task's running agent, as recorded. */
export interface MessageRow {
	readonly id: number;
	readonly taskId: string;
	readonly text: string;
	/** `queued` until the runner gives it to the agent (`delivered`) or cannot (`refused`, `detail` says why). */
	readonly state: "queued" | "delivered" | "refused";
	readonly detail: string | null;
}

const COLUMNS = "id, task_id AS taskId, text, state, detail";

/** The `messages` table's statements: steering messages for running agents. */
export class TaskMessages {
	readonly #insert: Statement<[string, string, string, string]>;
	readonly #settle: Statement<[string, string | null, number | null, string, number]>;
	readonly #queued: Statement<[string], MessageRow>;
	readonly #get: Statement<[number], MessageRow>;

	constructor(db: Db) {
		this.#insert = db.prepare(
			"INSERT INTO messages (run_id, task_id, kind, text, state, created_at) VALUES (?, ?, 'steer', ?, 'queued', ?)",
		);
		this.#settle = db.prepare(
			"UPDATE messages SET state = ?, detail = ?, attempt_id = ?, settled_at = ? WHERE id = ? AND state = 'queued'",
		);
		this.#queued = db.prepare(
			`SELECT ${COLUMNS} FROM messages WHERE run_id = ? AND state = 'queued' AND kind = 'steer' ORDER BY id`,
		);
		this.#get = db.prepare(`SELECT ${COLUMNS} FROM messages WHERE id = ?`);
	}

	add(runId: string, taskId: string, text: string, time: string): number {
		return Number(this.#insert.run(runId, taskId, text, time).lastInsertRowid);
	}

	/** Records how a queued message went; false when it was no longer queued. */
	settle(
		id: number,
		state: "delivered" | "refused",
		detail: string | null,
		attemptId: number | null,
		time: string,
	): boolean {
		return this.#settle.run(state, detail, attemptId, time, id).changes > 0;
	}

	/** The run's messages not yet given to an agent, oldest first. */
	queued(runId: string): MessageRow[] {
		return this.#queued.all(runId);
	}

	get(id: number): MessageRow | undefined {
		return this.#get.get(id);
	}
}
