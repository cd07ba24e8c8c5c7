// The runtime of a merge-conflict resolution task, run in the integration worktree and committed by crew.

import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { ResolutionSpec } from "../../core/types.js";
import { writeAttemptFile } from "../../runtimes/attempt-files.js";
import type { RunControl, TaskRequest, WorkerResult, WorkerRuntime } from "../../runtimes/worker-runtime.js";
import type { IntegrationBranch } from "../../workspace/integration-branch.js";
import type { Worktrees } from "../../workspace/worktrees.js";

/**
 * A resolution task's runtime: the agent (and its checks) work in the integration worktree with
 * the conflicting merge in progress. Once no conflict marker is left crew commits the merge on the
 * task's branch, keeping its stat and patch as the attempt's; a marker left fails the attempt,
 * worth another. The worktree goes when the attempt ends, however it ends.
 */
export function resolvingConflict(
	inner: WorkerRuntime,
	branch: IntegrationBranch,
	worktrees: Worktrees,
	conflict: ResolutionSpec,
): WorkerRuntime {
	return {
		name: inner.name,
		async run(request: TaskRequest, control: RunControl): Promise<WorkerResult> {
			control.signal.throwIfAborted();
			const { path, into } = await branch.openResolution(request.runId, request.taskId, conflict);
			try {
				const result = await inner.run({ ...request, cwd: path }, control);
				if (!result.ok) return result;
				const left = branch.unresolved(path, conflict.files);
				if (left.length > 0) {
					const message = `conflict markers are left in ${left.join(", ")}`;
					return { ...result, ok: false, error: { message, retryable: true, evidence: message } };
				}
				const taskBranch = worktrees.branchOf(request.runId, request.taskId);
				const message = `crew: run ${request.runId}, task ${request.taskId}: merge ${conflict.branch}, resolved`;
				const change = await branch.commitResolution(path, into, taskBranch, message);
				if (change.commit) control.onEvent({ type: "commit", commit: change.commit, branch: taskBranch });
				const name = `attempt-${request.attempt}`;
				mkdirSync(request.artifactDir, { recursive: true });
				writeAttemptFile(join(request.artifactDir, `${name}.stat.txt`), `${change.commit}\n${change.stat}`);
				writeAttemptFile(join(request.artifactDir, `${name}.patch`), change.patch);
				return {
					...result,
					artifacts: [
						...result.artifacts,
						{ name: `${request.artifactPrefix}/${name}.stat.txt`, kind: "stat" },
						{ name: `${request.artifactPrefix}/${name}.patch`, kind: "patch" },
					],
				};
			} finally {
				await branch.closeResolution(request.runId);
			}
		},
	};
}
