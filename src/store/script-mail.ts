// Mail that workflow scripts send and the replies people give to it, in the store's `messages` table.

import type { Statement } from "better-sqlite3";
import { CrewError, ErrorCode } from "../core/errors.js";
import { redact } from "../core/redact.js";
import type { Db } from "./database.js";
import type { Lease } from "./lease.js";
import type { StoreWrites } from "./task-messages.js";

/** A mail a run's workflow script sent, as recorded. */
export interface MailRow {
	readonly runId: string;
	/** Its id in its run, the script's place of the `ctx.mail` call: `m1`, or `2.0.m1` in a branch. */
	readonly name: string;
	/** Whom it is for: a task of the run, whose agent was given it, or anyone else (a person). */
	readonly to: string;
	readonly text: string;
	/** `sent` until someone replies (`replied`, with the reply). */
	readonly state: "sent" | "replied";
	readonly reply: string | null;
	readonly sentAt: string;
	readonly repliedAt: string | null;
}

/** The statuses of a run whose script may still gather replies. */
const OPEN_RUN: readonly string[] = ["queued", "running", "waiting", "interrupted"];

const COLUMNS = `run_id AS runId, name, json_extract(detail, '$.to') AS "to", text, state, answer AS reply,
	created_at AS sentAt, answered_at AS repliedAt`;

/**
 * The mail of workflow scripts, in the `messages` table (kind `mail`): sent by a run's script
 * once per place, replied to from any process, gathered by the script as its runner polls.
 */
export class ScriptMail {
	readonly #w: StoreWrites;
	readonly #insert: Statement<[string, string, string, string, string, string]>;
	readonly #reply: Statement<[string, string, string, string]>;
	readonly #get: Statement<[string, string], MailRow>;
	readonly #ofRun: Statement<[string], MailRow>;
	readonly #runStatus: Statement<[string], { status: string }>;

	constructor(db: Db, writes: StoreWrites) {
		this.#w = writes;
		this.#insert = db.prepare(
			"INSERT OR IGNORE INTO messages (run_id, name, task_id, detail, kind, text, state, created_at) VALUES (?, ?, ?, ?, 'mail', ?, 'sent', ?)",
		);
		this.#reply = db.prepare(
			"UPDATE messages SET state = 'replied', answer = ?, answered_at = ? WHERE run_id = ? AND name = ? AND state = 'sent'",
		);
		this.#get = db.prepare(`SELECT ${COLUMNS} FROM messages WHERE run_id = ? AND name = ? AND kind = 'mail'`);
		this.#ofRun = db.prepare(`SELECT ${COLUMNS} FROM messages WHERE run_id = ? AND kind = 'mail' ORDER BY id`);
		this.#runStatus = db.prepare("SELECT status FROM runs WHERE id = ?");
	}

	/**
	 * The run's script sends mail `name` to `to` (a task id of the run, or anyone), redacted; a
	 * mail of that name already recorded is kept as it is. Returns whether it was recorded now.
	 */
	send(lease: Lease, name: string, to: string, text: string, task: boolean): boolean {
		return this.#w.write(() => {
			this.#w.fence(lease);
			const kept = redact(text);
			const detail = JSON.stringify({ to });
			const sent = this.#insert.run(lease.runId, name, task ? to : "", detail, kept, this.#w.time()).changes > 0;
			if (sent) this.#w.event(lease.runId, "script.mail", task ? to : null, { mail: name, to, text: kept });
			return sent;
		});
	}

	/** Someone replies to mail `name` of run `runId`, from any process; the run's script gathers it. */
	reply(runId: string, name: string, text: string): MailRow {
		return this.#w.write(() => {
			const mail = this.#get.get(runId, name);
			if (!mail) {
				const open = this.#ofRun.all(runId).filter((m) => m.state === "sent");
				const listed = open.map((m) => m.name).join(", ") || "none";
				throw new CrewError(
					ErrorCode.NotFound,
					`run ${runId} has no mail '${name}'; mail waiting for a reply: ${listed}`,
				);
			}
			if (mail.state === "replied")
				throw new CrewError(ErrorCode.Conflict, `mail ${name} of run ${runId} has a reply already`);
			// An ended run's script gathers nothing more, and a reply must not start it again.
			const status = this.#runStatus.get(runId)?.status ?? "gone";
			if (!OPEN_RUN.includes(status)) {
				throw new CrewError(
					ErrorCode.Conflict,
					`run ${runId} is ${status}: its workflow script gathers no more replies`,
				);
			}
			const kept = redact(text);
			const at = this.#w.time();
			this.#reply.run(kept, at, runId, name);
			this.#w.event(runId, "script.mail.replied", null, { mail: name, text: kept });
			return { ...mail, state: "replied", reply: kept, repliedAt: at };
		});
	}

	/** Every mail of run `runId`'s script, oldest first. */
	ofRun(runId: string): MailRow[] {
		return this.#ofRun.all(runId);
	}
}

/** Every mail in the store that waits for a reply, of a run not ended, oldest first. */
export function waitingMail(db: Db): MailRow[] {
	return db
		.prepare<[string], MailRow>(
			`SELECT ${COLUMNS} FROM messages m WHERE kind = 'mail' AND state = 'sent'
			 AND EXISTS (SELECT 1 FROM runs r WHERE r.id = m.run_id AND r.status IN (SELECT value FROM json_each(?)))
			 ORDER BY id`,
		)
		.all(JSON.stringify(OPEN_RUN));
}
