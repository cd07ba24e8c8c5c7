// Attempts' token and cost usage, and its sums per task, role and model, kept up to date with every report.

import type { Statement } from "better-sqlite3";
import { addUsage, settledUsage, type Usage, usageOver, withPartial, ZERO_USAGE } from "../core/usage.js";
import type { Db } from "./database.js";
import { usageTotalsOf } from "./migrations.js";
import { usageOf } from "./rows.js";

type Change = Omit<Usage, "partial"> & { runId: string; taskId: string; attemptId: number; partial: number };

/**
 * Attempts' usage and its sums, written inside the run store's transactions. A task's token
 * columns are the sum of its attempts' usage, running attempts' included, and the task is partial
 * while any of its attempts is; a run's `usage_totals` sum them by its tasks' roles and by its
 * attempts' models, each with the count of partial attempts in it: every change of an attempt's
 * usage changes them with it, so reading a run's usage reads a few rows.
 */
export class UsageRecords {
	readonly #get: Statement<[number], { usage: string | null }>;
	readonly #set: Statement<[string, number]>;
	readonly #task: Statement<[Change]>;
	readonly #byRole: Statement<[Change]>;
	readonly #byModel: Statement<[Change]>;
	readonly #role: Statement<[string, string]>;
	readonly #rebuild: readonly Statement<[{ runId: string }]>[];
	readonly #clear: Statement<[string]>;

	constructor(db: Db) {
		this.#get = db.prepare("SELECT usage FROM attempts WHERE id = ?");
		this.#set = db.prepare("UPDATE attempts SET usage = ? WHERE id = ?");
		this.#task = db.prepare(
			`UPDATE tasks SET tokens_in = tokens_in + @input, tokens_out = tokens_out + @output,
				cache_read = cache_read + @cacheRead, cache_write = cache_write + @cacheWrite, cost = cost + @cost,
				usage_partial = EXISTS (SELECT 1 FROM attempts WHERE run_id = @runId AND task_id = @taskId AND usage ->> '$.partial')
			WHERE run_id = @runId AND id = @taskId`,
		);
		const add = (key: string) =>
			db.prepare(
				`INSERT INTO usage_totals (run_id, by, key, input, output, cache_read, cache_write, cost, partial)
				VALUES (@runId, ${key}, @input, @output, @cacheRead, @cacheWrite, @cost, @partial)
				ON CONFLICT (run_id, by, key) DO UPDATE SET input = input + excluded.input, output = output + excluded.output,
					cache_read = cache_read + excluded.cache_read, cache_write = cache_write + excluded.cache_write,
					cost = cost + excluded.cost, partial = partial + excluded.partial`,
			);
		this.#byRole = add("'role', (SELECT role FROM tasks WHERE run_id = @runId AND id = @taskId)");
		this.#byModel = add("'model', (SELECT coalesce(model, runtime) FROM attempts WHERE id = @attemptId)");
		this.#role = db.prepare("INSERT OR IGNORE INTO usage_totals (run_id, by, key) VALUES (?, 'role', ?)");
		this.#rebuild = usageTotalsOf("(SELECT @runId AS id)").map((sql) => db.prepare(sql));
		this.#clear = db.prepare("DELETE FROM usage_totals WHERE run_id = ?");
	}

	/** Counts a task's role in its run's usage, used or not: called as the task joins the run. */
	role(runId: string, role: string): void {
		this.#role.run(runId, role);
	}

	/** Makes a run's usage totals again from its tasks and attempts: for a run moved in from elsewhere. */
	rebuild(runId: string): void {
		this.#clear.run(runId);
		for (const statement of this.#rebuild) statement.run({ runId });
	}

	/** Adds a report to the attempt's usage; partial, after it, as the report says. */
	report(runId: string, taskId: string, attemptId: number, usage: Usage): void {
		const recorded = this.#of(attemptId);
		const reported = recorded ?? ZERO_USAGE;
		this.#move(runId, taskId, attemptId, recorded, withPartial(addUsage(reported, usage), usage.partial === true));
	}

	/** Ends the attempt's usage as `settledUsage` says, from `total` if its runtime gave one; returns what that added. */
	settle(runId: string, taskId: string, attemptId: number, total: Usage | undefined): Usage {
		const recorded = this.#of(attemptId);
		const reported = recorded ?? ZERO_USAGE;
		const final = settledUsage(reported, total);
		this.#move(runId, taskId, attemptId, recorded, final);
		return usageOver(final, reported);
	}

	/** The attempt's usage as recorded; null before its first report. */
	#of(attemptId: number): Usage | null {
		const usage = this.#get.get(attemptId)?.usage ?? null;
		return usage === null ? null : usageOf(usage);
	}

	/**
	 * Moves an attempt's usage from `from` (its record; null when it had none) to `to`, never less;
	 * its sums grow by the difference. A move of nothing writes only the attempt, and its model's
	 * row when it is the attempt's first: a run of instant tasks pays for no sums.
	 */
	#move(runId: string, taskId: string, attemptId: number, from: Usage | null, to: Usage): void {
		this.#set.run(JSON.stringify(to), attemptId);
		const { input, output, cacheRead, cacheWrite, cost } = usageOver(to, from ?? ZERO_USAGE);
		const partial = Number(to.partial === true) - Number(from?.partial === true);
		const change = { input, output, cacheRead, cacheWrite, cost, partial, runId, taskId, attemptId };
		const moved = input !== 0 || output !== 0 || cacheRead !== 0 || cacheWrite !== 0 || cost !== 0 || partial !== 0;
		if (moved) {
			this.#task.run(change);
			this.#byRole.run(change);
		}
		if (moved || from === null) this.#byModel.run(change);
	}
}
