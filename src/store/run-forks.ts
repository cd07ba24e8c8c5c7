// The store's record of a forked run: the run it forks and the tasks whose outcomes it takes from there.

import type { Statement } from "better-sqlite3";
import type { ArtifactRecord, InheritedOutcome } from "../core/records.js";
import { Cause, TaskStatus } from "../core/status.js";
import type { Db } from "./database.js";
import type { StoreWrites } from "./task-messages.js";

/** A task a forked run takes from the run it forks: its outcome, not run again. */
export interface Inheritance {
	/** The task's id, the same in both runs. */
	readonly taskId: string;
	readonly outcome: InheritedOutcome;
	readonly resultChars: number;
	readonly startedAt: string | null;
	readonly finishedAt: string | null;
	/** What dependents read of its result, and its files, already copied into the new run's folder. */
	readonly excerpt: string | null;
	readonly evidence: string | null;
	readonly artifacts: readonly ArtifactRecord[];
}

/** The store's writes, and a task's move, which a fork makes queued → completed. */
export interface ForkWrites extends StoreWrites {
	move(runId: string, taskId: string, to: TaskStatus, cause: Cause): void;
}

/** What a forked run records of the run it forks: the fork, and each task it takes the outcome of. */
export class RunForks {
	readonly #w: ForkWrites;
	readonly #forked: Statement<[string, string]>;
	readonly #task: Statement<[number, string | null, string | null, string, string, string]>;
	readonly #data: Statement<[string | null, string | null, string, string]>;
	readonly #artifact: Statement<[string, string, string | null, string, number, string, string]>;
	readonly #weighed: Statement<[string, string], { type: string; data: string }>;

	constructor(db: Db, writes: ForkWrites) {
		this.#w = writes;
		this.#forked = db.prepare("UPDATE runs SET forked_from = ? WHERE id = ?");
		this.#task = db.prepare(
			"UPDATE tasks SET result_chars = ?, started_at = ?, finished_at = ?, inherited = ? WHERE run_id = ? AND id = ?",
		);
		this.#data = db.prepare("UPDATE task_data SET result_excerpt = ?, evidence = ? WHERE run_id = ? AND task_id = ?");
		this.#artifact = db.prepare(
			"INSERT OR REPLACE INTO artifacts (run_id, path, task_id, kind, size, sha256, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
		);
		this.#weighed = db.prepare(
			"SELECT type, data FROM events WHERE run_id = ? AND task_id = ? AND type IN ('task.spec_gate', 'spec.checked') ORDER BY seq",
		);
	}

	/**
	 * Run `runId`, just created and not started, is a fork of `source`: its tasks of `taken` are
	 * completed with their outcomes there, each with a `task.completed` event of cause `inherit`,
	 * and what their answers cited of their specs and how their checks went, as they were there.
	 */
	record(runId: string, source: string, taken: readonly Inheritance[]): void {
		this.#w.write(() => {
			this.#forked.run(source, runId);
			for (const t of taken) {
				this.#w.move(runId, t.taskId, TaskStatus.Completed, Cause.Inherit);
				const outcome = JSON.stringify(t.outcome);
				this.#task.run(t.resultChars, t.startedAt, t.finishedAt, outcome, runId, t.taskId);
				this.#data.run(t.excerpt, t.evidence, runId, t.taskId);
				for (const a of t.artifacts) this.#artifact.run(runId, a.path, a.taskId, a.kind, a.size, a.sha256, a.createdAt);
				for (const e of this.#weighed.all(source, t.taskId)) this.#w.event(runId, e.type, t.taskId, JSON.parse(e.data));
			}
			const inherited = taken.map((t) => t.taskId);
			this.#w.event(runId, "run.forked", null, { from: source, inherited });
		});
	}
}
