// The runtime that runs each task in a git worktree of its own and commits its change on the task's branch.

import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { RunOptions } from "../../core/types.js";
import { writeAttemptFile } from "../../runtimes/attempt-files.js";
import { runSetup } from "../../runtimes/setup-hook.js";
import type { RunControl, TaskRequest, WorkerResult, WorkerRuntime } from "../../runtimes/worker-runtime.js";
import { revertOutside } from "../../workspace/scope-guard.js";
import type { Worktrees } from "../../workspace/worktrees.js";

/**
 * A runtime whose tasks work in their own git worktree: prepared from the run's base commit with
 * the dependencies' branches merged in, set up by the user's hook when there is one (a failing
 * hook fails the task and its worktree goes), handed to the agent as its working directory, and, once
 * the attempt ends, committed on the task's branch with the change's stat and patch kept as
 * artifacts. Changes outside `scope` (the step's `writes:`; nothing, for a read-only agent) are put
 * back before the commit, and fail the attempt, naming them. An attempt stopped midway leaves its
 * worktree as it is: an attempt that continues its agent's session goes on there, as does the same
 * attempt followed again (a dead runner's, still on the queue); another keeps that work on a
 * branch of its own before starting clean.
 */
export function inWorktree(
	inner: WorkerRuntime,
	worktrees: Worktrees,
	base: string,
	dependencies: readonly string[],
	setup?: { readonly hook: RunOptions["setup"]; readonly runner: WorkerRuntime },
	scope?: readonly string[],
): WorkerRuntime {
	return {
		name: inner.name,
		async run(request: TaskRequest, control: RunControl): Promise<WorkerResult> {
			control.signal.throwIfAborted();
			const asked = request.session;
			const continuing = asked && "attempt" in asked ? asked.attempt : undefined;
			const workspace = await worktrees.prepare(
				request.runId,
				request.taskId,
				request.attempt,
				base,
				dependencies,
				continuing,
			);
			const session =
				continuing === undefined || workspace.continued
					? asked
					: { startedOver: `the worktree attempt ${continuing} left was not kept` };
			// A continued attempt's worktree was set up for the attempt it continues.
			if (setup?.hook && !workspace.continued) {
				const failed = await runSetup(setup.runner, setup.hook, { ...request, cwd: workspace.path }, control);
				if (failed) {
					await worktrees.discard(request.runId, request.taskId);
					return failed;
				}
			}
			const recovery = `attempt-${request.attempt}.recovered.patch`;
			if (workspace.recovered) {
				mkdirSync(request.artifactDir, { recursive: true });
				writeAttemptFile(join(request.artifactDir, recovery), workspace.recovered.patch);
			}
			const done = await inner.run({ ...request, cwd: workspace.path, ...(session ? { session } : {}) }, control);
			const outside = scope ? await revertOutside(workspace.path, workspace.start, scope) : [];
			if (outside.length > 0) control.onEvent({ type: "scope-violated", paths: outside });
			const result = outside.length > 0 ? outOfScope(done, outside, scope ?? []) : done;
			const message = `crew: run ${request.runId}, task ${request.taskId}, attempt ${request.attempt}`;
			const change = await worktrees.commit(workspace, message);
			if (change.commit) control.onEvent({ type: "commit", commit: change.commit, branch: workspace.branch });
			const name = `attempt-${request.attempt}`;
			mkdirSync(request.artifactDir, { recursive: true });
			writeAttemptFile(
				join(request.artifactDir, `${name}.stat.txt`),
				`${change.commit ?? "no changes"}\n${change.stat}`,
			);
			writeAttemptFile(join(request.artifactDir, `${name}.patch`), change.patch);
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

/** An attempt that changed `paths` outside `scope`: failed, naming them, and worth another try told so. */
function outOfScope(result: WorkerResult, paths: readonly string[], scope: readonly string[]): WorkerResult {
	const allowed = scope.length > 0 ? `only ${scope.join(", ")}` : "nothing, as a read-only agent";
	const message = `changed files outside what it may write (${allowed}), which crew put back: ${paths.join(", ")}`;
	return { ...result, ok: false, error: { message, retryable: true, evidence: message } };
}
