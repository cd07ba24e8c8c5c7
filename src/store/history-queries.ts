// Past runs' completed tasks: the samples a new run's estimate of tokens, cost and time is made from.

import type { Statement } from "better-sqlite3";
import type { TaskSample } from "../core/run-estimate.js";
import { SPEC_CHECK_FAILURE } from "../core/spec-contract.js";
import type { Db } from "./database.js";

/** Past runs an estimate reads at most: the latest, so a changed team or model soon shows. */
export const HISTORY_RUNS = 50;

type SampleRow = Omit<TaskSample, "finishedAt"> & { finishedAt: string };

/**
 * This repository's history, as SQL conditions on a `runs` row and a `tasks` row, each given by
 * its alias: the runs made here (not imported, nor in a store copied from elsewhere, nor replays,
 * whose tasks are answered from the run they replay, nor dry runs, which started no agent), and of their tasks those that ran in them
 * (not a fork's reused ones, which ran, and spent, in the run they came from).
 */
export const historyScope = {
	runs: (alias: string) =>
		`${alias}.imported_at IS NULL AND ${alias}.options ->> '$.replay' IS NULL AND ${alias}.options ->> '$.runtime' IS NOT 'dry-run'`,
	tasks: (alias: string) => `${alias}.inherited IS NULL`,
} as const;

/**
 * The history a run's estimate reads: completed tasks of the store's latest runs made here
 * (imported runs and runs of a copied store come from elsewhere). A task's tokens and cost are
 * those of all its attempts; its duration is its last attempt's, the one that completed. Tasks
 * whose usage is a lower bound say nothing reliable and are left out, as are a fork's reused
 * tasks and a replay's: they ran in the run they came from, which has its own sample of them. Every read walks an index:
 * the latest runs by rowid, their tasks and task data by primary key (CROSS JOIN keeps that order,
 * where the planner might otherwise scan every task of the store).
 */
export class HistoryQueries {
	readonly #samples: Statement<[number], SampleRow>;

	constructor(db: Db) {
		this.#samples = db.prepare(
			`WITH recent AS (SELECT r.id, r.workflow FROM runs r WHERE ${historyScope.runs("r")} ORDER BY r.rowid DESC LIMIT ?)
			SELECT r.id AS runId, r.workflow, t.id AS taskId, t.step_id AS stepId,
				d.spec ->> '$.agent.name' AS agent, d.spec ->> '$.agent.model' AS model,
				(SELECT a.runtime FROM attempts a WHERE a.run_id = t.run_id AND a.task_id = t.id ORDER BY a.number DESC LIMIT 1) AS runtime,
				d.spec ->> '$.plannedBy' AS plannedBy,
				t.tokens_in + t.tokens_out + t.cache_read + t.cache_write AS tokens, t.cost AS costUsd,
				(julianday(t.finished_at) - julianday(t.started_at)) * 86400000 AS durationMs, t.finished_at AS finishedAt,
				(SELECT count(*) FROM attempts a WHERE a.run_id = t.run_id AND a.task_id = t.id
					AND a.error LIKE '${SPEC_CHECK_FAILURE}%') AS specCheckFailures
			FROM recent r
			CROSS JOIN tasks t ON t.run_id = r.id
			CROSS JOIN task_data d ON d.run_id = t.run_id AND d.task_id = t.id
			WHERE t.status = 'completed' AND t.usage_partial = 0 AND t.started_at IS NOT NULL AND t.finished_at IS NOT NULL
				AND ${historyScope.tasks("t")}`,
		);
	}

	/** Completed tasks of the latest `runs` runs made here. */
	samples(runs = HISTORY_RUNS): TaskSample[] {
		return this.#samples.all(runs).map((row) => ({
			...row,
			model: row.model ?? null,
			plannedBy: row.plannedBy ?? null,
			durationMs: Math.max(0, Math.round(row.durationMs)),
			finishedAt: Date.parse(row.finishedAt),
		}));
	}
}
