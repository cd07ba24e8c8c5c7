import type { Statement } from "better-sqlite3";
import type { EventRecord } from "../core/types.js";
import type { Db } from "./database.js";
import { type EventRow, toEvent } from "./rows.js";

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

interface DetailsRow {
	id: string;
	agent: string | null;
	runtime: string | null;
	model: string | null;
	depends_on: string | null;
	phase: string | null;
}

/** Reads that live views (watch, logs, the dashboard) make of a run, beside its status rows. */
export class ViewQueries {
	readonly #details: Statement<[{ runId: string }], DetailsRow>;
	readonly #links: Statement<[{ runId: string }], LinksRow>;
	readonly #lastActivity: Statement<[{ runId: string }], EventRow>;
	readonly #taskEvents: Statement<[string, string, number, number], EventRow>;

	constructor(db: Db) {
		// SQLite takes a bare column of a max() aggregate from the row holding the max: the latest attempt.
		this.#details = db.prepare(
			`SELECT t.id, d.spec ->> '$.agent.name' AS agent,
				coalesce(a.runtime, d.spec ->> '$.agent.runtime') AS runtime,
				coalesce(a.model, d.spec ->> '$.agent.model') AS model,
				coalesce(d.spec -> '$.call.after', d.spec -> '$.dependsOn') AS depends_on, d.spec ->> '$.call.phase' AS phase
			FROM tasks t JOIN task_data d ON d.run_id = t.run_id AND d.task_id = t.id
			LEFT JOIN (SELECT task_id, runtime, model, max(number) FROM attempts WHERE run_id = @runId GROUP BY task_id) a
				ON a.task_id = t.id
			WHERE t.run_id = @runId ORDER BY t.idx`,
		);
		this.#links = db.prepare(
			`SELECT t.id, coalesce(d.spec -> '$.call.after', d.spec -> '$.dependsOn') AS depends_on,
				d.spec ->> '$.call.phase' AS phase
			FROM tasks t JOIN task_data d ON d.run_id = t.run_id AND d.task_id = t.id
			WHERE t.run_id = @runId ORDER BY t.idx`,
		);
		this.#lastActivity = db.prepare(
			`SELECT * FROM events WHERE run_id = @runId AND seq IN (
				SELECT max(seq) FROM events
				WHERE run_id = @runId AND task_id IS NOT NULL AND type LIKE 'worker.%' AND type <> 'worker.usage'
				GROUP BY task_id)`,
		);
		this.#taskEvents = db.prepare(
			"SELECT * FROM events WHERE run_id = ? AND task_id = ? AND seq > ? ORDER BY seq LIMIT ?",
		);
	}

	/** Each task's agent, runtime, model and dependencies, by task id. */
	details(runId: string): Map<string, TaskDetails> {
		const byId = new Map<string, TaskDetails>();
		for (const row of this.#details.all({ runId })) {
			byId.set(row.id, {
				agent: row.agent ?? "",
				runtime: row.runtime ?? "",
				model: row.model,
				dependsOn: row.depends_on ? (JSON.parse(row.depends_on) as string[]) : [],
				phase: row.phase,
			});
		}
		return byId;
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

	/** Each task's latest worker event other than usage, by task id. */
	lastActivity(runId: string): Map<string, EventRecord> {
		return new Map(this.#lastActivity.all({ runId }).map((row) => [row.task_id ?? "", toEvent(row)]));
	}

	/** A task's events after `afterSeq`, oldest first. */
	taskEvents(runId: string, taskId: string, afterSeq: number, limit = 10_000): EventRecord[] {
		return this.#taskEvents.all(runId, taskId, afterSeq, limit).map(toEvent);
	}
}
