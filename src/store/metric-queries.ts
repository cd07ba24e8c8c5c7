// Store-wide counts and task durations that the `/metrics` endpoint reads.

import type { Statement } from "better-sqlite3";
import { once } from "../core/once.js";
import type { Usage } from "../core/usage.js";
import type { Db } from "./database.js";

/** Counts over every run of the store, as stored, for `/metrics`. */
export interface StoredCounts {
	readonly runs: Readonly<Record<string, number>>;
	readonly tasks: Readonly<Record<string, number>>;
	readonly attempts: Readonly<Record<string, number>>;
	readonly usage: Usage;
	/** Queued tasks of running runs whose dependencies have all completed: waiting for a free slot. */
	readonly ready: number;
}

type CountRow = { status: string; n: number };

function byStatus(rows: readonly CountRow[]): Record<string, number> {
	return Object.fromEntries(rows.map((r) => [r.status, r.n]));
}

/** Reads the metrics endpoint makes of the whole store, each prepared at its first use. */
export class MetricQueries {
	readonly #runs: () => Statement<[], CountRow>;
	readonly #tasks: () => Statement<[], CountRow>;
	readonly #attempts: () => Statement<[], CountRow>;
	readonly #usage: () => Statement<[], Usage>;
	readonly #ready: () => Statement<[], number>;
	readonly #durations: () => Statement<[], number>;
	readonly #running: () => Statement<[string], number>;

	constructor(db: Db) {
		this.#runs = once(() => db.prepare("SELECT status, count(*) AS n FROM runs GROUP BY status"));
		this.#tasks = once(() => db.prepare("SELECT status, count(*) AS n FROM tasks GROUP BY status"));
		this.#attempts = once(() => db.prepare("SELECT status, count(*) AS n FROM attempts GROUP BY status"));
		this.#usage = once(() =>
			db.prepare(
				"SELECT coalesce(sum(tokens_in), 0) AS input, coalesce(sum(tokens_out), 0) AS output, coalesce(sum(cache_read), 0) AS cacheRead, coalesce(sum(cache_write), 0) AS cacheWrite, coalesce(sum(cost), 0) AS cost FROM tasks",
			),
		);
		this.#ready = once(
			() =>
				db
					.prepare(
						`SELECT count(*) FROM tasks t
				JOIN runs r ON r.id = t.run_id
				JOIN task_data d ON d.run_id = t.run_id AND d.task_id = t.id
				WHERE r.status = 'running' AND t.status = 'queued' AND NOT EXISTS (
					SELECT 1 FROM json_each(d.spec, '$.dependsOn') j
					JOIN tasks u ON u.run_id = t.run_id AND u.id = j.value
					WHERE u.status <> 'completed')`,
					)
					.pluck() as Statement<[], number>,
		);
		this.#durations = once(
			() =>
				db
					.prepare(
						`SELECT (julianday(t.finished_at) - julianday(t.started_at)) * 86400 FROM tasks t JOIN runs r ON r.id = t.run_id
						WHERE t.started_at IS NOT NULL AND t.finished_at IS NOT NULL AND t.inherited IS NULL AND r.options ->> '$.replay' IS NULL`,
					)
					.pluck() as Statement<[], number>,
		);
		this.#running = once(
			() =>
				db.prepare("SELECT count(*) FROM tasks WHERE run_id = ? AND status = 'running'").pluck() as Statement<
					[string],
					number
				>,
		);
	}

	counts(): StoredCounts {
		return {
			runs: byStatus(this.#runs().all()),
			tasks: byStatus(this.#tasks().all()),
			attempts: byStatus(this.#attempts().all()),
			usage: this.#usage().get() as Usage,
			ready: this.#ready().get() ?? 0,
		};
	}

	/** Wall time of every task that has started and finished here (not a fork's reused one nor a replay's, timed in their run), in seconds. */
	taskDurations(): number[] {
		return this.#durations().all();
	}

	/** How many of a run's tasks are recorded as running. */
	runningTasks(runId: string): number {
		return this.#running().get(runId) ?? 0;
	}
}
