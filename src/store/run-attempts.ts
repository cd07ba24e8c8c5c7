// The store's records of task attempts: started, their process and network, usage reported, how each ended.

import { CrewError, ErrorCode } from "../core/errors.js";
import type {
	ArtifactRecord,
	AttemptRecord,
	AttemptSandboxRecord,
	ProcessHandle,
	SetAside,
	SetAsideRecord,
} from "../core/records.js";
import { redact, redactOptional } from "../core/redact.js";
import type { AgentSession, SessionOrigin } from "../core/session.js";
import { checkTaskTransition, type TaskStatus } from "../core/status.js";
import type { Usage } from "../core/usage.js";
import type { Lease } from "./lease.js";
import type { Settlement, TaskChange } from "./run-changes.js";
import type { RunStatements } from "./run-statements.js";
import type { StoreWrites } from "./task-messages.js";
import type { UsageRecords } from "./usage-records.js";

/** The store's writes, a task's move, and an artifact's record: what an attempt's records need. */
export interface AttemptWrites extends StoreWrites {
	move(runId: string, change: TaskChange): void;
	artifact(runId: string, artifact: ArtifactRecord): void;
}

/**
 * A task's attempts as the store records them: started, their process and network, the usage
 * they report, and how each ends; each one transaction, fenced by the runner's lease.
 */
export class RunAttempts {
	readonly #w: AttemptWrites;
	readonly #s: RunStatements;
	readonly #usage: UsageRecords;

	constructor(writes: AttemptWrites, statements: RunStatements, usage: UsageRecords) {
		this.#w = writes;
		this.#s = statements;
		this.#usage = usage;
	}

