// Questions the agents of a run's live attempts ask a person: recorded, waited on, and answers handed back.

import { errorMessage } from "../../core/errors.js";
import { TaskStatus } from "../../core/status.js";
import type { WorkerFailure } from "../../runtimes/worker-runtime.js";
import { isBusy } from "../../store/database.js";
import type { Lease } from "../../store/lease.js";
import type { RunStore } from "../../store/run-store.js";
import type { OpenQuestion } from "../../store/task-questions.js";
import type { AttemptOutcome, LiveAttempt } from "./live-attempt.js";
import { StopReason } from "./stop-reason.js";
import type { RunWrites } from "./writes.js";

export interface RunQuestionsDeps {
	readonly store: RunStore;
	readonly writes: RunWrites;
	readonly lease: Lease;
	/** A task's status changed here: it waits for an answer, or runs again with it. */
	readonly moved: (taskId: string, to: TaskStatus) => void;
	/** The store could not be read. */
	readonly onStoreError: (message: string) => void;
}

interface Pending {
	readonly live: LiveAttempt;
	readonly give: (answer: string) => void;
}

/**
 * The questions the agents of a run's live attempts ask a person: each is recorded, and its task
 * waits; the runner's ticker finds the answers given from anywhere and hands each to the agent
 * that asked, whose task then runs again.
 */
export class RunQuestions {
	readonly #deps: RunQuestionsDeps;
	/** Questions asked here and not answered yet, by record. */
	readonly #pending = new Map<number, Pending>();

	constructor(deps: RunQuestionsDeps) {
		this.#deps = deps;
	}

	/** How many live attempts wait for an answer. */
	get asking(): number {
		return new Set([...this.#pending.values()].map((p) => p.live)).size;
	}

	/** The agent of `live` asks `question`; resolves with the answer once a person gives it. */
	ask(live: LiveAttempt, question: string): Promise<string> {
		const { store, writes, lease } = this.#deps;
		const { taskId, attempt } = live.request;
		return new Promise((give, refuse) => {
			writes
				.batch(() => {
					const id = store.questions.ask(lease, taskId, { id: live.attemptId, number: attempt }, question);
					this.#pending.set(id, { live, give });
					this.#deps.moved(taskId, TaskStatus.Waiting);
				})
				.catch(refuse);
		});
	}

	/** Hands each answered question to the agent that waits for it. */
	tick(): void {
		if (this.#pending.size === 0) return;
		const { store, writes, lease } = this.#deps;
		let answered: OpenQuestion[];
		try {
			answered = store.questions.answered(lease.runId);
		} catch (error) {
			// A reader is kept out only for a moment; the next tick looks again.
			if (!isBusy(error)) this.#deps.onStoreError(`cannot reach the store: ${errorMessage(error)}`);
			return;
		}
		for (const question of answered) {
			const pending = this.#pending.get(question.id);
			// A stopped attempt is not answered: its task's next attempt is, in its prompt.
			if (!pending || pending.live.stopReason) continue;
			this.#pending.delete(question.id);
			const { live } = pending;
			const attempt = { id: live.attemptId, number: live.request.attempt };
			// Its task runs again once none of its agent's questions waits any more.
			const waits = [...this.#pending.values()].some((p) => p.live === live);
			writes.write(() => {
				store.questions.delivered(lease, question, question.taskId, attempt, true);
				if (!waits) this.#deps.moved(question.taskId, TaskStatus.Running);
			});
			pending.give(question.answer ?? "");
		}
	}

	/**
	 * The failure of attempt `live`, stopped as its wait for an answer ran out, when an answer came
	 * that never reached it: its task runs again, the answer in its prompt, not counted as a retry.
	 */
	answeredLate(live: LiveAttempt, outcome: AttemptOutcome): WorkerFailure | undefined {
		const stop = outcome.error;
		if (!(stop instanceof StopReason) || stop.kind !== "unanswered") return undefined;
		const { runId } = this.#deps.lease;
		if (!this.#deps.store.questions.answered(runId).some((q) => q.attemptId === live.attemptId)) return undefined;
		const message = `${stop.message}; its answer came as the wait ran out, and the next attempt is given it`;
		return { message, retryable: true, afresh: true };
	}

	/**
	 * Attempt `live` ended: questions it asked that no answer reached are withdrawn, and its task,
	 * if it waited, runs until its ending is recorded. Called in the ending's write.
	 */
	ended(live: LiveAttempt, why: string): void {
		let waited = false;
		for (const [id, pending] of this.#pending) {
			if (pending.live !== live) continue;
			this.#pending.delete(id);
			waited = true;
		}
		if (!waited) return;
		const { store, lease } = this.#deps;
		store.questions.withdraw(lease, live.request.taskId, live.attemptId, why);
		this.#deps.moved(live.request.taskId, TaskStatus.Running);
	}
}
