// One running attempt: its worker, time limits, steering and questions, and how its ending is recorded.

import { formatDuration } from "../../core/duration.js";
import { proposedKnowledge } from "../../core/knowledge.js";
import { DEFAULT_PROMPT_LIMITS } from "../../core/prompt.js";
import type { ArtifactRecord } from "../../core/records.js";
import type { Cause, TaskStatus } from "../../core/status.js";
import type {
	Delegating,
	Delivery,
	TaskRequest,
	WorkerEvent,
	WorkerResult,
	WorkerRuntime,
} from "../../runtimes/worker-runtime.js";
import type { ArtifactFiles } from "../../store/artifact-files.js";
import type { Settlement } from "../../store/run-changes.js";
import { AttemptMailbox } from "./mailbox.js";
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
	/** Why the attempt's agent cannot take messages while it works; absent when it can. */
	readonly unsteerable?: string;
	/**
	 * Asks a person the agent's question, resolving with the answer; absent when the agent may not
	 * ask. While it waits, the attempt's timers stand still, and `askTimeoutMs` runs instead.
	 */
	readonly onAsk?: (attempt: LiveAttempt, question: string) => Promise<string>;
	/** Carries out what its agent delegates; absent when it may not. While a delegation runs, the stall limit rests. */
	readonly delegating?: Delegating;
	/** How long a question may wait for its answer, in ms; then the attempt fails. */
	readonly askTimeoutMs?: number;
	/** Called with each worker event; may run before `start` returns. */
	readonly onEvent: (attempt: LiveAttempt, event: WorkerEvent) => void;
}

/** An attempt whose worker has ended, waiting to be recorded. */
export interface Settled {
	readonly index: number;
	readonly live: LiveAttempt;
	readonly outcome: AttemptOutcome;
}

/** A settled attempt with its files stored. */
export interface Prepared extends Settled {
	readonly artifacts: ArtifactRecord[];
}

/** How an attempt ended, as the run loop records it. */
export interface Ending {
	readonly attemptStatus: string;
	readonly to: TaskStatus;
	readonly cause: Cause;
	readonly error: string | null;
	readonly retryable?: boolean;
	readonly result?: WorkerResult;
	readonly artifacts?: ArtifactRecord[];
	/** What a failed check printed, for the next attempt. */
	readonly evidence?: string;
	/** Events of the task recorded with its settlement, such as a judge's verdict. */
	readonly events?: Settlement["events"];
}

/** A task whose attempt is recorded and whose worker is about to start. */
export interface Start {
	readonly index: number;
	readonly runtime: string;
	readonly attemptId: number;
	readonly promptArtifact: ArtifactRecord;
	readonly request: TaskRequest;
}

/** One running attempt: the worker's promise, its abort controller and its two timers. */
export class LiveAttempt {
	readonly attemptId: number;
	readonly promptArtifact: ArtifactRecord;
	readonly request: TaskRequest;
	readonly #controller = new AbortController();
	readonly #options: LiveAttemptOptions;
	/** Messages for its agent; absent when it takes none. */
	readonly #mailbox: AttemptMailbox | undefined;
	#done: Promise<AttemptOutcome> | undefined;
	readonly #now: () => number;
	#lastActivity: number;
	#wallTimer: NodeJS.Timeout | undefined;
	/** When the wall-clock limit strikes; moved on by the time spent waiting for answers. */
	#wallDeadline = Number.POSITIVE_INFINITY;
	#stallTimer: NodeJS.Timeout | undefined;
	/** Questions its agent waits on now, since when, and each one's own limit. */
	#asking = 0;
	#askingSince = 0;
	readonly #askTimers = new Set<NodeJS.Timeout>();
	/** Runs its agent delegated that it waits for now. */
	#delegations = 0;

	constructor(options: LiveAttemptOptions) {
		this.attemptId = options.attemptId;
		this.promptArtifact = options.promptArtifact;
		this.request = options.request;
		this.#now = options.now;
		this.#lastActivity = options.now();
		this.#options = options;
		this.#mailbox = options.unsteerable === undefined ? new AttemptMailbox() : undefined;
	}

