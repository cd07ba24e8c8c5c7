import { setTimeout as sleep } from "node:timers/promises";
import { findProject } from "../../config/project.js";
import { isTerminalRun } from "../../core/status.js";
import { RunReader, runSummary } from "../../engine/run-reader.js";
import { eventJson, eventText, runsText, statusText } from "./format.js";

export interface JsonOption {
	readonly json?: boolean;
}

export interface FollowOption extends JsonOption {
	readonly follow?: boolean;
}

function withReader<T>(fn: (reader: RunReader) => T): T {
	const reader = new RunReader(findProject(process.cwd()));
	try {
		return fn(reader);
	} finally {
		reader.close();
	}
}

export async function statusCommand(runId: string | undefined, options: JsonOption): Promise<number> {
	const text = withReader((reader) =>
		options.json
			? `${reader.statusJson(runId)}\n`
			: statusText(reader.status(runId), Date.now(), reader.usageBy(runId)),
	);
	process.stdout.write(text);
	return 0;
}

export async function runsCommand(options: JsonOption): Promise<number> {
	const runs = withReader((reader) => reader.runs());
	if (options.json) {
		process.stdout.write(`${JSON.stringify(runs.map(runSummary))}\n`);
	} else process.stdout.write(runsText(runs));
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
				process.stdout.write(`${options.json ? JSON.stringify(eventJson(event)) : eventText(event)}\n`);
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

export async function resultCommand(runId: string, task: string, options: JsonOption): Promise<number> {
	const { task: record, text } = withReader((reader) => reader.result(runId, task));
	if (options.json) {
		process.stdout.write(
			`${JSON.stringify({ runId, taskId: record.id, stepId: record.stepId, status: record.status, error: record.error, result: text })}\n`,
		);
	} else {
		process.stdout.write(text.endsWith("\n") || text === "" ? text : `${text}\n`);
		if (text === "")
			process.stderr.write(
				`task ${record.id} is ${record.status} and has no result${record.error ? `: ${record.error}` : ""}\n`,
			);
	}
	return 0;
}
