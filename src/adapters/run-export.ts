import { writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { checkId } from "../core/ids.js";
import type { Crew } from "../engine/crew.js";

/**
 * Writes an ended run, its records and files, to one JSON bundle at `file` (default
 * `<runId>.crew-run.json`), relative to `cwd`; returns where, and what it holds.
 */
export async function exportToFile(
	crew: Crew,
	runId: string,
	file: string | undefined,
	cwd: string,
): Promise<{ runId: string; file: string; tasks: number; files: number }> {
	checkId("run", runId);
	const bundle = await crew.exportRun(runId);
	const path = resolve(cwd, file ?? `${runId}.crew-run.json`);
	writeFileSync(path, JSON.stringify(bundle));
	return { runId, file: path, tasks: bundle.rows.tasks.length, files: bundle.files.length };
}
