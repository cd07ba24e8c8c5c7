// Attempts in the shared workspace continue a session only where the workspace is as that attempt left it.

import type { RunControl, TaskRequest, WorkerResult, WorkerRuntime } from "../../runtimes/worker-runtime.js";
import { workspaceFingerprint } from "../../workspace/fingerprint.js";

/**
 * `inner` in the run's shared workspace: an attempt continues the session of the attempt before
 * only when the workspace's fingerprint is the one that attempt left (nothing else, another task
 * or a person, wrote it since), else it starts over, saying so; and an attempt that ends without
 * completing its work records the workspace as it leaves it, for the attempt after (one that
 * completes has none, so it spends nothing on it).
 */
export function inSharedWorkspace(inner: WorkerRuntime): WorkerRuntime {
	return {
		name: inner.name,
		async run(request: TaskRequest, control: RunControl): Promise<WorkerResult> {
			let session = request.session;
			if (session && "attempt" in session) {
				const { attempt, workspace } = session;
				const now = await workspaceFingerprint(request.cwd);
				if (now === undefined)
					session = { startedOver: "the workspace is not a git repository, so crew cannot tell whether it changed" };
				else if (workspace === undefined)
					session = { startedOver: `the workspace attempt ${attempt} left was not seen` };
				else if (now !== workspace) session = { startedOver: `the workspace changed since attempt ${attempt} ended` };
			}
			let result: WorkerResult | undefined;
			try {
				result = await inner.run({ ...request, ...(session ? { session } : {}) }, control);
				return result;
			} finally {
				if (!result?.ok) {
					// A workspace git cannot read now is recorded as unseen: no later attempt continues in it.
					const left = await workspaceFingerprint(request.cwd).catch(() => undefined);
					if (left) control.onEvent({ type: "workspace-left", fingerprint: left });
				}
			}
		},
	};
}
