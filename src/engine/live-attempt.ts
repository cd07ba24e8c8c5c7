import { formatDuration } from "../core/duration.js";
import type { ArtifactRecord } from "../core/types.js";
import type { TaskRequest, WorkerEvent, WorkerResult, WorkerRuntime } from "../runtimes/worker-runtime.js";
import { StopReason } from "./stop-reason.js";

export interface AttemptOutcome {
	readonly result?: WorkerResult;
	readonly error?: unknown;
}

export interface LiveAttemptOptions {
	readonly runtime: WorkerRuntime;
	readonly request: TaskRequest;
	readonly attemptId: number;
	/** The stored prompt, indexed when the attempt settles. */
	readonly promptArtifact: ArtifactRecord;
	/** Wall-clock limit, in ms. */
	readonly timeoutMs?: number;
	/** Limit on time without worker output, in ms. */
	readonly stallTimeoutMs?: number;
	readonly now: () => number;
	/** Called with each worker event; may run before `start` returns. */
	readonly onEvent: (attempt: LiveAttempt, event: WorkerEvent) => void;
}

/** One running attempt: the worker's promise, its abort controller and its two timers. */
export class LiveAttempt {
	readonly attemptId: number;
	readonly promptArtifact: ArtifactRecord;
	readonly request: TaskRequest;
	readonly #controller = new AbortController();
	readonly #options: LiveAttemptOptions;
	#done: Promise<AttemptOutcome> | undefined;
	readonly #now: () => number;
	#lastActivity: number;
	#wallTimer: NodeJS.Timeout | undefined;
	#stallTimer: NodeJS.Timeout | undefined;

	constructor(options: LiveAttemptOptions) {
		this.attemptId = options.attemptId;
		this.promptArtifact = options.promptArtifact;
		this.request = options.request;
		this.#now = options.now;
		this.#lastActivity = options.now();
		this.#options = options;
	}

	/** Settles once the worker has ended; an attempt not started yet counts as ended. */
	get done(): Promise<AttemptOutcome> {
		return this.#done ?? Promise.resolve({ error: this.stopReason });
	}

	/**
	 * Starts the worker and its timers; returns `done`. An attempt stopped before it starts never
	 * spawns anything: the runtime sees an aborted signal and rejects at once.
	 */
	start(): Promise<AttemptOutcome> {
		if (this.#done) return this.#done;
		const { timeoutMs, stallTimeoutMs, runtime, request } = this.#options;
		this.#lastActivity = this.#now();
		if (timeoutMs !== undefined) {
			this.#wallTimer = setTimeout(
				() => this.stop(new StopReason("timeout", `timed out after ${formatDuration(timeoutMs)}`)),
				timeoutMs,
			);
		}
		if (stallTimeoutMs !== undefined) this.#armStall(stallTimeoutMs, stallTimeoutMs);
		const onEvent = (event: WorkerEvent) => {
			this.#lastActivity = this.#now();
			this.#options.onEvent(this, event);
		};
		this.#done = runtime
			.run(request, { signal: this.#controller.signal, onEvent })
			.then(
				(result) => ({ result }),
				(error: unknown) => ({ error }),
			)
			.finally(() => {
				clearTimeout(this.#wallTimer);
				clearTimeout(this.#stallTimer);
			});
		return this.#done;
	}

	get stopReason(): StopReason | undefined {
		const reason: unknown = this.#controller.signal.reason;
		return reason instanceof StopReason ? reason : undefined;
	}

	/** Aborts the worker; the first reason wins. */
	stop(reason: StopReason): void {
		if (!this.#controller.signal.aborted) this.#controller.abort(reason);
	}

	#armStall(limitMs: number, delayMs: number): void {
		this.#stallTimer = setTimeout(() => {
			const idle = this.#now() - this.#lastActivity;
			if (idle >= limitMs) this.stop(new StopReason("stall", `no output for ${formatDuration(limitMs)}`));
			else this.#armStall(limitMs, limitMs - idle);
		}, delayMs);
	}
}
