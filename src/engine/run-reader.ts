import type { Project } from "../config/project.js";
import { CrewError, ErrorCode } from "../core/errors.js";
import { checkId } from "../core/ids.js";
import { RunStatus, TaskStatus } from "../core/status.js";
import type { EventRecord, RunRecord, TaskRecord } from "../core/types.js";
import { ArtifactFiles } from "../store/artifact-files.js";
import { type Db, openReader } from "../store/database.js";
import { isLeaseHolderAlive } from "../store/lease.js";
import { RunQueries, type RunSnapshot } from "../store/run-queries.js";

/** When a runner on another host counts as gone without a heartbeat, in ms. */
export const DEFAULT_STALE_AFTER_MS = 30_000;

/**
 * How a run reads to people: a run whose runner is gone is `interrupted`, and so are the tasks it
 * was running, even before anyone resumes or reconciles it.
 */
export function presentRun(snapshot: RunSnapshot, now: number, staleAfterMs = DEFAULT_STALE_AFTER_MS): RunSnapshot {
	const { run } = snapshot;
	const active = run.status === RunStatus.Running || run.status === RunStatus.Waiting;
	if (!active || !run.lease || isLeaseHolderAlive(run.lease, now, staleAfterMs)) return snapshot;
	return {
		run: { ...run, status: RunStatus.Interrupted, error: run.error ?? `runner pid ${run.lease.pid} is gone` },
		tasks: snapshot.tasks.map((t) =>
			t.status === TaskStatus.Running ? { ...t, status: TaskStatus.Interrupted, error: "its runner is gone" } : t,
		),
	};
}

/**
 * Read-only access to the runs of a project, through a read-only connection, so readers never
 * block a runner and always see a committed state.
 */
export class RunReader {
	readonly project: Project;
	readonly files: ArtifactFiles;
	readonly #db: Db | null;
	readonly #queries: RunQueries | null;
	readonly #now: () => number;

	constructor(project: Project, options: { now?: () => number } = {}) {
		this.project = project;
		this.files = new ArtifactFiles(project.runsDir);
		this.#db = openReader(project.dbFile);
		this.#queries = this.#db ? new RunQueries(this.#db) : null;
		this.#now = options.now ?? Date.now;
	}

	close(): void {
		this.#db?.close();
	}

	#q(): RunQueries {
		if (!this.#queries) throw new CrewError(ErrorCode.NotFound, `no runs yet in ${this.project.root}`);
		return this.#queries;
	}

	/** A run (default: the most recently created) with its tasks, as of one committed state. */
	status(runId?: string): RunSnapshot {
		if (runId !== undefined) checkId("run", runId);
		const q = this.#q();
		const id = runId ?? q.latestRunId();
		if (id === undefined) throw new CrewError(ErrorCode.NotFound, `no runs yet in ${this.project.root}`);
		return presentRun(q.snapshot(id), this.#now());
	}

	runs(): RunRecord[] {
		if (!this.#queries) return [];
		return this.#queries.listRuns().map((run) => presentRun({ run, tasks: [] }, this.#now()).run);
	}

	events(runId: string, afterSeq = 0, limit?: number): EventRecord[] {
		checkId("run", runId);
		const q = this.#q();
		q.getRun(runId);
		return q.eventsAfter(runId, afterSeq, limit);
	}

	/** A task's full result text (empty when it has none yet). */
	result(runId: string, ref: string): { task: TaskRecord; text: string } {
		checkId("run", runId);
		const q = this.#q();
		q.getRun(runId);
		const task = q.findTask(runId, ref);
		const name = `tasks/${task.id}/result.md`;
		const has = q.artifacts(runId).some((a) => a.path === name);
		return { task, text: has ? this.files.read(runId, name) : "" };
	}
}