	/** Records a task's new attempt and marks the task running; `model` is the one the attempt asks for. */
	start(
		lease: Lease,
		taskId: string,
		runtime: string,
		model?: string,
		sandbox: AttemptRecord["sandbox"] = null,
	): { id: number; number: number } {
		return this.#w.write(() => {
			this.#w.fence(lease);
			const row = this.#s.taskStatus.get(lease.runId, taskId);
			if (!row) throw new CrewError(ErrorCode.NotFound, `run ${lease.runId} has no task '${taskId}'`);
			checkTaskTransition(taskId, row.status as TaskStatus, "running", "dispatch");
			const time = this.#w.time();
			this.#s.startTask.run(time, sandbox && JSON.stringify(sandbox), lease.runId, taskId);
			const number = row.attempts + 1;
			const id = Number(
				this.#s.insertAttempt.run(
					lease.runId,
					taskId,
					number,
					lease.epoch,
					runtime,
					model ?? null,
					time,
					sandbox && JSON.stringify(sandbox),
				).lastInsertRowid,
			);
			const data = { attempt: number, runtime, ...(model ? { model } : {}), ...(sandbox ? { sandbox } : {}) };
			this.#w.event(lease.runId, "task.running", taskId, data);
			return { id, number };
		});
	}

	process(lease: Lease, attemptId: number, handle: ProcessHandle): void {
		this.#w.write(() => {
			this.#w.fence(lease);
			this.#s.attemptProcess.run(handle.pid, handle.pgid, handle.startTime, attemptId);
		});
	}

	/**
	 * Records the attempt's agent session and, when its runtime says, how it began (continued or
	 * started over, and why), with a `task.session` event that logs show.
	 */
	session(
		lease: Lease,
		attempt: { readonly id: number; readonly number: number; readonly taskId: string },
		session: AgentSession,
		origin: SessionOrigin | undefined,
	): void {
		this.#w.write(() => {
			this.#w.fence(lease);
			this.#s.attemptSession.run(JSON.stringify(session), origin ? JSON.stringify(origin) : null, attempt.id);
			this.#w.event(lease.runId, "task.session", attempt.taskId, {
				attempt: attempt.number,
				cli: session.cli,
				...(session.id ? { id: session.id } : {}),
				...origin,
			});
		});
	}

	/** Records the shared workspace as attempt `attemptId` left it, for a later attempt to compare. */
	left(lease: Lease, attemptId: number, fingerprint: string): void {
		this.#w.write(() => {
			this.#w.fence(lease);
			this.#s.attemptLeft.run(fingerprint, attemptId);
		});
	}

	/**
	 * Records how an attempt is confined (where its agent may connect, the caches it writes to), on
	 * the attempt and, while it is the latest, on its task.
	 */
	confined(
		lease: Lease,
		attemptId: number,
		taskId: string,
		told: Pick<AttemptSandboxRecord, "network" | "caches">,
	): void {
		this.#w.write(() => {
			this.#w.fence(lease);
			const json = JSON.stringify(told);
			this.#s.attemptConfined.run(json, attemptId);
			this.#s.taskConfined.run(json, lease.runId, taskId, attemptId);
		});
	}

	/**
	 * Records the git folders attempt `attempt` of `taskId` (or one beside it) left in its
	 * workspace, which crew moved out of it: on the task, with their `git.set-aside` event.
	 */
	setAside(lease: Lease, taskId: string, attempt: number, folders: readonly SetAside[], shared: boolean): void {
		const records: SetAsideRecord[] = folders.map((folder) => ({ attempt, ...folder, shared }));
		this.#w.write(() => {
			this.#w.fence(lease);
			this.#w.event(lease.runId, "git.set-aside", taskId, { attempt, folders: records });
			for (const record of records) this.#s.taskSetAside.run(JSON.stringify(record), lease.runId, taskId);
		});
	}

	/**
	 * Records usage an attempt's worker reported, added to the attempt's and its task's, with its
	 * `worker.usage` event in one transaction: on record even if this runner dies next.
	 */
	usage(lease: Lease, attemptId: number, taskId: string, usage: Usage): void {
		this.#w.write(() => {
			this.#w.fence(lease);
			this.#w.event(lease.runId, "worker.usage", taskId, { usage });
			this.#usage.report(lease.runId, taskId, attemptId, usage);
		});
	}

	/**
	 * Ends an attempt: attempt record, task status, result, artifacts and event in one transaction;
	 * returns what its usage grew by (see `settledUsage`).
	 */
	settle(lease: Lease, s: Settlement): Usage {
		return this.#w.write(() => {
			this.#w.fence(lease);
			this.#s.finishAttempt.run(
				s.attemptStatus,
				this.#w.time(),
				s.exitCode ?? null,
				redactOptional(s.error),
				s.retryable === undefined || s.retryable === null ? null : Number(s.retryable),
				Number(s.evidence !== undefined),
				s.attemptId,
			);
			const added = this.#usage.settle(lease.runId, s.taskId, s.attemptId, s.usage);
			if (s.result) {
				this.#s.taskResultChars.run(s.result.chars, lease.runId, s.taskId);
				this.#s.taskExcerpt.run(redact(s.result.excerpt), lease.runId, s.taskId);
			}
			if (s.evidence !== undefined) this.#s.taskEvidence.run(redact(s.evidence), lease.runId, s.taskId);
			for (const artifact of s.artifacts ?? []) this.#w.artifact(lease.runId, artifact);
			this.#w.move(lease.runId, { taskId: s.taskId, to: s.taskStatus, cause: s.cause, error: s.error ?? null });
			if (s.data) this.#w.event(lease.runId, "task.attempt", s.taskId, s.data);
			for (const event of s.events ?? []) this.#w.event(lease.runId, event.type, s.taskId, event.data);
			return added;
		});
	}

	/** Marks attempts whose runner was lost, and their running tasks interrupted. */
	lose(lease: Lease, attempts: readonly { id: number; taskId: string }[], reason: string): void {
		this.#w.write(() => {
			this.#w.fence(lease);
			for (const attempt of attempts) {
				this.#s.loseAttempt.run(this.#w.time(), reason, attempt.id);
				const row = this.#s.taskStatus.get(lease.runId, attempt.taskId);
				if (row?.status === "running") {
					this.#w.move(lease.runId, {
						taskId: attempt.taskId,
						to: "interrupted",
						cause: "runner-lost",
						error: reason,
					});
				}
			}
		});
	}
}
