// Steering messages for running agents, recorded from any process, delivered or refused by the run's runner.

import type { Statement } from "better-sqlite3";
import { CrewError, ErrorCode } from "../core/errors.js";
import { redact } from "../core/redact.js";
import type { Db } from "./database.js";
import type { Lease } from "./lease.js";

/** A message for a task's running agent, as recorded. */
export interface MessageRow {
	readonly id: number;
	readonly taskId: string;
	readonly text: string;
	/** `queued` until the runner gives it to the agent (`delivered`) or cannot (`refused`, `detail` says why). */
	readonly state: "queued" | "delivered" | "refused";
	readonly detail: string | null;
}

/** What the store lends these writes: its transactions, events, lease fence and clock. */
export interface StoreWrites {
	write<T>(fn: () => T): T;
	event(runId: string, type: string, taskId: string | null, data: Record<string, unknown>): number;
	fence(lease: Lease): void;
	/** Now, as an ISO time. */
	time(): string;
}

const COLUMNS = "id, task_id AS taskId, text, state, detail";

/** Steering messages for running agents, in the `messages` table, each with its events. */
export class TaskMessages {
	readonly #w: StoreWrites;
	readonly #taskStatus: Statement<[string, string], { status: string }>;
	readonly #insert: Statement<[string, string, string, string]>;
	readonly #settle: Statement<[string, string | null, number | null, string, number]>;
	readonly #queued: Statement<[string], MessageRow>;
	readonly #get: Statement<[number], MessageRow>;

	constructor(db: Db, writes: StoreWrites) {
		this.#w = writes;
		this.#taskStatus = db.prepare("SELECT status FROM tasks WHERE run_id = ? AND id = ?");
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

	/**
	 * Records a message for the running agent of task `taskId`, from any process, redacted: the
	 * run's runner gives it to the agent. A task that is not running is refused, naming its status.
	 */
	request(runId: string, taskId: string, text: string): number {
		return this.#w.write(() => {
			const row = this.#taskStatus.get(runId, taskId);
			if (!row) throw new CrewError(ErrorCode.NotFound, `run ${runId} has no task '${taskId}'`);
			if (row.status !== "running") {
				throw new CrewError(
					ErrorCode.Conflict,
					`task ${taskId} is ${row.status}: only a running task's agent can be steered`,
				);
			}
			const kept = redact(text);
			const id = Number(this.#insert.run(runId, taskId, kept, this.#w.time()).lastInsertRowid);
			this.#w.event(runId, "task.steered", taskId, { message: id, text: kept });
			return id;
		});
	}

	/** Records how message `id` went: given to the agent of `attempt` (its record and number), or refused and why. */
	settle(
		lease: Lease,
		id: number,
		outcome: { attempt?: { readonly id: number; readonly number: number }; refused?: string },
	): void {
		this.#w.write(() => {
			this.#w.fence(lease);
			const message = this.#get.get(id);
			const state = outcome.refused === undefined ? "delivered" : "refused";
			const detail = outcome.refused ?? null;
			const { attempt } = outcome;
			if (!message || this.#settle.run(state, detail, attempt?.id ?? null, this.#w.time(), id).changes === 0) return;
			this.#w.event(lease.runId, `task.steer.${state}`, message.taskId, {
				message: id,
				...(attempt ? { attempt: attempt.number } : {}),
				...(detail !== null ? { reason: detail } : {}),
			});
		});
	}

	/** The run's messages not yet given to an agent, oldest first. */
	queued(runId: string): MessageRow[] {
		return this.#queued.all(runId);
	}

	get(id: number): MessageRow | undefined {
		return this.#get.get(id);
	}
}
