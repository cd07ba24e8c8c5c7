// Notifications of run events to each target: claimed once across runners, then recorded as sent or failed.

import type { Statement } from "better-sqlite3";
import type { Db } from "./database.js";

/** A notification that could not be sent. */
export interface FailedNotification {
	readonly runId: string;
	readonly seq: number;
	readonly target: string;
	readonly event: string;
	readonly tries: number;
	readonly error: string;
	readonly time: string;
}

/** The `notifications` table: each run event's notification per target, claimed once. */
export class NotificationRecords {
	readonly #claim: Statement<[string, number, string, string, string]>;
	readonly #settle: Statement<[string, number, string | null, string | null, string, number, string]>;

	constructor(db: Db) {
		this.#claim = db.prepare(
			"INSERT OR IGNORE INTO notifications (run_id, seq, target, event, state, created_at) VALUES (?, ?, ?, ?, 'sending', ?)",
		);
		this.#settle = db.prepare(
			"UPDATE notifications SET state = ?, tries = ?, error = ?, sent_at = ? WHERE run_id = ? AND seq = ? AND target = ?",
		);
	}

	/** Takes event `seq`'s notification to `target` to send; false when it was taken before (by any runner). */
	claim(runId: string, seq: number, target: string, event: string, time: string): boolean {
		return this.#claim.run(runId, seq, target, event, time).changes > 0;
	}

	settle(runId: string, seq: number, target: string, outcome: { tries: number; error?: string; time: string }): void {
		const { tries, error, time } = outcome;
		this.#settle.run(
			error === undefined ? "sent" : "failed",
			tries,
			error ?? null,
			error === undefined ? time : null,
			runId,
			seq,
			target,
		);
	}
}

/** Notifications that failed after all their tries since `since` (an ISO time), oldest first. */
export function failedNotifications(db: Db, since: string): FailedNotification[] {
	return db
		.prepare<[string], FailedNotification>(
			"SELECT run_id AS runId, seq, target, event, tries, error, created_at AS time FROM notifications WHERE state = 'failed' AND created_at >= ? ORDER BY created_at",
		)
		.all(since);
}
