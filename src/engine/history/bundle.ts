// Run bundles: an ended run's records and files as one JSON document, exported and imported between stores.

import { createHash } from "node:crypto";
import { z } from "zod";
import { CrewError, ErrorCode, errorMessage } from "../../core/errors.js";
import { checkId } from "../../core/ids.js";
import { isTerminalRun, type RunStatus } from "../../core/status.js";
import { storedOptions } from "../../core/stored-options.js";
import type { RunOptions } from "../../core/types.js";
import type { ArtifactFiles } from "../../store/artifact-files.js";
import { LATER_TABLES, type RowValue, RUN_TABLES, type RunArchive, type RunRows } from "../../store/run-archive.js";

/** One run, its records and its indexed files, in one JSON document: what `crew export` writes. */
export interface RunBundle {
	readonly format: "crew-run";
	readonly version: 1;
	readonly runId: string;
	readonly rows: RunRows;
	readonly files: readonly { readonly path: string; readonly sha256: string; readonly base64: string }[];
}

const value = z.union([z.string(), z.number(), z.null()]);
const rows = z.array(z.record(z.string(), value));
const Bundle = z.object({
	format: z.literal("crew-run"),
	version: z.literal(1),
	runId: z.string(),
	rows: z.object(
		Object.fromEntries(
			RUN_TABLES.map((table) => [table, LATER_TABLES.includes(table) ? rows.default([]) : rows]),
		) as Record<(typeof RUN_TABLES)[number], typeof rows>,
	),
	files: z.array(
		z.object({
			path: z.string(),
			sha256: z.string().regex(/^[0-9a-f]{64}$/),
			base64: z.string().max(512 * 1024 * 1024),
		}),
	),
});

/** Columns of a run's row that belong to the store that ran it: cleared on import. */
const RUNNER_COLUMNS = ["lease_pid", "lease_host", "lease_start", "lease_heartbeat", "cancel_requested"];

/** Columns of an attempt's row that name a process of the host that ran it: cleared on import. */
const PROCESS_COLUMNS = ["pid", "pgid", "proc_start"];

/**
 * An imported attempt as this store keeps it: no process (a process named by a bundle is none of
 * this host's to signal), and one recorded running is lost, ended when its run last changed.
 */
function importedAttempt(row: Record<string, RowValue>, runUpdatedAt: RowValue): Record<string, RowValue> {
	const cleared = { ...row, ...Object.fromEntries(PROCESS_COLUMNS.map((c) => [c, null])) };
	if (row.status !== "running") return cleared;
	return {
		...cleared,
		status: "lost",
		finished_at: row.finished_at ?? runUpdatedAt ?? row.started_at ?? null,
		error: "its runner was in the store the run was imported from",
	};
}

function sha256(bytes: Buffer): string {
	return createHash("sha256").update(bytes).digest("hex");
}

/** A bundle as read, once its shape is right. */
function readBundle(input: unknown): z.infer<typeof Bundle> {
	const parsed = Bundle.safeParse(input);
	if (!parsed.success) {
		const issue = parsed.error.issues[0];
		throw new CrewError(
			ErrorCode.InvalidInput,
			`not a crew run bundle: ${issue?.path.join(".") || "the document"}: ${issue?.message ?? "invalid"}`,
		);
	}
	return parsed.data;
}

/**
 * What a bundle's run was asked to do: its goal, workflow and team by name, to plan again with
 * this repository's own resources. Nothing else of the bundle is used.
 */
export function bundleGoal(input: unknown): { goal: string; workflow: string; team: string | null } {
	const run = readBundle(input).rows.runs[0];
	if (!run || typeof run.goal !== "string" || typeof run.workflow !== "string") {
		throw new CrewError(ErrorCode.InvalidInput, "the bundle holds no run with a goal and a workflow");
	}
	return { goal: run.goal, workflow: run.workflow, team: typeof run.team === "string" ? run.team : null };
}

