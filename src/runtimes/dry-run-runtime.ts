// The dry-run runtime: runs nothing, and completes each task once its prompt is stored.

import { ZERO_USAGE } from "../core/usage.js";
import type { RunControl, TaskRequest, WorkerResult, WorkerRuntime } from "./worker-runtime.js";

/** Runs nothing: the engine has already rendered and stored the prompt; the task completes. */
export class DryRunRuntime implements WorkerRuntime {
	readonly name = "dry-run";

	async run(request: TaskRequest, { signal }: RunControl): Promise<WorkerResult> {
		signal.throwIfAborted();
		const text = `dry run: agent '${request.agent.name}' (${request.agent.runtime}) was not started; its ${request.prompt.length}-character prompt is stored in ${request.promptFile}\n`;
		return { ok: true, text, exitCode: null, usage: ZERO_USAGE, artifacts: [] };
	}
}
