// Opening the SQLite store for writing or reading, with its pragmas, migrations and errors naming the file.

import { accessSync, constants, existsSync, mkdirSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
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
	refuseEmptied(file);
	// SQLite would open the store read-only, and say at the first write only that it cannot
	// write: the file system says why, and before anything is attempted.
	const refused = writeRefusal(file);
	if (refused !== undefined) throw refused;
	const db = open(file, false);
	try {
		// Switching to WAL needs the file to itself, and SQLite does not wait for that: a reader
		// looking at a store that is being created holds it for a moment.
		whileBusy(() => db.pragma("journal_mode = WAL"));
		db.pragma("synchronous = NORMAL");
		db.pragma("foreign_keys = ON");
		whileBusy(() => migrate(db));
	} catch (error) {
		db.close();
		throw storeError(file, error);
	}
	return db;
}

/**
 * Opens the store read-only; returns null when it does not exist yet, or is being created by
 * another process (no schema yet). A store of an older schema is brought up to date first.
 */
export function openReader(file: string): Db | null {
	if (!existsSync(file)) return null;
	refuseEmptied(file);
	const db = openForReading(file);
	try {
		const version = (db.pragma("user_version", { simple: true }) as number) ?? 0;
		if (version === 0) {
			db.close();
			return null;
		}
		if (version > latestVersion()) {
			throw new Error(`schema version ${version} is newer than this crew understands (${latestVersion()})`);
		}
		if (version < latestVersion()) {
			db.close();
			openWriter(file).close();
			return openForReading(file);
		}
	} catch (error) {
		db.close();
		throw storeError(file, error);
	}
	return db;
}

/**
 * Throws unless this Node can load the SQLite binding crew was installed with: it is built for
 * one Node ABI, and a host on another Node (pi 1.x on Node 22) must start crew on the right one.
 */
export function checkStoreBinding(): void {
	try {
		new Database(":memory:").close();
	} catch (error) {
		throw new CrewError(
			ErrorCode.Store,
			`crew's SQLite binding does not load in Node ${process.version} (${process.execPath}): ${errorMessage(error)}`,
		);
	}
}

/**
 * A read-only connection to the store at `file`. SQLite reads a WAL database only where it finds
 * the database's `-shm` file or may make one beside it: in a folder this process may not write
 * (a read-only mount) it cannot, and the connection reads a copy of the file in memory instead.
 * SQLite's own way, an `immutable=1` URI, is out of reach: better-sqlite3 reads URI filenames
 * only when the whole process enables them through its environment.
 */
function openForReading(file: string): Db {
	const db = open(file, true);
	try {
		db.pragma("schema_version", { simple: true });
		return db;
	} catch (error) {
		db.close();
		if (!isCantOpen(error) || writeRefusal(file) === undefined) throw storeError(file, error);
		return snapshot(file);
	}
}

/**
 * The store at `file` copied into memory, as a database of the rollback journal (an in-memory
 * database has no WAL); refused when a write-ahead log beside it holds commits the copy would miss.
 */
function snapshot(file: string): Db {
	const log = `${file}-wal`;
	if (existsSync(log) && statSync(log).size > 0) {
		throw new CrewError(
			ErrorCode.Store,
			`cannot read the crew store ${file}: its write-ahead log ${log} holds commits that SQLite reads only where it may write beside the store`,
		);
	}
	const bytes = readFileSync(file);
	// Bytes 18 and 19 of the header are the file format's write and read versions: 2 is WAL.
	if (bytes.length >= 20 && bytes[18] === 2 && bytes[19] === 2) bytes.set([1, 1], 18);
	try {
		return new Database(bytes, { readonly: true });
	} catch (error) {
		throw storeError(file, error);
	}
}

/** Whether `error` is SQLite failing to open a file it needs. */
function isCantOpen(error: unknown): boolean {
	const code = (error as { code?: unknown } | null)?.code;
	return typeof code === "string" && code.startsWith("SQLITE_CANTOPEN");
}

/**
 * The file system's error when this process may not write the store's folder or the store at
 * `file`: what keeps SQLite from making or writing its files there.
 */
function writeRefusal(file: string): Error | undefined {
	for (const path of [dirname(file), file]) {
		if (!existsSync(path)) continue;
		try {
			accessSync(path, constants.W_OK);
		} catch (error) {
			if (error instanceof Error) return error;
		}
	}
	return undefined;
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

/**
 * An empty store file beside run folders was truncated: opening it would start a new, empty store
 * and hide those runs, so it is refused, naming the file.
 */
function refuseEmptied(file: string): void {
	if (!existsSync(file) || statSync(file).size > 0) return;
	const runs = join(dirname(file), "runs");
	const held = existsSync(runs) ? readdirSync(runs).length : 0;
	if (held > 0) {
		throw new CrewError(
			ErrorCode.Store,
			`cannot use the crew store ${file}: it is empty, but ${runs} holds ${held} runs; it was truncated (restore it from a backup, or move it away to start a new store)`,
		);
	}
}

/** Whether `error` is SQLite saying another connection holds the lock it waited for. */
export function isBusy(error: unknown): boolean {
	const code = (error as { code?: unknown } | null)?.code;
	return typeof code === "string" && code.startsWith("SQLITE_BUSY");
}

/** Runs `fn` again while SQLite says the database is locked, for up to the busy timeout. */
function whileBusy<T>(fn: () => T): T {
	const until = Date.now() + BUSY_TIMEOUT_MS;
	for (;;) {
		try {
			return fn();
		} catch (error) {
			if (!isBusy(error) || Date.now() > until) throw error;
			Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20);
		}
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
