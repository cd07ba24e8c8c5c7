// The CLI's read commands: `crew status`, `watch`, `runs`, `inbox`, `events`, `result` and `logs`.

import { setTimeout as sleep } from "node:timers/promises";
import { findProject } from "../../config/project.js";
import { CrewError, ErrorCode } from "../../core/errors.js";
import { logEntry } from "../../core/log-line.js";
import { isTerminalRun, isTerminalTask, type TaskStatus } from "../../core/status.js";
import type { TaskJsonField } from "../../core/status-selection.js";
import { timed } from "../../core/timings.js";
import { eventJson, listedRun } from "../../engine/views/json.js";
import { RunReader } from "../../engine/views/reader.js";
import { mergeView, type RunView } from "../../engine/views/run-view.js";
import { MOST_RUNS_LISTED } from "../../store/run-pages.js";
import { inboxItems, inboxText } from "../shared/inbox.js";
import { runStanding } from "../shared/run-ending.js";
import { exitOfRun } from "./exit-codes.js";
import { eventText, logText, runsText, statusText } from "./format.js";
import { print, printError } from "./print.js";
import { WatchView } from "./watch-view.js";

export interface JsonOption {
	readonly json?: boolean;
}

export interface FollowOption extends JsonOption {
	readonly follow?: boolean;
}

function withReader<T>(fn: (reader: RunReader) => T): T {
	const reader = timed("open the store", () => new RunReader(findProject(process.cwd())));
	try {
		return timed("read", () => fn(reader));
	} finally {
		reader.close();
	}
}

export interface StatusOptions extends JsonOption {
	readonly tasks?: readonly TaskStatus[];
	readonly fields?: readonly TaskJsonField[];
}

export async function statusCommand(runId: string | undefined, options: StatusOptions): Promise<number> {
	const { json, tasks, fields } = options;
	if (!json && (tasks || fields)) {
		throw new CrewError(
			ErrorCode.InvalidInput,
			"--tasks and --fields choose what crew status --json gives: add --json",
		);
	}
	const text = withReader((reader) =>
		json
			? `${reader.statusJson(runId, { ...(tasks ? { tasks } : {}), ...(fields ? { fields } : {}) })}\n`
			: statusText(
					reader.status(runId),
					Date.now(),
					reader.usageBy(runId),
					reader.children(runId),
					reader.requirements(runId),
				),
	);
	print(text);
	return 0;
}

export interface WatchOptions {
	/** Time between refreshes, in ms. */
	readonly interval: number;
}

/** Redraws the run from the store until it ends; exits 0 only when it completed. */
export async function watchCommand(runId: string | undefined, options: WatchOptions): Promise<number> {
	const reader = new RunReader(findProject(process.cwd()));
	const view = new WatchView(process.stdout);
	try {
		// Each refresh after the first reads only what changed since the one before.
		let state: RunView | undefined;
		for (;;) {
			const now = Date.now();
			state = state ? mergeView(state, reader.changes(state.run.id, state.seq)) : reader.view(runId);
			const id = state.run.id;
			view.show(state, now, reader.children(id));
			if (isTerminalRun(state.run.status)) {
				const { run, tasks } = reader.status(id);
				const budgetSpent = reader.budgetStopped(id);
				return exitOfRun(runStanding(run, tasks, { budgetSpent }).ending);
			}
			await sleep(options.interval);
		}
	} finally {
		reader.close();
	}
}

export async function runsCommand(options: JsonOption & { session?: string }): Promise<number> {
	const runs = withReader((reader) =>
		reader.repo
			.runPage({ limit: MOST_RUNS_LISTED, offset: 0 })
			.runs.filter(({ run }) => options.session === undefined || run.options.caller?.session === options.session),
	);
	if (options.json) {
		print(`${JSON.stringify(runs.map(listedRun))}\n`);
	} else print(runsText(runs.map(({ run }) => run)));
	return 0;
}

/** `crew inbox`: everything waiting on a person in this repository, oldest first. */
export async function inboxCommand(options: JsonOption): Promise<number> {
	const items = withReader((reader) => inboxItems(reader));
	print(options.json ? `${JSON.stringify({ items })}\n` : inboxText(items));
	return 0;
}

export async function eventsCommand(runId: string, options: FollowOption): Promise<number> {
	const reader = new RunReader(findProject(process.cwd()));
	try {
		let after = 0;
		let ended = false;
		for (;;) {
			const events = reader.events(runId, after);
			for (const event of events) {
				print(`${options.json ? JSON.stringify(eventJson(event)) : eventText(event)}\n`);
				after = event.seq;
			}
			if (events.length > 0) continue;
			// Events written between the last read and the run's end are read once more before leaving.
			if (!options.follow || ended) return 0;
			ended = isTerminalRun(reader.run(runId).status);
			if (!ended) await sleep(200);
		}
	} finally {
		reader.close();
	}
}

export async function resultCommand(runId: string, ref: string | undefined, options: JsonOption): Promise<number> {
	const task = ref ?? withReader((reader) => reader.soleTask(runId));
	if (task === undefined) {
		const { status, error, text } = withReader((reader) => reader.scriptResult(runId));
		if (options.json) {
			const result = text === "" ? null : (JSON.parse(text) as unknown);
			print(`${JSON.stringify({ runId, status, error, result })}\n`);
		} else {
			print(text);
			if (text === "") printError(`run ${runId} is ${status} and has no result${error ? `: ${error}` : ""}\n`);
		}
		return 0;
	}
	const { task: record, text } = withReader((reader) => reader.result(runId, task));
	if (options.json) {
		print(
			`${JSON.stringify({ runId, taskId: record.id, stepId: record.stepId, status: record.status, error: record.error, result: text })}\n`,
		);
	} else {
		print(text.endsWith("\n") || text === "" ? text : `${text}\n`);
		if (text === "")
			printError(`task ${record.id} is ${record.status} and has no result${record.error ? `: ${record.error}` : ""}\n`);
	}
	return 0;
}

/**
 * A task's log: what its agent said, the tools it called and what they returned, what a command
 * printed, attempt by attempt. With `follow`, goes on until the task has ended.
 */
export async function logsCommand(
	runId: string,
	task: string,
	options: FollowOption & { readonly raw?: boolean },
): Promise<number> {
	// --raw: as the agent wrote it, control characters and all, for a program to read.
	const write = options.raw ? (text: string) => process.stdout.write(text) : print;
	const reader = new RunReader(findProject(process.cwd()));
	try {
		let after = 0;
		let ended = false;
		for (;;) {
			const { task: record, events } = reader.taskEvents(runId, task, after);
			for (const event of events) {
				after = event.seq;
				const entry = logEntry(event);
				if (!entry) continue;
				const line = options.json
					? JSON.stringify({ seq: event.seq, time: event.time, type: event.type, kind: entry.kind, text: entry.text })
					: logText(event, entry);
				write(`${line}\n`);
			}
			if (events.length > 0) continue;
			if (!options.follow || ended) return 0;
			ended = isTerminalTask(record.status) || isTerminalRun(reader.run(runId).status);
			if (!ended) await sleep(200);
		}
	} finally {
		reader.close();
	}
}
