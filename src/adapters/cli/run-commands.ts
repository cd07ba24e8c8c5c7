// `crew init`, `run`, `resume`, `retry`, `approve`, `reject` and `cancel`, and how a run is run or handed off.

import { mkdirSync } from "node:fs";
import { join, relative } from "node:path";
import { ensureCrewDir, findProject, writeCrewIgnore } from "../../config/project.js";
import { loadSettings, type Settings } from "../../config/settings.js";
import { checkId } from "../../core/ids.js";
import type { EventRecord } from "../../core/records.js";
import { isTerminalRun, RunStatus } from "../../core/status.js";
import { timed } from "../../core/timings.js";
import type { Crew } from "../../engine/crew.js";
import { estimateFromStore } from "../../engine/planning/estimate.js";
import { RunReader } from "../../engine/views/reader.js";
import type { RunListing } from "../../engine/views/run-view.js";
import { diagnosticText } from "../../resources/frontmatter.js";
import { type BackgroundRunner, retryInBackground, startBackgroundRunner } from "../shared/background-runner.js";
import { configuredRuntimes } from "../shared/configured-runtimes.js";
import { delegationRoute } from "../shared/delegation-client.js";
import { Notifier } from "../shared/notifier.js";
import { type RunStanding, runStanding } from "../shared/run-ending.js";
import { type RunAsk, runInput } from "../shared/run-input.js";
import { delegatedCommand, ignoredOptions } from "./delegated-command.js";
import { Exit, exitOfRun } from "./exit-codes.js";
import { readGoal } from "./goal-input.js";
import { openCrew } from "./open-crew.js";
import { print, printError } from "./print.js";
import { ProgressView } from "./progress-view.js";
import { writeStarter } from "./starter.js";
import { summaryText } from "./summary.js";

export interface RunFlags extends Omit<RunAsk, "goal"> {
	readonly goalFile?: string;
	readonly detach?: boolean;
	readonly json?: boolean;
}

export interface OutputFlags {
	readonly detach?: boolean;
	readonly json?: boolean;
	/** Set on the background runner `crew run --detach` starts: it must not revive a cancelled run. */
	readonly ifQueued?: boolean;
	/** Set on every background runner: it waits for approvals, where a foreground run stops. */
	readonly background?: boolean;
}

/** Signals that end a foreground run cleanly: Ctrl-C, `kill`, and a closed terminal. */
const STOP_SIGNALS: readonly NodeJS.Signals[] = ["SIGINT", "SIGTERM", "SIGHUP"];

/**
 * A Crew for this repository, its agent CLIs and their extra environment as the user's config
 * says, with the foreground view attached unless output is JSON-only.
 */
export function open(flags: OutputFlags): { crew: Crew; view: ProgressView; quiet: boolean; settings: Settings } {
	const view = new ProgressView(flags.json ? process.stderr : process.stdout, flags.json ? { tty: false } : {});
	const quiet = flags.detach === true || (flags.json === true && !process.stderr.isTTY);
	const project = timed("find the project", () => findProject(process.cwd()));
	const settings = timed("read the settings", () => loadSettings(project));
	for (const warning of settings.warnings) printError(`crew: warning: ${warning}\n`);
	const targets = settings.notify ?? [];
	const notifier =
		targets.length > 0 ? new Notifier({ targets, dbFile: project.dbFile, repository: project.root }) : undefined;
	const hear = [...(quiet ? [] : [view.onEvent]), ...(notifier ? [notifier.heard] : [])];
	const crew = timed("open the store", () =>
		openCrew(project, {
			runtimes: configuredRuntimes(settings),
			...(hear.length > 0
				? {
						onEvent: (runId: string, event: EventRecord) => {
							for (const h of hear) h(runId, event);
						},
					}
				: {}),
		}),
	);
	return { crew, view, quiet, settings };
}

/** `crew init`: `.crew/` with a starter team that runs as it is, or with `bare`, empty folders. */
export async function init(flags: { bare?: boolean }): Promise<number> {
	const project = findProject(process.cwd());
	const created = ensureCrewDir(project);
	writeCrewIgnore(project);
	for (const folder of ["agents", "teams", "workflows"]) mkdirSync(join(project.crewDir, folder), { recursive: true });
	print(`${created ? "created" : "already set up:"} ${project.crewDir}\n`);
	if (flags.bare) return Exit.Ok;
	const { written, kept } = writeStarter(project.crewDir);
	for (const file of written) print(`  wrote ${relative(project.root, file)}\n`);
	for (const file of kept) print(`  kept ${relative(project.root, file)} (it exists)\n`);
	print(
		`the starter team scouts, builds and checks with pi agents on pi's own model (or --model <provider/model>)\nnext: crew run "<goal>" --team starter\n`,
	);
	return Exit.Ok;
}

