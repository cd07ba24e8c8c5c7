// Everything the dashboard's task panel shows of one task: its attempts, prompt, result, patch and log.

import { type LogKind, logEntry } from "../../core/log-line.js";
import { sandboxText } from "../../core/sandbox-level.js";
import { setAsideText } from "../../core/set-aside-text.js";
import { runOffers, type UsageJson, usageJson } from "../../engine/views/json.js";
import type { RunReader } from "../../engine/views/reader.js";
import { taskJson } from "./api-json.js";

/** Characters of a prompt, result or patch the task panel gets; the rest stays in the artifact. */
const MAX_TEXT = 200_000;
/** Log lines the task panel gets: the latest ones. */
const MAX_LOG = 2000;

export interface TaskDetail {
	readonly task: object;
	/**
	 * Its run's status and what may be done with it (see `runOffers`), read with the task: a panel
	 * deciding what to offer never pairs the task with an older reading of its run.
	 */
	readonly run: { status: string; heldBy?: number; script?: string };
	/** The prompt of its latest attempt. */
	readonly prompt: string;
	readonly log: readonly { seq: number; time: string; kind: LogKind; text: string }[];
	readonly result: string;
	/** Its latest change as a patch, when it worked in a worktree. */
	readonly patch: string | null;
	/** How its latest attempt was confined, in words (`sandbox workspace, network …`); null before it ran. */
	readonly sandbox: string | null;
	/** The git folders its attempts left in their workspace and crew moved out, in words, each with its attempt. */
	readonly setAside: readonly string[];
	readonly attempts: readonly {
		number: number;
		runtime: string;
		status: string;
		startedAt: string;
		finishedAt: string | null;
		exitCode: number | null;
		error: string | null;
		/** What it used as recorded, however it ended. */
		usage: UsageJson;
	}[];
	readonly artifacts: readonly { path: string; kind: string; size: number }[];
}

function bounded(text: string): string {
	return text.length > MAX_TEXT
		? `${text.slice(0, MAX_TEXT)}\n[crew: ${text.length - MAX_TEXT} more characters in the artifact]`
		: text;
}

/** Everything the dashboard's task panel shows of one task, read through that task's rows alone. */
export function taskDetail(reader: RunReader, runId: string, ref: string): TaskDetail {
	const { run, task } = reader.taskView(runId, ref);
	const artifacts = reader.taskArtifacts(runId, task.id);
	const latest = (kind: string) => artifacts.filter((a) => a.kind === kind).at(-1);
	const read = (path: string | undefined) => (path ? bounded(reader.files.read(runId, path)) : null);
	const log = reader.taskLog(runId, task.id, MAX_LOG).flatMap((event) => {
		const entry = logEntry(event);
		return entry ? [{ seq: event.seq, time: event.time, kind: entry.kind, text: entry.text }] : [];
	});
	return {
		task: taskJson(task),
		run: { status: run.status, ...runOffers(run) },
		prompt: read(artifacts.find((a) => a.path === `tasks/${task.id}/prompt.md`)?.path) ?? "",
		log,
		result: bounded(reader.result(runId, task.id).text),
		patch: read(latest("patch")?.path),
		sandbox: task.sandbox ? sandboxText(task.sandbox, `crew status ${runId} --json`) : null,
		setAside: (task.setAside ?? []).map((aside) => `attempt ${aside.attempt}: ${setAsideText(aside)}`),
		attempts: reader
			.taskAttempts(runId, task.id)
			.map(({ number, runtime, status, startedAt, finishedAt, exitCode, error, usage }) => ({
				number,
				runtime,
				status,
				startedAt,
				finishedAt,
				exitCode,
				error,
				usage: usageJson(usage),
			})),
		artifacts: artifacts.map(({ path, kind, size }) => ({ path, kind, size })),
	};
}
