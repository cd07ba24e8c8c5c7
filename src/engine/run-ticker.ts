import { ErrorCode, errorMessage, isCrewError } from "../core/errors.js";
import type { Lease } from "../store/lease.js";
import type { RunStore } from "../store/run-store.js";
import type { EngineOptions } from "./engine-options.js";

export interface TickerEvents {
	/** Another process asked to cancel the run, with this reason. */
	readonly onCancel: (reason: string) => void;
	/** Another runner took the run: this one must stop writing. */
	readonly onLeaseLost: () => void;
	/** The store could not be reached. */
	readonly onStoreError: (message: string) => void;
	/** Called on every tick after the checks. */
	readonly onTick: () => void;
}

/**
 * A runner's periodic duties while it holds a run: renew the lease's heartbeat and look for a
 * cancel request written by another process. Returns the function that stops it.
 */
export function startTicker(store: RunStore, lease: Lease, options: EngineOptions, events: TickerEvents): () => void {
	let lastBeat = options.now();
	const timer = setInterval(() => {
		try {
			if (options.now() - lastBeat >= options.heartbeatMs) {
				lastBeat = options.now();
				store.heartbeat(lease);
			}
			const request = store.cancelRequested(lease.runId);
			if (request !== null) events.onCancel(request);
		} catch (error) {
			if (isCrewError(error, ErrorCode.LeaseLost)) events.onLeaseLost();
			else events.onStoreError(`cannot reach the store: ${errorMessage(error)}`);
		}
		events.onTick();
	}, options.pollMs);
	return () => clearInterval(timer);
}
