// `crew export`, `import`, `forget` and `prune --keep`: runs written to and read from bundles, and deleted.

import { readFileSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { createInterface } from "node:readline/promises";
import { findProject } from "../../config/project.js";
import { CrewError, ErrorCode, errorMessage } from "../../core/errors.js";
import { checkId } from "../../core/ids.js";
import { parseJsonText } from "../../core/json-text.js";
import type { Crew } from "../../engine/crew.js";
import { bundleGoal, exportRun } from "../../engine/history/bundle.js";
import { RunReader } from "../../engine/views/reader.js";
import { exportToFile } from "../shared/run-export.js";
import { Exit } from "./exit-codes.js";
import { openCrew } from "./open-crew.js";
import { print } from "./print.js";

/** Largest bundle `crew import` reads, in bytes. */
const MAX_BUNDLE_BYTES = 1024 * 1024 * 1024;

function withCrew<T>(fn: (crew: Crew) => Promise<T>): Promise<T> {
	const crew = openCrew(findProject(process.cwd()));
	return fn(crew).finally(() => crew.close());
}

/**
 * Whether the user agrees to `question`: `--yes` agrees, a terminal asks, anything else is
 * refused, since deleting runs must never happen by accident.
 */
async function confirmed(question: string, yes: boolean | undefined, command: string): Promise<boolean> {
	if (yes) return true;
	if (!process.stdin.isTTY) {
		throw new CrewError(
			ErrorCode.InvalidInput,
			`${command} asks before it deletes: run it in a terminal, or pass --yes`,
		);
	}
	const prompt = createInterface({ input: process.stdin, output: process.stdout });
	try {
		return /^y(es)?$/i.test((await prompt.question(`${question} [y/N] `)).trim());
	} finally {
		prompt.close();
	}
}

export async function exportCommand(runId: string, options: { output?: string }): Promise<number> {
	checkId("run", runId);
	// Export only reads the store: it works where the store may not be written, a read-only mount.
	const reader = new RunReader(findProject(process.cwd()));
	try {
		const store = { exportRun: async (id: string) => exportRun(reader.repo.archive(), reader.files, id) };
		const { file, tasks, files } = await exportToFile(store, runId, options.output, process.cwd());
		print(`exported run ${runId} (${tasks} tasks, ${files} files) to ${file}\n`);
		return Exit.Ok;
	} finally {
		reader.close();
	}
}

export interface ImportFlags {
	/** Plan the bundle's goal again with this repository's workflow and team, as a new run; import nothing. */
	readonly rerun?: boolean;
	readonly detach?: boolean;
	readonly json?: boolean;
}

/**
 * Adds a bundle's run to this store as a record, never to be executed here; or, with `--rerun`,
 * runs its goal again as `crew run` would, with this repository's own workflow and team of the
 * names the bundle gives, under this repository's trust.
 */
export async function importCommand(file: string, flags: ImportFlags = {}): Promise<number> {
	const path = resolve(file);
	let text: string;
	try {
		const size = statSync(path).size;
		if (size > MAX_BUNDLE_BYTES) throw new Error(`it is too large (${size} bytes)`);
		text = readFileSync(path, "utf8");
	} catch (error) {
		throw new CrewError(ErrorCode.InvalidInput, `cannot import ${path}: ${errorMessage(error)}`);
	}
	const bundle = parseJsonText(text, `cannot import ${path}: it`);
	if (flags.rerun) {
		const { goal, workflow, team } = bundleGoal(bundle);
		const { runCommand } = await import("./run-commands.js");
		return runCommand(goal, {
			workflow,
			...(team !== null ? { team } : {}),
			...(flags.detach ? { detach: true } : {}),
			...(flags.json ? { json: true } : {}),
		});
	}
	return withCrew(async (crew) => {
		const { runId, files } = await crew.importRun(bundle);
		print(`imported run ${runId} (${files} files); see it with: crew status ${runId}\n`);
		return Exit.Ok;
	});
}

export async function forgetCommand(runId: string, options: { yes?: boolean }): Promise<number> {
	checkId("run", runId);
	return withCrew(async (crew) => {
		const run = crew.run(runId);
		if (
			!(await confirmed(
				`Forget run ${run.id} (${run.status}, "${run.goal.split("\n")[0]}") and all its files?`,
				options.yes,
				"crew forget",
			))
		) {
			print("nothing forgotten\n");
			return Exit.Failed;
		}
		await crew.forget(runId);
		print(`forgot run ${runId}\n`);
		return Exit.Ok;
	});
}

/** Forgets the ended runs older than the `keep` newest, after asking. */
export async function pruneRunsCommand(keep: number, options: { yes?: boolean }): Promise<number> {
	return withCrew(async (crew) => {
		const old = crew.runsBeyond(keep);
		if (old.length === 0) {
			print(`nothing to prune: no ended run beyond the newest ${keep}\n`);
			return Exit.Ok;
		}
		if (
			!(await confirmed(
				`Forget ${old.length} ended runs beyond the newest ${keep}, and their files?`,
				options.yes,
				"crew prune",
			))
		) {
			print("nothing forgotten\n");
			return Exit.Failed;
		}
		const refused: string[] = [];
		for (const run of old) {
			try {
				await crew.forget(run.id);
			} catch (error) {
				refused.push(`${run.id}: ${errorMessage(error)}`);
			}
		}
		print(`forgot ${old.length - refused.length} runs\n`);
		for (const line of refused) print(`  kept ${line}\n`);
		return refused.length > 0 ? Exit.Failed : Exit.Ok;
	});
}
