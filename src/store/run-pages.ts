// Pages of the runs list, filtered, counted and summed in SQL: a page costs the same with 10 or 10,000 runs.

import type { Statement } from "better-sqlite3";
import type { RunRecord } from "../core/records.js";
import type { Db } from "./database.js";
import { type RunRow, toRun } from "./rows.js";

/** Most runs a list of them gives (newest first): every run of most stores. */
export const MOST_RUNS_LISTED = 1000;

/** Which runs a page shows: each filter given narrows it; `q` is a text its goal contains, any case. */
export interface RunFilter {
	readonly status?: string;
	readonly q?: string;
	readonly workflow?: string;
	readonly team?: string;
	readonly limit: number;
	readonly offset: number;
}

/** A run as the runs page lists it: its record, its tasks by outcome, and what it spent. */
export interface PagedRun {
	readonly run: RunRecord;
	readonly tasks: { readonly total: number; readonly completed: number; readonly failed: number };
	/** All tokens (input, output and cache) and the cost, in US dollars, of the run's own attempts. */
	readonly usage: { readonly tokens: number; readonly costUsd: number };
}

type Params = Record<"status" | "q" | "workflow" | "team", string | null> & { limit: number; offset: number };

type PageRow = RunRow & { total: number; completed: number; failed: number; tokens: number; cost: number };

const WHERE = `WHERE (@status IS NULL OR r.status = @status)
	AND (@q IS NULL OR instr(lower(r.goal), lower(@q)) > 0)
	AND (@workflow IS NULL OR r.workflow = @workflow)
	AND (@team IS NULL OR r.team = @team)`;

/** The runs of a filter, newest first, a page at a time, and how many match in all. */
export class RunPages {
	readonly #page: Statement<[Params], PageRow>;
	readonly #count: Statement<[Params], number>;
	readonly #choices: Statement<[], { kind: string; value: string }>;

	constructor(db: Db) {
		this.#page = db.prepare(`SELECT r.*,
	(SELECT count(*) FROM tasks t WHERE t.run_id = r.id) AS total,
	(SELECT count(*) FROM tasks t WHERE t.run_id = r.id AND t.status = 'completed') AS completed,
	(SELECT count(*) FROM tasks t WHERE t.run_id = r.id AND t.status = 'failed') AS failed,
	(SELECT coalesce(sum(input + output + cache_read + cache_write), 0) FROM usage_totals u WHERE u.run_id = r.id AND u.by = 'role') AS tokens,
	(SELECT coalesce(sum(cost), 0) FROM usage_totals u WHERE u.run_id = r.id AND u.by = 'role') AS cost
FROM runs r ${WHERE} ORDER BY r.rowid DESC LIMIT @limit OFFSET @offset`);
		this.#count = db.prepare(`SELECT count(*) FROM runs r ${WHERE}`).pluck() as Statement<[Params], number>;
		this.#choices = db.prepare(
			"SELECT DISTINCT 'workflow' AS kind, workflow AS value FROM runs UNION SELECT DISTINCT 'team', team FROM runs WHERE team IS NOT NULL ORDER BY 1, 2",
		);
	}

	page(filter: RunFilter): { runs: PagedRun[]; total: number } {
		const params: Params = {
			status: filter.status ?? null,
			q: filter.q ?? null,
			workflow: filter.workflow ?? null,
			team: filter.team ?? null,
			limit: filter.limit,
			offset: filter.offset,
		};
		const runs = this.#page.all(params).map((row) => ({
			run: toRun(row),
			tasks: { total: row.total, completed: row.completed, failed: row.failed },
			usage: { tokens: row.tokens, costUsd: row.cost },
		}));
		return { runs, total: this.#count.get(params) ?? 0 };
	}

	/** The workflows and teams the store's runs name, for the page's filters. */
	choices(): { workflows: string[]; teams: string[] } {
		const rows = this.#choices.all();
		const of = (kind: string) => rows.filter((r) => r.kind === kind).map((r) => r.value);
		return { workflows: of("workflow"), teams: of("team") };
	}
}
