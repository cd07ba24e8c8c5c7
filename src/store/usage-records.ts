import type { Statement } from "better-sqlite3";
import { addUsage, type Usage } from "../core/types.js";
import { settledUsage, usageOver, withPartial } from "../core/usage.js";
import type { Db } from "./database.js";
import { usageOf } from "./rows.js";

/**
 * Attempts' usage and their tasks' sums, written inside the run store's transactions. A task's
 * token columns are the sum of its attempts' usage, running attempts' included, and the task is
 * partial while any of its attempts is: every change of an attempt's usage changes them with it.
 */
export class UsageRecords {
	readonly #get: Statement<[number], { usage: string | null }>;
	readonly #set: Statement<[string, number]>;
	readonly #task: Statement<[Omit<Usage, "partial"> & { runId: string; taskId: string }]>;

	constructor(db: Db) {
		this.#get = db.prepare("SELECT usage FROM attempts WHERE id = ?");
		this.#set = db.prepare("UPDATE attempts SET usage = ? WHERE id = ?");
		this.#task = db.prepare(
			`UPDATE tasks SET tokens_in = tokens_in + @input, tokens_out = tokens_out + @output,
				cache_read = cache_read + @cacheRead, cache_write = cache_write + @cacheWrite, cost = cost + @cost,
				usage_partial = EXISTS (SELECT 1 FROM attempts WHERE run_id = @runId AND task_id = @taskId AND usage ->> '$.partial')
			WHERE run_id = @runId AND id = @taskId`,
		);
	}

	/** Adds a report to the attempt's usage; partial, after it, as the report says. */
	report(runId: string, taskId: string, attemptId: number, usage: Usage): void {
		const reported = this.#of(attemptId);
		this.#move(runId, taskId, attemptId, reported, withPartial(addUsage(reported, usage), usage.partial === true));
	}

	/** Ends the attempt's usage as `settledUsage` says, from `total` if its runtime gave one; returns what that added. */
	settle(runId: string, taskId: string, attemptId: number, total: Usage | undefined): Usage {
		const reported = this.#of(attemptId);
		const final = settledUsage(reported, total);
		this.#move(runId, taskId, attemptId, reported, final);
		return usageOver(final, reported);
	}

	#of(attemptId: number): Usage {
		return usageOf(this.#get.get(attemptId)?.usage ?? null);
	}

	/** Moves an attempt's usage from `from` (its record) to `to`, never less; its task's grow by the difference. */
	#move(runId: string, taskId: string, attemptId: number, from: Usage, to: Usage): void {
		this.#set.run(JSON.stringify(to), attemptId);
		const { input, output, cacheRead, cacheWrite, cost } = usageOver(to, from);
		this.#task.run({ input, output, cacheRead, cacheWrite, cost, runId, taskId });
	}
}
