import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { RunControl, TaskRequest, WorkerResult, WorkerRuntime } from "../runtimes/worker-runtime.js";
import type { Worktrees } from "../workspace/worktrees.js";

/**
 * A runtime whose tasks work in their own git worktree: prepared from the run's base commit with
 * the dependencies' branches merged in, handed to the agent as its working directory, and, once
 * the attempt ends, committed on the task's branch with the change's stat and patch kept as
 * artifacts. An attempt stopped midway leaves its worktree as it is; the next attempt keeps that
 * work on a branch of its own before starting clean.
 */
export function inWorktree(
	inner: WorkerRuntime,
	worktrees: Worktrees,
	base: string,
	dependencies: readonly string[],
): WorkerRuntime {
	return {
		name: inner.name,
		async run(request: TaskRequest, control: RunControl): Promise<WorkerResult> {
			control.signal.throwIfAborted();
			const workspace = await worktrees.prepare(request.runId, request.taskId, request.attempt, base, dependencies);
			const recovery = `attempt-${request.attempt}.recovered.patch`;
			if (workspace.recovered) {
				mkdirSync(request.artifactDir, { recursive: true });
				writeFileSync(join(request.artifactDir, recovery), workspace.recovered.patch);
			}
			const result = await inner.run({ ...request, cwd: workspace.path }, control);
			const message = `crew: run ${request.runId}, task ${request.taskId}, attempt ${request.attempt}`;
			const change = await worktrees.commit(workspace, message);
			const name = `attempt-${request.attempt}`;
			mkdirSync(request.artifactDir, { recursive: true });
			writeFileSync(join(request.artifactDir, `${name}.stat.txt`), `${change.commit ?? "no changes"}\n${change.stat}`);
			writeFileSync(join(request.artifactDir, `${name}.patch`), change.patch);
			return {
				...result,
				artifacts: [
					...result.artifacts,
					...(workspace.recovered ? [{ name: `${request.artifactPrefix}/${recovery}`, kind: "recovery" }] : []),
					{ name: `${request.artifactPrefix}/${name}.stat.txt`, kind: "stat" },
					{ name: `${request.artifactPrefix}/${name}.patch`, kind: "patch" },
				],
			};
		},
	};
}
