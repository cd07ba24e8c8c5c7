// The runtimes of a run whose attempts go through a queue to remote workers, which can follow or cancel them.

import type { RunRecord } from "../../core/records.js";
import { withoutCredentials } from "../../core/url-credentials.js";
import { RuntimeRegistry } from "../../runtimes/runtime-registry.js";

/** The prefix of a runtime that follows an attempt already running elsewhere: `attach:<runtime>`. */
export const ATTACH = "attach:";

/** How long a runner waits for the queue's Redis to answer before the run cannot start. */
const QUEUE_ANSWER_MS = 5000;

/**
 * The runtimes of a run whose attempts go through a queue: each of this crew's runtimes by name,
 * run by a remote worker (a dry run stays here: it starts nothing). Loaded only for such runs.
 */
export interface RemoteRuntimes {
	readonly runtimes: RuntimeRegistry;
	/** Ends an attempt wherever it runs, and keeps any worker from starting it. */
	cancel(runId: string, taskId: string, attempt: number, reason: string): Promise<void>;
	/** Whether an attempt is still in the queue to follow (waiting, running, or ended with its result). */
	inFlight(runId: string, taskId: string, attempt: number): Promise<boolean>;
	close(): Promise<void>;
}

/**
 * The remote runtimes of `run`, once its queue answers. The workers of a run with a base commit
 * fetch it from the run's repository setting, else from `root` (a path: workers on this machine or
 * with the same file system).
 */
export async function remoteRuntimes(run: RunRecord, root: string, local: RuntimeRegistry): Promise<RemoteRuntimes> {
	const url = run.options.queue as string;
	const [{ checkQueue, RemoteDispatch }, { queueKey }] = await Promise.all([
		import("../../runtimes/remote/remote-dispatch.js"),
		import("../../runtimes/remote/job-seal.js"),
	]);
	const key = queueKey(process.env, `run ${run.id} on the queue at ${withoutCredentials(url)}`);
	await checkQueue(url, QUEUE_ANSWER_MS);
	const base = run.options.baseCommit;
	const dispatch = new RemoteDispatch(
		url,
		key,
		base ? { repository: run.options.repository ?? root, base, root } : undefined,
	);
	const names = local.names().filter((name) => name !== "dry-run");
	// `attach:<name>` follows a dead runner's attempt that is still in the queue.
	const attachers = names.map((name) => dispatch.attach(name, `${ATTACH}${name}`));
	const runtimes = [local.get("dry-run"), ...names.map((name) => dispatch.runtime(name)), ...attachers];
	return {
		runtimes: new RuntimeRegistry(runtimes),
		cancel: (runId, taskId, attempt, reason) => dispatch.cancel(runId, taskId, attempt, reason),
		inFlight: (runId, taskId, attempt) => dispatch.inFlight(runId, taskId, attempt),
		close: () => dispatch.close(),
	};
}
