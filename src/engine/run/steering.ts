// Delivery of a run's queued steering messages to the running agents they are for, and how each went.

import { errorMessage } from "../../core/errors.js";
import { isTerminalTask, type TaskStatus } from "../../core/status.js";
import { isBusy } from "../../store/database.js";
import type { Lease } from "../../store/lease.js";
import type { RunStore } from "../../store/run-store.js";
import type { MessageRow } from "../../store/task-messages.js";
import type { LiveAttempt } from "./live-attempt.js";
import type { RunWrites } from "./writes.js";

export interface RunSteeringDeps {
	readonly store: RunStore;
	readonly writes: RunWrites;
	readonly lease: Lease;
	/** The running attempt of a task, when it runs here. */
	readonly live: (taskId: string) => LiveAttempt | undefined;
	/** A task's status as this runner knows it. */
	readonly status: (taskId: string) => TaskStatus | undefined;
	/** The store could not be read. */
	readonly onStoreError: (message: string) => void;
}

/**
 * Gives a run's queued steering messages to the agents they are for, as the runner's ticker
 * finds them, and records how each went. A message for a task that has ended is refused, naming
 * its status; one for a task not running yet waits for its next attempt.
 */
export class RunSteering {
	readonly #deps: RunSteeringDeps;
	/** Messages this runner has taken: each is given once, whatever its record's state meanwhile. */
	readonly #taken = new Set<number>();

	constructor(deps: RunSteeringDeps) {
		this.#deps = deps;
	}

	tick(): void {
		const { store, writes, lease } = this.#deps;
		let queued: MessageRow[];
		try {
			queued = store.messages.queued(lease.runId);
		} catch (error) {
			// A reader is kept out only for a moment; the next tick looks again.
			if (!isBusy(error)) this.#deps.onStoreError(`cannot reach the store: ${errorMessage(error)}`);
			return;
		}
		for (const message of queued) {
			if (this.#taken.has(message.id)) continue;
			const live = this.#deps.live(message.taskId);
			if (live) {
				this.#taken.add(message.id);
				const attempt = { id: live.attemptId, number: live.request.attempt };
				void live.steer(message.text).then((delivery) => {
					const refused = delivery.delivered ? {} : { refused: delivery.reason };
					writes.write(() => store.messages.settle(lease, message.id, { attempt, ...refused }));
				});
				continue;
			}
			const status = this.#deps.status(message.taskId);
			if (status === undefined || !isTerminalTask(status)) continue;
			this.#taken.add(message.id);
			writes.write(() => store.messages.settle(lease, message.id, { refused: `task ${message.taskId} is ${status}` }));
		}
	}

	/** The run ends: messages still queued are refused, each naming its task's status. Called in the ending's write. */
	refuseRest(): void {
		const { store, lease } = this.#deps;
		for (const message of store.messages.queued(lease.runId)) {
			const status = this.#deps.status(message.taskId) ?? "gone";
			store.messages.settle(lease, message.id, { refused: `task ${message.taskId} is ${status}` });
		}
	}
}
