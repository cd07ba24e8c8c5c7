// The store's record of delegated runs: each one's parent attempt, a run's children, and what they spent.

import type { Statement } from "better-sqlite3";
import { once } from "../core/once.js";
import { type Usage, ZERO_USAGE } from "../core/usage.js";
import type { Db } from "./database.js";

/** A run delegated from a task, as its parent lists it. */
export interface ChildRun {
	readonly runId: string;
	readonly taskId: string;
	readonly attempt: number;
	readonly status: string;
	readonly goal: string;
	readonly workflow: string;
	readonly error: string | null;
	/** What it and its own children spent. */
	readonly usage: Usage;
}

const SUMS =
	"coalesce(sum(input), 0) AS input, coalesce(sum(output), 0) AS output, coalesce(sum(cache_read), 0) AS cacheRead, coalesce(sum(cache_write), 0) AS cacheWrite, coalesce(sum(cost), 0) AS cost";
/** Runs below `:root` (its children, theirs, and on), each with the child of the root it descends from. */
const BELOW = `WITH RECURSIVE below(id, top) AS (
	SELECT id, id FROM runs WHERE parent_run = @root
	UNION ALL SELECT r.id, b.top FROM runs r JOIN below b ON r.parent_run = b.id)`;

type UsageRow = Omit<Usage, "partial">;
type ChildRow = UsageRow & {
	id: string;
	parent_task: string;
	parent_attempt: number;
	status: string;
	goal: string;
	workflow: string;
	error: string | null;
};

/** Reads of delegated runs: a run's children with what each spent, and what every run below it spent. */
export class RunDelegations {
	readonly #found: () => Statement<[string, string, string], { id: string }>;
	readonly #children: () => Statement<{ root: string }, ChildRow>;
	readonly #nested: () => Statement<{ root: string }, UsageRow>;
	readonly #nestedBy: () => Statement<{ root: string }, UsageRow & { by: string; key: string }>;

	constructor(db: Db) {
		this.#found = once(() =>
			db.prepare(
				"SELECT id FROM runs WHERE parent_run = ? AND parent_task = ? AND delegation_key = ? ORDER BY rowid DESC LIMIT 1",
			),
		);
		this.#children = once(() =>
			db.prepare(`${BELOW}
SELECT r.id, r.parent_task, r.parent_attempt, r.status, r.goal, r.workflow, r.error, ${SUMS}
FROM runs r LEFT JOIN below b ON b.top = r.id LEFT JOIN usage_totals u ON u.run_id = b.id AND u.by = 'role'
WHERE r.parent_run = @root GROUP BY r.id ORDER BY r.rowid`),
		);
		this.#nested = once(() =>
			db.prepare(`${BELOW} SELECT ${SUMS} FROM usage_totals WHERE by = 'role' AND run_id IN (SELECT id FROM below)`),
		);
		this.#nestedBy = once(() =>
			db.prepare(
				`${BELOW} SELECT by, key, ${SUMS} FROM usage_totals WHERE run_id IN (SELECT id FROM below) GROUP BY by, key ORDER BY key`,
			),
		);
	}

	/** What every run below run `runId` spent, by role and by model, each by name. */
	nestedBy(runId: string): { role: Record<string, Usage>; model: Record<string, Usage> } {
		const by: { role: Record<string, Usage>; model: Record<string, Usage> } = { role: {}, model: {} };
		for (const { by: kind, key, ...usage } of this.#nestedBy().all({ root: runId })) {
			if (kind === "role" || kind === "model") by[kind][key] = usage;
		}
		return by;
	}

	/** The newest run task `taskId` of run `runId` delegated asking what `key` names, if any. */
	find(runId: string, taskId: string, key: string): string | undefined {
		return this.#found().get(runId, taskId, key)?.id;
	}

	/** The runs the tasks of run `runId` delegated, oldest first, each with what it and its own children spent. */
	children(runId: string): ChildRun[] {
		return this.#children()
			.all({ root: runId })
			.map(({ id, parent_task, parent_attempt, status, goal, workflow, error, ...usage }) => ({
				runId: id,
				taskId: parent_task,
				attempt: parent_attempt,
				status,
				goal,
				workflow,
				error,
				usage,
			}));
	}

	/** What every run below run `runId` spent: its children, theirs, and on. */
	nested(runId: string): Usage {
		return this.#nested().get({ root: runId }) ?? ZERO_USAGE;
	}
}
