// Background runners: detached crew processes started for a run, a retry or a caller's new run.

import { type ChildProcess, spawn } from "node:child_process";
import { closeSync, mkdirSync, openSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { crewPackagePath } from "../../config/crew-package.js";
import { CrewError, ErrorCode } from "../../core/errors.js";
import { isTerminalRun, type RunStatus } from "../../core/status.js";
import type { Crew } from "../../engine/crew.js";
import type { Plan } from "../../engine/planning/plan-input.js";
import { originOf, type RunAsker, withOrigin } from "./run-asker.js";

/** How long a new background runner may take to hold its run's lease. */
const START_LIMIT_MS = 15_000;

export interface BackgroundRunner {
	readonly pid: number;
	/** The run's status once the runner held it (or, for a very short run, once it ended). */
	readonly status: RunStatus;
	/** Where the runner's own output goes. */
	readonly logFile: string;
}

/**
 * Starts `crew resume <runId> --background` (or `command` instead of `resume <runId>`) as a
 * detached process and waits until it holds the run's lease, so the caller can report the run as
 * taken care of. `extra` is passed on to the command. A run this store may not execute is refused
 * here, before a process starts (the runner checks again).
 */
export async function startBackgroundRunner(
	crew: Crew,
	runId: string,
	extra: readonly string[] = [],
	command: readonly string[] = ["resume", runId],
): Promise<BackgroundRunner> {
	crew.checkRunnable(runId);
	const bin = crewPackagePath("bin", "crew.js");
	const logDir = crew.files.runDir(runId);
	mkdirSync(logDir, { recursive: true });
	const logFile = join(logDir, "runner.log");
	const log = openSync(logFile, "a");
	let child: ChildProcess;
	try {
		child = spawn(process.execPath, [bin, ...command, "--background", ...extra], {
			cwd: crew.project.root,
			detached: true,
			stdio: ["ignore", log, log],
			// Credentials of the run's queue and repository reach the runner here, never through the store.
			env: { ...process.env, ...crew.credentialEnvironment(runId) },
		});
	} finally {
		// The runner has its own copy once spawned: this long-lived process keeps none.
		closeSync(log);
	}
	let exited = false;
	child.once("exit", () => {
		exited = true;
	});
	child.unref();
	const until = Date.now() + START_LIMIT_MS;
	for (;;) {
		const run = crew.run(runId);
		if (child.pid !== undefined && (run.lease?.pid === child.pid || (exited && isTerminalRun(run.status)))) {
			return { pid: child.pid, status: run.status, logFile };
		}
		if (exited || Date.now() > until) {
			throw new CrewError(ErrorCode.Runtime, `the background runner of run ${runId} did not start; see ${logFile}`);
		}
		await sleep(25);
	}
}

/**
 * Retries task `ref` of a run in a background runner (`crew retry <runId> <ref> --background`);
 * a task that cannot be retried now is refused here, saying why, before a process starts.
 */
export async function retryInBackground(crew: Crew, runId: string, ref: string): Promise<BackgroundRunner> {
	crew.checkRetry(runId, ref);
	return await startBackgroundRunner(crew, runId, [], ["retry", runId, ref]);
}

/**
 * Creates the run of `plan` for `asker`, recording who asked with it (see `originOf`), and hands
 * it to a background runner; `warnings` are the settings' and the plan's.
 */
export async function startCallerRun(
	crew: Crew,
	plan: Plan,
	settingsWarnings: readonly string[],
	asker: RunAsker,
): Promise<{ runId: string; runner: BackgroundRunner; warnings: string[] }> {
	const runId = crew.create(withOrigin(plan, originOf(asker)));
	const runner = await startBackgroundRunner(crew, runId, ["--if-queued"]);
	const warnings = [
		...settingsWarnings,
		...plan.diagnostics
			.filter((d) => d.level === "warning")
			.map((d) => (d.file === "" ? d.message : `${d.file}: ${d.message}`)),
	];
	return { runId, runner, warnings };
}
