// A run's running workers by task index: launching attempts, stopping them and collecting their ends.

import { errorMessage } from "../../core/errors.js";
import { attemptLimits } from "../../core/limits.js";
import type { RunRecord } from "../../core/records.js";
import { phaseSince, timed } from "../../core/timings.js";
import type { TaskSpec } from "../../core/types.js";
import type { Delegating, TaskRequest, WorkerEvent } from "../../runtimes/worker-runtime.js";
import type { RunLoopDeps } from "./deps.js";
import { LiveAttempt, type Prepared, type Settled, type Start, storeAttemptFiles } from "./live-attempt.js";
import type { StopReason } from "./stop-reason.js";
import { taskRuntime, unsteerable } from "./task-runtime.js";

/** How long a question waits for its answer where its step does not say, in ms. */
export const DEFAULT_ASK_TIMEOUT_MS = 24 * 3600 * 1000;

export interface RunWorkerHooks {
	/** Hears each worker event. */
	readonly onEvent: (live: LiveAttempt, event: WorkerEvent) => void;
	/** Called each time a worker ends. */
	readonly onSettled: () => void;
	/** Asks a person an agent's question; resolves with the answer. */
	readonly onAsk: (live: LiveAttempt, question: string) => Promise<string>;
	/** How an attempt's agent delegates runs of its own; undefined when it may not. */
	readonly delegating: (request: TaskRequest) => Delegating | undefined;
}

/** The attempts of a run whose workers run now, by task index, and those ended and not yet recorded. */
export class RunWorkers {
	readonly #deps: RunLoopDeps;
	readonly #run: RunRecord;
	readonly #hooks: RunWorkerHooks;
	readonly #running = new Map<number, LiveAttempt>();
	readonly #settled: Settled[] = [];

	constructor(deps: RunLoopDeps, run: RunRecord, hooks: RunWorkerHooks) {
		this.#deps = deps;
		this.#run = run;
		this.#hooks = hooks;
	}

	get size(): number {
		return this.#running.size;
	}

	indices(): number[] {
		return [...this.#running.keys()];
	}

	/** The running attempt of task `taskId`, if it runs here. */
	find(taskId: string): LiveAttempt | undefined {
		for (const live of this.#running.values()) if (live.request.taskId === taskId) return live;
		return undefined;
	}

	/** Starts the worker of a recorded attempt, under the task's limits; with `stop`, stopped at once. */
	launch(start: Start, spec: TaskSpec, stop: StopReason | undefined): void {
		const { options } = this.#run;
		const defaults = {
			timeoutMs: this.#deps.options.defaultTimeoutMs,
			stallTimeoutMs: this.#deps.options.defaultStallTimeoutMs,
		};
		const { timeoutMs, stallTimeoutMs } = attemptLimits(spec, options, options.runtime ?? spec.agent.runtime, defaults);
		const why = unsteerable(spec, start.runtime, this.#deps);
		const askTimeoutMs = spec.askTimeoutMs ?? DEFAULT_ASK_TIMEOUT_MS;
		const delegating = this.#hooks.delegating(start.request);
		const live = new LiveAttempt({
			runtime: taskRuntime(spec, start.runtime, this.#deps, options),
			...(why !== undefined ? { unsteerable: why } : {}),
			attemptId: start.attemptId,
			promptArtifact: start.promptArtifact,
			request: start.request,
			...(timeoutMs !== undefined ? { timeoutMs } : {}),
			...(stallTimeoutMs !== undefined ? { stallTimeoutMs } : {}),
			now: this.#deps.options.now,
			onEvent: this.#hooks.onEvent,
			...(spec.ask === false ? {} : { onAsk: this.#hooks.onAsk }),
			...(delegating ? { delegating } : {}),
			...(askTimeoutMs > 0 ? { askTimeoutMs } : {}),
		});
		this.#running.set(start.index, live);
		if (stop) live.stop(stop);
		const began = performance.now();
		void live.start().then((outcome) => {
			phaseSince(`${spec.id}: its attempt, from the runtime's start to its end`, began);
			this.#settled.push({ index: start.index, live, outcome });
			this.#hooks.onSettled();
		});
	}

	/** Task `i`'s ended attempt is being recorded: it no longer runs. */
	release(i: number): void {
		this.#running.delete(i);
	}

	stopAll(reason: StopReason): void {
		for (const live of this.#running.values()) live.stop(reason);
	}

	/** Gives up every worker still running: they are no longer waited for. */
	abandonAll(): [number, LiveAttempt][] {
		const abandoned = [...this.#running];
		this.#running.clear();
		return abandoned;
	}

	/** Waits until every running worker has ended, or `ms` have passed. */
	async ended(ms: number): Promise<void> {
		const pending = [...this.#running.values()].map((live) => live.done);
		const timeout = new Promise((resolve) => setTimeout(resolve, ms).unref());
		await Promise.race([Promise.all(pending), timeout]);
	}

	/**
	 * Takes every ended attempt, storing its files unless `keepFiles` is false (a runner that lost
	 * its lease stores nothing). A task whose files cannot be stored (a full disk, say) fails with
	 * that error; the run goes on.
	 */
	async takeSettled(keepFiles: boolean): Promise<Prepared[]> {
		const prepared: Prepared[] = [];
		for (const item of this.#settled.splice(0)) {
			const { result } = item.outcome;
			if (!result || !keepFiles) {
				prepared.push({ ...item, artifacts: [item.live.promptArtifact] });
				continue;
			}
			try {
				const { files } = this.#deps;
				const stored = () => storeAttemptFiles(files, item.live, result);
				prepared.push({ ...item, artifacts: await timed(`${item.live.request.taskId}: store its files`, stored) });
			} catch (error) {
				const failure = new Error(`cannot store the task's files: ${errorMessage(error)}`);
				prepared.push({ ...item, outcome: { error: failure }, artifacts: [item.live.promptArtifact] });
			}
		}
		return prepared;
	}
}
