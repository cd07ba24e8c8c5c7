// The store's write transactions, nested as savepoints, telling a listener their events once committed.

import type { Statement } from "better-sqlite3";
import type { EventRecord } from "../core/records.js";
import { type Db, isBusy } from "./database.js";

/** Hears each event a store writes, once its transaction has committed. */
export type EventListener = (runId: string, event: EventRecord) => void;

/**
 * The store's transactions: a change runs in one IMMEDIATE transaction, or, inside another, in a
 * savepoint of it, so it still applies whole or not at all. Events written in a transaction are
 * told to the listener once the outermost transaction has committed, never for one rolled back.
 */
export class Transactions {
	readonly #db: Db;
	readonly #listener: EventListener | undefined;
	readonly #begin: Statement;
	readonly #commit: Statement;
	readonly #rollback: Statement;
	readonly #savepoint: Statement;
	readonly #release: Statement;
	readonly #rollbackTo: Statement;
	readonly #busyTimeout: Statement<[], number>;
	#heard: { runId: string; event: EventRecord }[] = [];
	#depth = 0;

	constructor(db: Db, listener?: EventListener) {
		this.#db = db;
		this.#listener = listener;
		this.#begin = db.prepare("BEGIN IMMEDIATE");
		this.#commit = db.prepare("COMMIT");
		this.#rollback = db.prepare("ROLLBACK");
		this.#savepoint = db.prepare("SAVEPOINT change");
		this.#release = db.prepare("RELEASE change");
		this.#rollbackTo = db.prepare("ROLLBACK TO change");
		this.#busyTimeout = db.prepare("PRAGMA busy_timeout").pluck() as Statement<[], number>;
	}

	/** Runs `fn` in a transaction of its own, or in a savepoint of the one open. */
	write<T>(fn: () => T): T {
		if (this.#depth > 0) return this.#nested(fn);
		this.#begin.run();
		return this.#outermost(fn);
	}

	/**
	 * `write`, for a caller that must not be held up: waits at most `waitMs` for another
	 * connection's write lock, and returns undefined without calling `fn` while it is still held.
	 */
	tryWrite<T>(fn: () => T, waitMs: number): { readonly value: T } | undefined {
		if (this.#depth > 0) return { value: this.#nested(fn) };
		const patience = this.#busyTimeout.get() as number;
		this.#db.pragma(`busy_timeout = ${Math.max(0, Math.round(waitMs))}`);
		try {
			this.#begin.run();
		} catch (error) {
			if (isBusy(error)) return undefined;
			throw error;
		} finally {
			this.#db.pragma(`busy_timeout = ${patience}`);
		}
		return { value: this.#outermost(fn) };
	}

	/** Keeps an event written in the open transaction for the listener. */
	heard(runId: string, event: EventRecord): void {
		if (this.#listener) this.#heard.push({ runId, event });
	}

	#nested<T>(fn: () => T): T {
		const mark = this.#heard.length;
		this.#savepoint.run();
		this.#depth++;
		try {
			const result = fn();
			this.#release.run();
			return result;
		} catch (error) {
			this.#rollbackTo.run();
			this.#release.run();
			this.#heard.length = mark;
			throw error;
		} finally {
			this.#depth--;
		}
	}

	/** Runs `fn` in the transaction just begun, and commits it. */
	#outermost<T>(fn: () => T): T {
		let result: T;
		this.#depth = 1;
		try {
			result = fn();
			this.#commit.run();
		} catch (error) {
			if (this.#db.inTransaction) this.#rollback.run();
			this.#heard = [];
			throw error;
		} finally {
			this.#depth = 0;
		}
		const events = this.#heard;
		this.#heard = [];
		for (const { runId, event } of events) this.#listener?.(runId, event);
		return result;
	}
}
