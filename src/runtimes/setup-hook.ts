// The user's setup hook, run in a task's worktree before its agent within its own time limit.

import { join } from "node:path";
import { formatDuration } from "../core/duration.js";
import type { RunOptions } from "../core/types.js";
import { ZERO_USAGE } from "../core/usage.js";
import type { RunControl, TaskRequest, WorkerResult, WorkerRuntime } from "./worker-runtime.js";

/**
 * Runs the user's setup hook in a new worktree, within its own time limit and the attempt's
 * signal; returns the failed result to end the attempt with, or undefined when it passed.
 */
export async function runSetup(
	runner: WorkerRuntime,
	hook: NonNullable<RunOptions["setup"]>,
	request: TaskRequest,
	control: RunControl,
): Promise<WorkerResult | undefined> {
	const limit = new AbortController();
	const timer = setTimeout(
		() => limit.abort(new Error(`timed out after ${formatDuration(hook.timeoutMs)}`)),
		hook.timeoutMs,
	);
	const signal = AbortSignal.any([control.signal, limit.signal]);
	try {
		const result = await runner.run(
			{
				...request,
				agent: { name: "setup hook", runtime: "command", command: `${hook.command} 2>&1`, systemPrompt: "" },
				artifactDir: join(request.artifactDir, "setup"),
				artifactPrefix: `${request.artifactPrefix}/setup`,
			},
			{ signal, onEvent: control.onEvent },
		);
		if (result.ok) return undefined;
		const output = result.text.length > 4000 ? result.text.slice(-4000) : result.text;
		const message = `the setup hook \`${hook.command}\` failed: ${result.error?.message ?? "it did not pass"}\n${output}`;
		return { ...result, ok: false, error: { message: message.trimEnd(), retryable: false } };
	} catch (error) {
		control.signal.throwIfAborted();
		const message = `the setup hook \`${hook.command}\` ${error instanceof Error ? error.message : String(error)}`;
		return {
			ok: false,
			text: "",
			exitCode: null,
			usage: ZERO_USAGE,
			artifacts: [],
			error: { message, retryable: false },
		};
	} finally {
		clearTimeout(timer);
	}
}
