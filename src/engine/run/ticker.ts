// A runner's ticker: renews its lease's heartbeat and looks for cancel requests from other processes.

import { errorMessage } from "../../core/errors.js";
import { isBusy } from "../../store/database.js";
import type { Lease } from "../../store/lease.js";
import type { RunStore } from "../../store/run-store.js";
import type { EngineOptions } from "../options.js";
import type { RunWrites } from "./writes.js";

export interface TickerEvents {
	/** Another process asked to cancel the run, with this reason. */
	readonly onCancel: (reason: string) => void;
	/** The store could not be read. */
	readonly onStoreError: (message: string) => void;
	/** Called on every tick after the checks. */
	readonly onTick: () => void;
}

/**
 * A runner's periodic duties while it holds a run: renew the lease's heartbeat when no write did
 * lately, and look for a cancel request written by another process. Returns the function that
 * stops it. The heartbeat is one of the runner's writes: its failures reach the writes' owner.
 */
export function startTicker(
	store: RunStore,
	writes: RunWrites,
	lease: Lease,
	options: EngineOptions,
	events: TickerEvents,
): () => void {
	const timer = setInterval(() => {
		if (options.now() - writes.lastBeat >= options.heartbeatMs) writes.heartbeat();
		try {
			const request = store.cancelRequested(lease.runId);
			if (request !== null) events.onCancel(request);
		} catch (error) {
			// A reader is kept out only for a moment (another connection recovering the log); the next tick looks again.
			if (!isBusy(error)) events.onStoreError(`cannot reach the store: ${errorMessage(error)}`);
		}
		events.onTick();
	}, options.pollMs);
	return () => clearInterval(timer);
}
