// Questions that running agents ask a person, with their answers and the waits they put tasks in.

import type { Statement } from "better-sqlite3";
import { asksLine } from "../core/asked.js";
import { CrewError, ErrorCode } from "../core/errors.js";
import { redact } from "../core/redact.js";
import type { Db } from "./database.js";
import type { Lease } from "./lease.js";
import type { StoreWrites } from "./task-messages.js";

/** A question a task's agent asked a person, as recorded. */
export interface QuestionRow {
	/** Its record in the store: for crew's own use. */
	readonly id: number;
	/**
	 * Its number among the questions of its run's task, from 1: what a person is shown, and what
	 * `crew answer --question` takes.
	 */
	readonly number: number;
	readonly taskId: string;
	readonly question: string;
	/**
	 * `asked` until a person answers (`answered`); `delivered` once the agent has the answer, as its
	 * tool's result or in a later attempt's prompt; `withdrawn` when its attempt ended first.
	 */
	readonly state: "asked" | "answered" | "delivered" | "withdrawn";
	readonly answer: string | null;
	/** The attempt that asked it. */
	readonly attemptId: number | null;
	readonly askedAt: string;
}

/** A question that waits for a person, with its run and task. */
export interface OpenQuestion extends QuestionRow {
	readonly runId: string;
}

/** The store's writes, and the task moves a question makes: running to waiting and back. */
export interface QuestionWrites extends StoreWrites {
	move(runId: string, taskId: string, to: "waiting" | "running", error: string | null): void;
}

/** Read from `messages m`; the number counts the task's questions up to this one. */
const COLUMNS = `m.id, (SELECT count(*) FROM messages o WHERE o.run_id = m.run_id AND o.task_id = m.task_id
	AND o.kind = 'question' AND o.id <= m.id) AS number, m.run_id AS runId, m.task_id AS taskId, m.text AS question,
	m.state, m.answer, m.attempt_id AS attemptId, m.created_at AS askedAt`;

/**
 * Questions that running agents ask a person, in the `messages` table (kind `question`), with
 * their answers and events. Asking makes the task `waiting`; the answer, given from any process,
 * reaches the agent through the run's runner, or a later attempt's prompt when the agent is gone.
 */
export class TaskQuestions {
	readonly #w: QuestionWrites;
	readonly #insert: Statement<[string, string, string, number, string]>;
	readonly #answer: Statement<[string, string, number]>;
	readonly #settle: Statement<[string, string | null, number | null, string, number, string]>;
	readonly #open: Statement<[string, string], OpenQuestion>;
	readonly #ofAttempt: Statement<[number], OpenQuestion>;
	readonly #askedOf: Statement<[string, string], OpenQuestion>;
	readonly #answered: Statement<[string], OpenQuestion>;
	readonly #answers: Statement<[string, string], OpenQuestion>;
	readonly #state: Statement<[number], { state: QuestionRow["state"] }>;
	readonly #byId: Statement<[number], OpenQuestion>;
	readonly #taskStatus: Statement<[string, string], { status: string }>;