/** A run row's options as this store keeps them (see `storedOptions`), from their JSON text. */
function optionsAsStored(text: RowValue | undefined): string {
	let options: unknown;
	try {
		options = JSON.parse(String(text));
	} catch (error) {
		throw new CrewError(ErrorCode.InvalidInput, `the run's options are not JSON: ${errorMessage(error)}`);
	}
	if (typeof options !== "object" || options === null || Array.isArray(options)) {
		throw new CrewError(ErrorCode.InvalidInput, `the run's options are not an object: ${String(text).slice(0, 80)}`);
	}
	return JSON.stringify(storedOptions(options as RunOptions));
}

/** An ended run as a bundle: its rows as stored, and its indexed files with their hashes. */
export function exportRun(archive: RunArchive, files: ArtifactFiles, runId: string): RunBundle {
	const rows = archive.rows(runId);
	// A store written before URLs were stored without credentials may still hold some.
	const run: RunRows = { ...rows, runs: rows.runs.map((r) => ({ ...r, options: optionsAsStored(r.options) })) };
	const row = run.runs[0];
	if (!row) throw new CrewError(ErrorCode.NotFound, `no run '${runId}' in this repository`);
	if (!isTerminalRun(row.status as RunStatus)) {
		throw new CrewError(ErrorCode.Conflict, `run ${runId} is ${row.status}; export it once it has ended`);
	}
	const bundled = run.artifacts.map((a) => {
		const bytes = Buffer.from(files.read(runId, String(a.path)), "utf8");
		return { path: String(a.path), sha256: sha256(bytes), base64: bytes.toString("base64") };
	});
	return { format: "crew-run", version: 1, runId, rows: run, files: bundled };
}

/**
 * Records a bundle's run as imported at `importedAt`: a record to view, export and forget, whose
 * specs this store never executes (see `Crew.checkRunnable`).
 * Checks a bundle through and through before anything is written: its shape, the run id, that
 * every row belongs to that run, that the run has ended, every file name (no way out of the run's
 * folder) and every file's hash. Then records the run, without the processes its rows name (see
 * `importedAttempt`), and writes its files; if the files cannot be written, the run is taken out again.
 */
export function importRun(
	archive: RunArchive,
	files: ArtifactFiles,
	input: unknown,
	importedAt: string,
): { runId: string; files: number } {
	const bundle = readBundle(input);
	const runId = checkId("run", bundle.runId);
	const run = bundle.rows.runs;
	if (run.length !== 1)
		throw new CrewError(ErrorCode.InvalidInput, `the bundle must hold exactly one run row, not ${run.length}`);
	const status = String(run[0]?.status);
	if (!isTerminalRun(status as RunStatus)) {
		throw new CrewError(
			ErrorCode.InvalidInput,
			`run ${runId} in the bundle is ${JSON.stringify(status)}; only ended runs are imported`,
		);
	}
	const decoded = bundle.files.map((f) => {
		files.path(runId, f.path);
		const bytes = Buffer.from(f.base64, "base64");
		if (sha256(bytes) !== f.sha256) {
			throw new CrewError(
				ErrorCode.InvalidInput,
				`file ${JSON.stringify(f.path)} in the bundle does not match its sha256`,
			);
		}
		return { path: f.path, bytes };
	});
	const cleared = {
		...bundle.rows,
		runs: run.map((r) => ({
			...r,
			options: optionsAsStored(r.options),
			...Object.fromEntries(RUNNER_COLUMNS.map((c) => [c, null])),
			imported_at: importedAt,
		})),
		attempts: bundle.rows.attempts.map((a) => importedAttempt(a, run[0]?.updated_at ?? null)),
	};
	archive.insert(runId, cleared);
	try {
		for (const f of decoded) {
			const row = bundle.rows.artifacts.find((a) => a.path === f.path);
			files.write(runId, (row?.task_id as string | null) ?? null, f.path, String(row?.kind ?? "file"), f.bytes);
		}
	} catch (error) {
		archive.forget(runId);
		files.remove(runId);
		throw error;
	}
	return { runId, files: decoded.length };
}
