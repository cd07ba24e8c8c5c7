import { existsSync, mkdirSync } from "node:fs";
import { dirname } from "node:path";
import Database, { type Statement } from "better-sqlite3";
import { CrewError, ErrorCode, errorMessage } from "../core/errors.js";
import { MIGRATIONS } from "./migrations.js";

export type Db = Database.Database;

/** How long a connection waits for another process's write lock before failing, in ms. */
const BUSY_TIMEOUT_MS = 5000;

/**
 * Opens the store for writing, creating it and applying migrations when needed.
 *
 * WAL lets readers in other processes see the last committed state while a runner writes.
 * `synchronous = NORMAL` is chosen on purpose: in WAL mode a commit is then durable against a
 * crash of any process (kill -9 included), because the WAL is in the OS's hands before commit
 * returns; only a power loss or kernel crash can drop the last few commits, and even then the
 * database stays consistent. FULL would add an fsync to every task transition, which is what
 * makes per-task overhead grow, for protection against a failure crew cannot act on anyway.
 */
export function openWriter(file: string): Db {
	mkdirSync(dirname(file), { recursive: true });
	const db = open(file, false);
	try {
		db.pragma("journal_mode = WAL");
		db.pragma("synchronous = NORMAL");
		db.pragma("foreign_keys = ON");
		migrate(db);
	} catch (error) {
		db.close();
		throw storeError(file, error);
	}
	return db;
}

/** Opens the store read-only; returns null when it does not exist yet. */
export function openReader(file: string): Db | null {
	if (!existsSync(file)) return null;
	const db = open(file, true);
	try {
		const version = (db.pragma("user_version", { simple: true }) as number) ?? 0;
		if (version > latestVersion()) {
			throw new Error(`schema version ${version} is newer than this crew understands (${latestVersion()})`);
		}
		if (version < latestVersion()) {
			db.close();
			openWriter(file).close();
			return open(file, true);
		}
	} catch (error) {
		db.close();
		throw storeError(file, error);
	}
	return db;
}

function open(file: string, readonly: boolean): Db {
	try {
		const db = new Database(file, { readonly, fileMustExist: readonly });
		db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
		return db;
	} catch (error) {
		throw storeError(file, error);
	}
}

function latestVersion(): number {
	return MIGRATIONS[MIGRATIONS.length - 1]?.version ?? 0;
}

function migrate(db: Db): void {
	db.exec(
		"CREATE TABLE IF NOT EXISTS migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)",
	);
	const version = db.prepare("SELECT coalesce(max(version), 0) FROM migrations").pluck() as Statement<[], number>;
	if (version.get() === latestVersion()) return;
	// The version is read again under the write lock: two processes may open a new store at once.
	db.transaction(() => {
		const current = version.get() ?? 0;
		if (current > latestVersion()) {
			throw new Error(`schema version ${current} is newer than this crew understands (${latestVersion()})`);
		}
		for (const migration of MIGRATIONS) {
			if (migration.version <= current) continue;
			db.exec(migration.sql);
			db.prepare("INSERT INTO migrations (version, name, applied_at) VALUES (?, ?, ?)").run(
				migration.version,
				migration.name,
				new Date().toISOString(),
			);
			db.pragma(`user_version = ${migration.version}`);
		}
	}).immediate();
}

export function storeError(file: string, error: unknown): CrewError {
	if (error instanceof CrewError) return error;
	return new CrewError(ErrorCode.Store, `cannot use the crew store ${file}: ${errorMessage(error)}`, { cause: error });
}
