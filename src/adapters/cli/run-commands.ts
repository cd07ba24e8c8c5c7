import { spawn } from "node:child_process";
import { mkdirSync, openSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { ensureCrewDir, findProject } from "../../config/project.js";
import { parseDuration } from "../../core/duration.js";
import { RunStatus } from "../../core/status.js";
import type { FailurePolicy } from "../../core/types.js";
import { Crew } from "../../engine/crew.js";
import { presentRun } from "../../engine/run-reader.js";
import { Exit } from "./exit-codes.js";
import { ProgressView } from "./progress-view.js";
import { summaryText } from "./summary.js";

interface RunFlags {
	readonly workflow: string;
	readonly team?: string;
	readonly runtime?: string;
	readonly concurrency?: number;
	readonly failure?: FailurePolicy;
	readonly timeout?: string;
	readonly stallTimeout?: string;
	readonly retries?: number;
	readonly detach?: boolean;
	readonly json?: boolean;
}

export async function init(): Promise<number> {
	const project = findProject(process.cwd());
	const created = ensureCrewDir(project);
	for (const folder of ["agents", "teams", "workflows"]) mkdirSync(join(project.crewDir, folder), { recursive: true });
	process.stdout.write(`${created ? "created" : "already set up:"} ${project.crewDir}\n`);
	return Exit.Ok;
}

export async function runCommand(goal: string, flags: RunFlags): Promise<number> {
	const project = findProject(process.cwd());
	const view = new ProgressView(flags.json ? process.stderr : process.stdout, flags.json ? { tty: false } : {});
	const quiet = flags.json === true && !process.stderr.isTTY;
	const crew = new Crew({ project, ...(quiet || flags.detach ? {} : { onEvent: view.onEvent }) });
	try {
		const plan = crew.plan({
			goal,
			workflow: flags.workflow,
			...(flags.team !== undefined ? { team: flags.team } : {}),
			...(flags.runtime !== undefined ? { runtime: flags.runtime } : {}),
			...(flags.concurrency !== undefined ? { concurrency: flags.concurrency } : {}),
			...(flags.failure !== undefined ? { failure: flags.failure } : {}),
			...(flags.timeout !== undefined ? { timeoutMs: parseDuration("timeout", flags.timeout) } : {}),
			...(flags.stallTimeout !== undefined
				? { stallTimeoutMs: parseDuration("stall timeout", flags.stallTimeout) }
				: {}),
			...(flags.retries !== undefined ? { retries: flags.retries } : {}),
		});
		for (const d of plan.diagnostics) process.stderr.write(`crew: ${d.level}: ${d.file}: ${d.message}\n`);
		const runId = crew.create(plan);
		if (flags.detach) return await detach(crew, runId, flags.json === true);
		if (!flags.json) process.stdout.write(`run ${runId}: ${plan.tasks.length} tasks, workflow ${plan.workflow}\n`);
		return await foreground(crew, runId, view, flags.json === true, quiet);
	} finally {
		crew.close();
	}
}

export async function resumeCommand(runId: string, flags: { detach?: boolean; json?: boolean }): Promise<number> {
	const project = findProject(process.cwd());
	const view = new ProgressView(flags.json ? process.stderr : process.stdout, flags.json ? { tty: false } : {});
	const quiet = flags.json === true && !process.stderr.isTTY;
	const crew = new Crew({ project, ...(quiet || flags.detach ? {} : { onEvent: view.onEvent }) });
	try {
		const run = crew.queries.getRun(runId);
		if (run.status === RunStatus.Completed) {
			if (flags.json) process.stdout.write(`${JSON.stringify({ runId, status: run.status })}\n`);
			else process.stdout.write(`run ${runId} is completed; nothing to resume\n`);
			return Exit.Ok;
		}
		if (flags.detach) return await detach(crew, runId, flags.json === true);
		return await foreground(crew, runId, view, flags.json === true, quiet);
	} finally {
		crew.close();
	}
}

export async function retryCommand(runId: string, task: string, flags: { json?: boolean }): Promise<number> {
	const project = findProject(process.cwd());
	const view = new ProgressView(flags.json ? process.stderr : process.stdout, flags.json ? { tty: false } : {});
	const quiet = flags.json === true && !process.stderr.isTTY;
	const crew = new Crew({ project, ...(quiet ? {} : { onEvent: view.onEvent }) });
	try {
		return await foreground(crew, runId, view, flags.json === true, quiet, task);
	} finally {
		crew.close();
	}
}

export async function cancelCommand(runId: string): Promise<number> {
	const crew = new Crew({ project: findProject(process.cwd()) });
	try {
		const before = crew.queries.getRun(runId).status;
		const status = await crew.cancel(runId, "cancelled with crew cancel");
		if (status === RunStatus.Cancelled) {
			process.stdout.write(`run ${runId} cancelled\n`);
			return Exit.Ok;
		}
		if (before === status && status !== RunStatus.Running && status !== RunStatus.Waiting) {
			process.stdout.write(`run ${runId} had already ended: ${status}\n`);
			return Exit.Ok;
		}
		process.stderr.write(`crew: run ${runId} is still ${status}; its runner did not confirm the cancel in time\n`);
		return Exit.Failed;
	} finally {
		crew.close();
	}
}

/** Runs in this process with live progress; Ctrl-C or SIGTERM cancels the run cleanly. */
async function foreground(
	crew: Crew,
	runId: string,
	view: ProgressView,
	json: boolean,
	quiet: boolean,
	retryTask?: string,
): Promise<number> {
	const controller = new AbortController();
	let interrupted = false;
	const onSignal = (signal: NodeJS.Signals) => {
		interrupted = true;
		controller.abort(new Error(`cancelled by ${signal}`));
	};
	process.on("SIGINT", onSignal);
	process.on("SIGTERM", onSignal);
	if (!quiet) view.start(crew.queries.listTasks(runId));
	let status: RunStatus;
	try {
		status = retryTask
			? await crew.retry(runId, retryTask, { signal: controller.signal })
			: await crew.execute(runId, { signal: controller.signal });
	} finally {
		view.stop();
		process.off("SIGINT", onSignal);
		process.off("SIGTERM", onSignal);
	}
	const snapshot = presentRun(crew.queries.snapshot(runId), Date.now());
	if (json) process.stdout.write(`${JSON.stringify({ runId, status })}\n`);
	else process.stdout.write(summaryText(snapshot, crew.files.display(runId, "tasks", crew.project.root), Date.now()));
	if (status === RunStatus.Completed) return Exit.Ok;
	return interrupted ? Exit.Interrupted : Exit.Failed;
}

/** Starts `crew resume <runId>` as a background runner and waits until it holds the run. */
async function detach(crew: Crew, runId: string, json: boolean): Promise<number> {
	const bin = fileURLToPath(new URL("../../../bin/crew.js", import.meta.url));
	const logDir = crew.files.runDir(runId);
	mkdirSync(logDir, { recursive: true });
	const log = openSync(join(logDir, "runner.log"), "a");
	const child = spawn(process.execPath, [bin, "resume", runId], {
		cwd: crew.project.root,
		detached: true,
		stdio: ["ignore", log, log],
	});
	let exited: number | null = null;
	child.once("exit", (code) => {
		exited = code ?? 1;
	});
	child.unref();
	const until = Date.now() + 15_000;
	let status = crew.queries.getRun(runId).status;
	while (status === RunStatus.Queued && exited === null && Date.now() < until) {
		await sleep(25);
		status = crew.queries.getRun(runId).status;
	}
	if (status === RunStatus.Queued) {
		process.stderr.write(
			`crew: the background runner of run ${runId} did not start; see ${join(logDir, "runner.log")}\n`,
		);
		return Exit.Failed;
	}
	if (json) process.stdout.write(`${JSON.stringify({ runId, status })}\n`);
	else
		process.stdout.write(
			`run ${runId} ${status} in the background (pid ${child.pid}); follow it with: crew status ${runId}\n`,
		);
	return Exit.Ok;
}