export async function runCommand(argument: string | undefined, flags: RunFlags): Promise<number> {
	const goal = readGoal(argument, flags.goalFile);
	const socket = delegationRoute(process.env, "crew run");
	if (socket) {
		const { team, workflow, model, budgetTokens, concurrency, json, goalFile: _, ...rest } = flags;
		const ask = {
			task: goal,
			...(team ? { team } : {}),
			...(workflow ? { workflow } : {}),
			...(model ? { model } : {}),
			...(budgetTokens ? { budgetTokens } : {}),
			...(concurrency ? { concurrency } : {}),
		};
		return await delegatedCommand(socket, ask, json === true, ignoredOptions(rest, []));
	}
	const { crew, view, quiet, settings } = open(flags);
	try {
		const plan = await timed("plan the run", () => crew.plan(runInput({ ...flags, goal }, settings)));
		for (const d of plan.diagnostics) printError(`crew: ${diagnosticText(d)}\n`);
		// Only a model the person named is checked, and only then is pi asked which it has.
		if (flags.model) await (await import("../shared/model-check.js")).checkPlanModel(plan, flags.model, settings);
		// Read before the run joins the history it reads.
		const estimate = flags.json ? null : estimateFromStore(plan, crew.project);
		const runId = timed("record the run", () => crew.create(plan));
		if (estimate && flags.detach) print(`estimate: ${estimate.line}\n`);
		if (flags.detach) return await detach(crew, runId, flags.json === true, ["--if-queued"]);
		if (!flags.json) {
			const what = plan.options.script
				? `workflow script ${plan.workflow}: its tasks appear as it runs`
				: `${plan.tasks.length} tasks, workflow ${plan.workflow}`;
			print(`run ${runId}: ${what}\n${estimate ? `estimate: ${estimate.line}\n` : ""}`);
		}
		return await foreground(crew, runId, view, flags.json === true, quiet);
	} finally {
		crew.close();
	}
}

export interface ResumeFlags extends OutputFlags {
	/** New caps for the run, set before it resumes. */
	readonly budgetTokens?: number;
	readonly budgetUsd?: number;
}

export async function resumeCommand(runId: string, flags: ResumeFlags): Promise<number> {
	checkId("run", runId);
	const { crew, view, quiet } = open(flags);
	try {
		const { budgetTokens: tokens, budgetUsd: usd } = flags;
		if (tokens !== undefined || usd !== undefined) {
			crew.changeBudget(runId, { ...(tokens !== undefined ? { tokens } : {}), ...(usd !== undefined ? { usd } : {}) });
		}
		const run = crew.run(runId);
		if (run.status === RunStatus.Completed) {
			if (flags.json) print(`${JSON.stringify({ runId, status: run.status })}\n`);
			else print(`run ${runId} is completed; nothing to resume\n`);
			return Exit.Ok;
		}
		if (flags.detach) return await detach(crew, runId, flags.json === true, []);
		return await foreground(crew, runId, view, flags.json === true, quiet, {
			onlyIfQueued: flags.ifQueued === true,
			background: flags.background === true,
		});
	} finally {
		crew.close();
	}
}

export async function retryCommand(runId: string, task: string, flags: OutputFlags): Promise<number> {
	checkId("run", runId);
	const { crew, view, quiet } = open(flags);
	try {
		if (flags.detach) return report(runId, await retryInBackground(crew, runId, task), flags.json === true);
		return await foreground(crew, runId, view, flags.json === true, quiet, {
			retryTask: task,
			background: flags.background === true,
		});
	} finally {
		crew.close();
	}
}

/** Approves what the run waits for; with no live runner, starts one in the background. */
export async function approveCommand(runId: string, flags: { json?: boolean }): Promise<number> {
	checkId("run", runId);
	const crew = openCrew(findProject(process.cwd()));
	try {
		const { tasks, runnerAlive } = crew.approve(runId);
		if (!flags.json) print(`approved: ${tasks.join(", ")}\n`);
		if (!runnerAlive) return await detach(crew, runId, flags.json === true, []);
		if (flags.json) print(`${JSON.stringify({ runId, status: crew.run(runId).status })}\n`);
		return Exit.Ok;
	} finally {
		crew.close();
	}
}

