// Recording what a worker reports (its process, network, usage and other events) in the store.

import type { Usage } from "../../core/usage.js";
import type { WorkerEvent } from "../../runtimes/worker-runtime.js";
import type { Lease } from "../../store/lease.js";
import type { RunStore } from "../../store/run-store.js";
import type { LiveAttempt } from "./live-attempt.js";

/** Worker events recorded under names of their own, rather than as `worker.<type>`. */
const OWN_EVENTS: Readonly<Record<string, string>> = {
	"sandbox-denied": "sandbox.denied",
	"scope-violated": "scope.violated",
	"knowledge-proposed": "knowledge.proposed",
};

/**
 * Records what the worker of `live` reported, in the caller's write: its process, its network,
 * its usage (told to `onUsage` once on record), or an event. `activity` is not recorded.
 */
export function recordWorkerEvent(
	store: RunStore,
	lease: Lease,
	live: LiveAttempt,
	event: WorkerEvent,
	onUsage: (usage: Usage) => void,
): void {
	const { taskId } = live.request;
	if (event.type === "activity") return;
	if (event.type === "spawned") store.attempts.process(lease, live.attemptId, event.process);
	else if (event.type === "session")
		store.attempts.session(
			lease,
			{ id: live.attemptId, number: live.request.attempt, taskId },
			event.session,
			event.origin,
		);
	else if (event.type === "workspace-left") store.attempts.left(lease, live.attemptId, event.fingerprint);
	else if (event.type === "git-set-aside")
		store.attempts.setAside(lease, taskId, live.request.attempt, event.folders, event.shared);
	else if (event.type === "confined") {
		const { type, ...told } = event;
		store.attempts.confined(lease, live.attemptId, taskId, told);
	} else if (event.type === "usage") {
		// On record with its event at once: a runner killed next loses none of it.
		store.attempts.usage(lease, live.attemptId, taskId, event.usage);
		onUsage(event.usage);
	} else {
		const { type, ...data } = event;
		store.appendEvent(lease, OWN_EVENTS[type] ?? `worker.${type}`, taskId, data);
	}
}
