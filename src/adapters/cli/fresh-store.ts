// A failed command's own `.crew/`, holding no run yet, taken back: a mistake leaves nothing behind.

import { existsSync, readdirSync, rmSync } from "node:fs";
import type { Project } from "../../config/project.js";

/** What a command's first open of a store makes in `.crew/`, and nothing of a person's. */
const STORE_FILES: ReadonlySet<string> = new Set([
	"crew.db",
	"crew.db-wal",
	"crew.db-shm",
	"crew.db-journal",
	".gitignore",
]);

/**
 * Removes `project`'s `.crew/`, which the failed command made, when it holds only a store and
 * that store has neither a run nor a schedule: a process beside it may have begun one meanwhile.
 */
export async function takeBackStore(project: Project): Promise<void> {
	if (!existsSync(project.crewDir)) return;
	if (!readdirSync(project.crewDir).every((name) => STORE_FILES.has(name))) return;
	if (existsSync(project.dbFile)) {
		const { openReader } = await import("../../store/database.js");
		const db = openReader(project.dbFile);
		if (db === null) return;
		try {
			const count = (table: string) => (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
			if (count("runs") > 0 || count("schedules") > 0) return;
		} finally {
			db.close();
		}
	}
	rmSync(project.crewDir, { recursive: true, force: true });
}