export async function rejectCommand(runId: string, flags: { reason: string }): Promise<number> {
	checkId("run", runId);
	const crew = openCrew(findProject(process.cwd()));
	try {
		const status = await crew.reject(runId, flags.reason);
		print(`run ${runId} ${status}: rejected: ${flags.reason.trim()}\n`);
		return status === RunStatus.Cancelled ? Exit.Ok : Exit.Failed;
	} finally {
		crew.close();
	}
}

export async function cancelCommand(runId: string): Promise<number> {
	checkId("run", runId);
	const crew = openCrew(findProject(process.cwd()));
	try {
		const before = crew.run(runId).status;
		const status = await crew.cancel(runId, "cancelled with crew cancel");
		if (status === RunStatus.Cancelled && before !== RunStatus.Cancelled) {
			print(`run ${runId} cancelled\n`);
			return Exit.Ok;
		}
		if (isTerminalRun(status)) {
			print(`run ${runId} had already ended: ${status}\n`);
			return Exit.Ok;
		}
		printError(`crew: run ${runId} is still ${status}; its runner did not confirm the cancel in time\n`);
		return Exit.Failed;
	} finally {
		crew.close();
	}
}

/** How a run run in this process stopped, and how it stands for its caller. */
export interface HereOutcome {
	readonly status: RunStatus;
	readonly standing: RunStanding;
	readonly listing: RunListing;
}

/**
 * Runs in this process, with live progress unless `quiet`; a stop signal cancels the run cleanly
 * (left resumable). A foreground run that only a person can let go on stops.
 */
export async function runHere(
	crew: Crew,
	runId: string,
	view: ProgressView,
	quiet: boolean,
	how: { retryTask?: string; onlyIfQueued?: boolean; background?: boolean } = {},
): Promise<HereOutcome> {
	const controller = new AbortController();
	let interrupted = false;
	const onSignal = (signal: NodeJS.Signals) => {
		interrupted = true;
		controller.abort(new Error(`cancelled by ${signal}`));
	};
	for (const signal of STOP_SIGNALS) process.on(signal, onSignal);
	// The view reads the task list as people see it, so it lists tasks the run gains as they join.
	const reader = new RunReader(crew.project);
	try {
		let status: RunStatus;
		try {
			if (!quiet) view.start(runId, () => reader.status(runId).tasks);
			const options = {
				signal: controller.signal,
				onlyIfQueued: how.onlyIfQueued === true,
				releaseWhenWaiting: !how.background,
			};
			status = how.retryTask ? await crew.retry(runId, how.retryTask, options) : await crew.execute(runId, options);
		} finally {
			view.stop();
			for (const signal of STOP_SIGNALS) process.off(signal, onSignal);
		}
		const listing = reader.status(runId);
		const budgetSpent = reader.budgetStopped(runId);
		return { status, listing, standing: runStanding(listing.run, listing.tasks, { budgetSpent, interrupted }) };
	} finally {
		reader.close();
	}
}

/** Runs in this process with live progress, then prints the run's summary. */
export async function foreground(
	crew: Crew,
	runId: string,
	view: ProgressView,
	json: boolean,
	quiet: boolean,
	how: { retryTask?: string; onlyIfQueued?: boolean; background?: boolean } = {},
): Promise<number> {
	const { status, listing, standing } = await timed("run it", () => runHere(crew, runId, view, quiet, how));
	if (json) print(`${JSON.stringify({ runId, status })}\n`);
	else {
		const files = crew.files.display(runId, "tasks", crew.project.root);
		print(summaryText(listing, files, Date.now(), standing.next));
	}
	return exitOfRun(standing.ending);
}

/** Hands the run to a background runner and says so. */
export async function detach(crew: Crew, runId: string, json: boolean, extra: readonly string[]): Promise<number> {
	return report(runId, await startBackgroundRunner(crew, runId, extra), json);
}

/** Says which background runner took the run. */
function report(runId: string, runner: BackgroundRunner, json: boolean): number {
	if (json) print(`${JSON.stringify({ runId, status: runner.status })}\n`);
	else
		print(`run ${runId} ${runner.status} in the background (pid ${runner.pid}); follow it with: crew watch ${runId}\n`);
	return Exit.Ok;
}
