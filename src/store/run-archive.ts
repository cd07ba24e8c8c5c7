// Whole runs as table rows: read for export, inserted on import, deleted to forget a run.

import { CrewError, ErrorCode } from "../core/errors.js";
import type { Db } from "./database.js";
import { UsageRecords } from "./usage-records.js";
import { ViewRows } from "./view-rows.js";

/** A run's tables, parents first: the order rows are inserted in. */
export const RUN_TABLES = ["runs", "tasks", "task_data", "attempts", "events", "artifacts", "messages"] as const;
export type RunTable = (typeof RUN_TABLES)[number];

export type RowValue = string | number | null;
export type RunRows = Record<RunTable, Record<string, RowValue>[]>;

/** Tables of a bundle that an older crew's may lack: they count as empty. */
export const LATER_TABLES: readonly RunTable[] = ["messages"];

/** Tables whose `id` is the store's own row number, not the run's: an imported row gets a new one. */
const STORE_IDS: readonly RunTable[] = ["attempts", "messages"];

/** The columns that name such a row, by table: each column with the table of the row it names. */
const STORE_ID_REFERENCES: Partial<Record<RunTable, Readonly<Record<string, RunTable>>>> = {
	messages: { attempt_id: "attempts" },
};

/**
 * Columns a store derives from a run's other rows (see ViewRows): left out of what is exported, and
 * made again on import, so a run moves between stores of any schema that has its other columns.
 */
const DERIVED: Partial<Record<RunTable, readonly string[]>> = {
	runs: ["reordered"],
	tasks: ["changed_seq", "activity_seq", "activity"],
};

function runColumn(table: RunTable): string {
	return table === "runs" ? "id" : "run_id";
}

/** Whole runs as rows: read for export, written for import, deleted to forget. */
export class RunArchive {
	readonly #db: Db;

	constructor(db: Db) {
		this.#db = db;
	}

	/** Every row of the run in every table, as stored. */
	rows(runId: string): RunRows {
		const rows = {} as RunRows;
		for (const table of RUN_TABLES) {
			const stored = this.#db.prepare(`SELECT * FROM ${table} WHERE ${runColumn(table)} = ?`).all(runId) as Record<
				string,
				RowValue
			>[];
			const derived = DERIVED[table] ?? [];
			rows[table] = stored.map((row) => Object.fromEntries(Object.entries(row).filter(([c]) => !derived.includes(c))));
		}
		return rows;
	}

	/**
	 * Inserts a run's rows in one transaction. Every row must belong to `runId` and name only
	 * columns the table has; the run must not be in the store yet.
	 */
	insert(runId: string, rows: RunRows): void {
		// Store ids the bundle's rows had, by table: what each became here.
		const renumbered = new Map<RunTable, Map<RowValue, number>>();
		this.#db.transaction(() => {
			if (this.#db.prepare("SELECT 1 FROM runs WHERE id = ?").get(runId)) {
				throw new CrewError(ErrorCode.Conflict, `run ${runId} is already in this store`);
			}
			for (const table of RUN_TABLES) {
				const own = STORE_IDS.includes(table);
				const ids = new Map<RowValue, number>();
				renumbered.set(table, ids);
				const known = new Set(
					(this.#db.pragma(`table_info(${table})`) as { name: string }[]).map((column) => column.name),
				);
				for (const given of rows[table]) {
					const row = this.#renumber(table, given, renumbered);
					if (row[runColumn(table)] !== runId) {
						throw new CrewError(
							ErrorCode.InvalidInput,
							`a ${table} row belongs to run ${JSON.stringify(row[runColumn(table)])}, not ${runId}`,
						);
					}
					const columns = Object.keys(row);
					const unknown = columns.find((c) => !known.has(c));
					if (unknown !== undefined) {
						throw new CrewError(ErrorCode.InvalidInput, `table ${table} has no column ${JSON.stringify(unknown)}`);
					}
					const marks = columns.map(() => "?").join(", ");
					const inserted = this.#db
						.prepare(`INSERT INTO ${table} (${columns.map((c) => `"${c}"`).join(", ")}) VALUES (${marks})`)
						.run(...columns.map((c) => row[c] ?? null));
					if (own) ids.set(given.id ?? null, Number(inserted.lastInsertRowid));
				}
			}
			new ViewRows(this.#db).rebuild(runId);
			new UsageRecords(this.#db).rebuild(runId);
		})();
	}

	/** `row` as inserted: without its store id (see STORE_IDS), and naming the rows it names by their new ids. */
	#renumber(table: RunTable, row: Record<string, RowValue>, renumbered: Map<RunTable, Map<RowValue, number>>) {
		const next = { ...row };
		if (STORE_IDS.includes(table)) delete next.id;
		for (const [column, named] of Object.entries(STORE_ID_REFERENCES[table] ?? {})) {
			const given = next[column];
			if (given !== null && given !== undefined) next[column] = renumbered.get(named)?.get(given) ?? null;
		}
		return next;
	}

	/** Deletes the run and, through the schema's cascades, all its rows. */
	forget(runId: string): void {
		this.#db.prepare("DELETE FROM runs WHERE id = ?").run(runId);
	}
}