	/** Gives its agent `text` at its next turn, or says why it could not. */
	steer(text: string): Promise<Delivery> {
		if (!this.#mailbox) return Promise.resolve({ delivered: false, reason: this.#options.unsteerable ?? "" });
		return this.#mailbox.send(text);
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
		const { timeoutMs, runtime, request } = this.#options;
		this.#lastActivity = this.#now();
		if (timeoutMs !== undefined) this.#wallDeadline = this.#now() + timeoutMs;
		this.#armTimers();
		const onEvent = (event: WorkerEvent) => {
			this.#lastActivity = this.#now();
			this.#options.onEvent(this, event);
		};
		const steering = this.#mailbox ? { steering: this.#mailbox } : {};
		const asking = this.#options.onAsk ? { asking: (question: string) => this.#ask(question) } : {};
		const delegating = this.#options.delegating ? { delegating: this.#delegate } : {};
		this.#done = runtime
			.run(request, { signal: this.#controller.signal, onEvent, ...steering, ...asking, ...delegating })
			.then(
				(result) => {
					// Proposed, not written: a person adds a note with `crew knowledge add`.
					if (result.ok)
						for (const note of proposedKnowledge(result.text)) onEvent({ type: "knowledge-proposed", note });
					return { result };
				},
				(error: unknown) => ({ error }),
			)
			.finally(() => {
				this.#mailbox?.close("the attempt has ended");
				this.#clearTimers();
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

	/** The wall-clock and stall timers, from now: the wall's up to its deadline. */
	#armTimers(): void {
		const { timeoutMs, stallTimeoutMs } = this.#options;
		if (timeoutMs !== undefined) {
			const stop = () => this.stop(new StopReason("timeout", `timed out after ${formatDuration(timeoutMs)}`));
			this.#wallTimer = setTimeout(stop, Math.max(0, this.#wallDeadline - this.#now()));
		}
		if (stallTimeoutMs !== undefined) this.#armStall(stallTimeoutMs, stallTimeoutMs);
	}

	#clearTimers(): void {
		clearTimeout(this.#wallTimer);
		clearTimeout(this.#stallTimer);
		for (const timer of this.#askTimers) clearTimeout(timer);
	}

	/**
	 * Its agent waits for a person's answer: the time it waits counts against neither its timeout
	 * nor its stall limit, only against `askTimeoutMs`.
	 */
	async #ask(question: string): Promise<string> {
		const { onAsk, askTimeoutMs } = this.#options;
		if (!onAsk) throw new Error("this attempt's agent may not ask");
		if (this.#asking++ === 0) {
			this.#askingSince = this.#now();
			this.#clearTimers();
		}
		let limit: NodeJS.Timeout | undefined;
		if (askTimeoutMs !== undefined) {
			const first = question.split("\n", 1)[0];
			const message = `no answer within ${formatDuration(askTimeoutMs)} to its question: ${first}`;
			limit = setTimeout(() => this.stop(new StopReason("unanswered", message)), askTimeoutMs);
			this.#askTimers.add(limit);
		}
		const { signal } = this.#controller;
		let onAbort = () => {};
		// A stopped attempt's agent gets no answer: its question fails with the reason it stopped.
		const stopped = new Promise<never>((_, reject) => {
			onAbort = () => reject(signal.reason);
			if (signal.aborted) onAbort();
			else signal.addEventListener("abort", onAbort, { once: true });
		});
		try {
			return await Promise.race([onAsk(this, question), stopped]);
		} finally {
			signal.removeEventListener("abort", onAbort);
			clearTimeout(limit);
			if (limit) this.#askTimers.delete(limit);
			if (--this.#asking === 0 && !this.#controller.signal.aborted) {
				this.#wallDeadline += this.#now() - this.#askingSince;
				this.#lastActivity = this.#now();
				this.#armTimers();
			}
		}
	}

	/** Its agent waits for a run it delegated: no output comes meanwhile, and that is no stall. */
	readonly #delegate: Delegating = async (ask, control) => {
		const { delegating, stallTimeoutMs } = this.#options;
		if (!delegating) throw new Error("this attempt's agent may not delegate");
		if (this.#delegations++ === 0) clearTimeout(this.#stallTimer);
		try {
			return await delegating(ask, control);
		} finally {
			if (--this.#delegations === 0 && !this.#controller.signal.aborted && stallTimeoutMs !== undefined) {
				this.#lastActivity = this.#now();
				this.#armStall(stallTimeoutMs, stallTimeoutMs);
			}
		}
	};

	#armStall(limitMs: number, delayMs: number): void {
		this.#stallTimer = setTimeout(() => {
			const idle = this.#now() - this.#lastActivity;
			if (idle >= limitMs) this.stop(new StopReason("stall", `no output for ${formatDuration(limitMs)}`));
			else this.#armStall(limitMs, limitMs - idle);
		}, delayMs);
	}
}

/** Stores an ended attempt's result and indexes the files its worker wrote, with the prompt's. */
export async function storeAttemptFiles(
	files: ArtifactFiles,
	live: LiveAttempt,
	result: WorkerResult,
): Promise<ArtifactRecord[]> {
	const { runId, taskId, artifactPrefix } = live.request;
	const records = [live.promptArtifact];
	if (result.ok || result.text !== "") {
		records.push(files.write(runId, taskId, `${artifactPrefix}/result.md`, "result", result.text));
	}
	for (const own of result.artifacts) records.push(await files.describe(runId, taskId, own.name, own.kind));
	return records;
}

/** How the store records an attempt that ended so: its record, its task's move, result and files. */
export function settlementOf(taskId: string, attemptId: number, ending: Ending): Settlement {
	const { result } = ending;
	return {
		taskId,
		attemptId,
		attemptStatus: ending.attemptStatus,
		taskStatus: ending.to,
		cause: ending.cause,
		error: ending.error,
		...(ending.retryable !== undefined ? { retryable: ending.retryable } : {}),
		exitCode: result?.exitCode ?? null,
		...(result ? { usage: result.usage } : {}),
		...(ending.evidence !== undefined ? { evidence: ending.evidence } : {}),
		...(ending.events ? { events: ending.events } : {}),
		...(result && (result.ok || result.text !== "")
			? { result: { excerpt: result.text.slice(0, DEFAULT_PROMPT_LIMITS.perDependency), chars: result.text.length } }
			: {}),
		artifacts: ending.artifacts ?? [],
	};
}