	constructor(db: Db, writes: QuestionWrites) {
		this.#w = writes;
		this.#insert = db.prepare(
			"INSERT INTO messages (run_id, task_id, kind, text, state, attempt_id, created_at) VALUES (?, ?, 'question', ?, 'asked', ?, ?)",
		);
		this.#answer = db.prepare(
			"UPDATE messages SET state = 'answered', answer = ?, answered_at = ? WHERE id = ? AND state = 'asked'",
		);
		this.#settle = db.prepare(
			"UPDATE messages SET state = ?, detail = ?, attempt_id = coalesce(?, attempt_id), settled_at = ? WHERE id = ? AND state = ?",
		);
		const open = "kind = 'question' AND state IN ('asked', 'answered')";
		this.#open = db.prepare(
			`SELECT ${COLUMNS} FROM messages m WHERE run_id = ? AND task_id = ? AND ${open} ORDER BY id`,
		);
		this.#ofAttempt = db.prepare(`SELECT ${COLUMNS} FROM messages m WHERE attempt_id = ? AND ${open} ORDER BY id`);
		this.#askedOf = db.prepare(
			`SELECT ${COLUMNS} FROM messages m WHERE run_id = ? AND task_id = ? AND kind = 'question' AND state = 'asked' ORDER BY id`,
		);
		this.#answered = db.prepare(
			`SELECT ${COLUMNS} FROM messages m WHERE run_id = ? AND kind = 'question' AND state = 'answered' ORDER BY id`,
		);
		this.#answers = db.prepare(
			`SELECT ${COLUMNS} FROM messages m WHERE run_id = ? AND task_id = ? AND kind = 'question' AND state IN ('answered', 'delivered') ORDER BY id`,
		);
		this.#byId = db.prepare(`SELECT ${COLUMNS} FROM messages m WHERE id = ? AND kind = 'question'`);
		this.#state = db.prepare("SELECT state FROM messages WHERE id = ? AND kind = 'question'");
		this.#taskStatus = db.prepare("SELECT status FROM tasks WHERE run_id = ? AND id = ?");
	}

	/**
	 * The agent of running attempt `attempt` asks `question`: recorded (redacted), and its task
	 * waits for the answer. Returns the question's record.
	 */
	ask(
		lease: Lease,
		taskId: string,
		attempt: { readonly id: number; readonly number: number },
		question: string,
	): number {
		return this.#w.write(() => {
			this.#w.fence(lease);
			const kept = redact(question);
			const { runId } = lease;
			const id = Number(this.#insert.run(runId, taskId, kept, attempt.id, this.#w.time()).lastInsertRowid);
			const number = this.#byId.get(id)?.number;
			// A second question while the first waits: the task already waits.
			if (this.#status(runId, taskId) === "running") this.#w.move(runId, taskId, "waiting", asksLine(kept));
			this.#w.event(runId, "task.asked", taskId, { question: number, attempt: attempt.number, text: kept });
			return id;
		});
	}

	/**
	 * A person answers the question task `taskId` waits on (its `number`, needed when it waits on
	 * several), from any process; the run's runner gives it to the agent. Returns the question answered.
	 */
	answer(runId: string, taskId: string, text: string, number?: number): QuestionRow {
		return this.#w.write(() => {
			const waiting = this.#status(runId, taskId) === "waiting" ? this.#askedOf.all(runId, taskId) : [];
			if (waiting.length === 0) {
				throw new CrewError(ErrorCode.Conflict, `task ${taskId} of run ${runId} has no question waiting for an answer`);
			}
			const asked = number === undefined ? waiting[0] : waiting.find((q) => q.number === number);
			if (!asked || (number === undefined && waiting.length > 1)) {
				const listed = waiting.map((q) => `${q.number}: ${q.question.split("\n", 1)[0]}`).join("; ");
				const which = number === undefined ? "say which" : `question ${number} is not one of them`;
				throw new CrewError(
					ErrorCode.InvalidInput,
					`task ${taskId} waits for answers to ${waiting.length === 1 ? "one question" : `${waiting.length} questions`} (${listed}); ${which} with --question <id>`,
				);
			}
			const kept = redact(text);
			this.#answer.run(kept, this.#w.time(), asked.id);
			this.#w.event(runId, "task.answered", taskId, { question: asked.number, text: kept });
			return { ...asked, state: "answered", answer: kept };
		});
	}

	/**
	 * The answer to `question` reached the agent of attempt `attempt` (its record and number):
	 * as its tool's result (`live`: its task runs again), or in the prompt it starts with.
	 */
	delivered(
		lease: Lease,
		question: Pick<QuestionRow, "id" | "number">,
		taskId: string,
		attempt: { readonly id: number; readonly number: number },
		live: boolean,
	): void {
		this.#w.write(() => {
			this.#w.fence(lease);
			const { id } = question;
			if (this.#settle.run("delivered", null, attempt.id, this.#w.time(), id, "answered").changes === 0) return;
			// Its task runs again once none of its agent's questions waits any more.
			const waits = this.#ofAttempt.all(attempt.id).length > 0;
			if (live && !waits && this.#status(lease.runId, taskId) === "waiting") {
				this.#w.move(lease.runId, taskId, "running", null);
			}
			this.#w.event(lease.runId, "task.answer.delivered", taskId, {
				question: question.number,
				attempt: attempt.number,
				...(live ? {} : { in: "prompt" }),
			});
		});
	}

	/**
	 * Attempt `attemptId` of task `taskId` ended while its agent waited for answers: questions not
	 * answered yet are withdrawn, with `why`; answers already given are kept for the task's next
	 * attempt, whose prompt carries them. The task runs until the attempt's ending is recorded.
	 */
	withdraw(lease: Lease, taskId: string, attemptId: number, why: string): void {
		this.#w.write(() => {
			this.#w.fence(lease);
			for (const q of this.#ofAttempt.all(attemptId)) if (q.state === "asked") this.#withdrawOne(lease.runId, q, why);
			if (this.#status(lease.runId, taskId) === "waiting") this.#w.move(lease.runId, taskId, "running", null);
		});
	}

	/** Task `taskId` has ended: the questions it asked that wait for answers are withdrawn, with `why`. Inside a write. */
	withdrawAsked(runId: string, taskId: string, why: string): void {
		for (const q of this.#askedOf.all(runId, taskId)) this.#withdrawOne(runId, q, why);
	}

	#withdrawOne(runId: string, q: QuestionRow, why: string): void {
		if (this.#settle.run("withdrawn", why, null, this.#w.time(), q.id, q.state).changes === 0) return;
		this.#w.event(runId, "task.question.withdrawn", q.taskId, { question: q.number, reason: why });
	}

	/**
	 * Task `taskId`, queued again after the runner its agent asked under was lost, waits again for
	 * the answer to `question`, without asking anew.
	 */
	wait(lease: Lease, taskId: string, question: QuestionRow): void {
		this.#w.write(() => {
			this.#w.fence(lease);
			this.#w.move(lease.runId, taskId, "waiting", asksLine(question.question));
		});
	}

	#status(runId: string, taskId: string): string | undefined {
		return this.#taskStatus.get(runId, taskId)?.status;
	}

	/** Task `taskId`'s questions not yet given to an agent, oldest first. */
	open(runId: string, taskId: string): OpenQuestion[] {
		return this.#open.all(runId, taskId);
	}

	/** The run's answered questions whose answers no agent has yet. */
	answered(runId: string): OpenQuestion[] {
		return this.#answered.all(runId);
	}

	/** Task `taskId`'s questions that have answers, oldest first: what a new attempt's prompt tells. */
	answers(runId: string, taskId: string): OpenQuestion[] {
		return this.#answers.all(runId, taskId);
	}

	/** Where question `id` stands; undefined when there is none. */
	state(id: number): QuestionRow["state"] | undefined {
		return this.#state.get(id)?.state;
	}
}

/** Every question in the store that waits for a person, oldest first. */
export function waitingQuestions(db: Db): OpenQuestion[] {
	return db
		.prepare<[], OpenQuestion>(
			`SELECT ${COLUMNS} FROM messages m WHERE kind = 'question' AND state = 'asked'
			 AND EXISTS (SELECT 1 FROM tasks t WHERE t.run_id = m.run_id AND t.id = m.task_id AND t.status = 'waiting')
			 ORDER BY id`,
		)
		.all();
}
