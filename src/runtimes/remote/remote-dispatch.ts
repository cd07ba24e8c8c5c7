import { join } from "node:path";
import { Job, Queue, QueueEvents } from "bullmq";
import { Redis } from "ioredis";
import { CrewError, ErrorCode, errorMessage } from "../../core/errors.js";
import { writeAttemptFile } from "../attempt-files.js";
import type { RunControl, TaskRequest, WorkerResult, WorkerRuntime } from "../worker-runtime.js";
import {
	ATTEMPT_QUEUE,
	type AttemptJobData,
	type AttemptProgress,
	type AttemptReturn,
	attemptJobId,
	CANCEL_CHANNEL,
	cancelKey,
} from "./attempt-job.js";
import { redisAddress } from "./redis-url.js";

interface JobWatch {
	readonly progress: (data: AttemptProgress) => void;
	readonly completed: (value: AttemptReturn) => void;
	readonly failed: (reason: string) => void;
}

/** How long a cancelled attempt's worker is waited for before the attempt is given up. */
const CANCEL_WAIT_MS = 10_000;
/** How long the record of a cancelled attempt stays, so a worker taking it later skips it: a day. */
const CANCEL_TTL_S = 86_400;

/**
 * Hands a runner's attempts to `crew worker` processes through a BullMQ queue on Redis. Each
 * attempt is one job; its worker events come back as job progress, its result and files as the
 * job's return value. Events of a job a worker lost (it stalled, and another worker took the
 * job over) are dropped once the new taker's arrive.
 */
export class RemoteDispatch {
	readonly #queue: Queue;
	readonly #events: QueueEvents;
	/** For what BullMQ does not do: the cancel marks and messages. */
	readonly #redis: Redis;
	readonly #ready: Promise<unknown>;
	readonly #watches = new Map<string, JobWatch>();

	constructor(url: string) {
		const connection = { ...redisAddress(url), maxRetriesPerRequest: null };
		this.#queue = new Queue(ATTEMPT_QUEUE, { connection });
		this.#events = new QueueEvents(ATTEMPT_QUEUE, { connection });
		this.#redis = new Redis(connection);
		this.#events.on("progress", ({ jobId, data }) => this.#watches.get(jobId)?.progress(data as AttemptProgress));
		this.#events.on("completed", ({ jobId, returnvalue }) => {
			const value = typeof returnvalue === "string" ? (JSON.parse(returnvalue) as AttemptReturn) : returnvalue;
			this.#watches.get(jobId)?.completed(value as unknown as AttemptReturn);
		});
		this.#events.on("failed", ({ jobId, failedReason }) => this.#watches.get(jobId)?.failed(failedReason));
		this.#ready = this.#events.waitUntilReady();
	}

	/** A runtime that runs `name`'s attempts on whichever worker takes them. */
	runtime(name: string): WorkerRuntime {
		return { name, run: (request, control) => this.#run(name, request, control, true) };
	}

	/**
	 * A runtime that follows an attempt already in the queue (a dead runner's) to its end instead
	 * of adding it: the result of a job that ended meanwhile, or the events and result of one that
	 * still runs or waits.
	 */
	attach(name: string): WorkerRuntime {
		return { name, run: (request, control) => this.#run(name, request, control, false) };
	}

	/** Whether an attempt is still in the queue to be followed: waiting, running, or completed with its result kept. */
	async inFlight(runId: string, taskId: string, attempt: number): Promise<boolean> {
		const state = await this.#queue.getJobState(attemptJobId(runId, taskId, attempt));
		return ["waiting", "delayed", "prioritized", "active", "completed"].includes(state);
	}

	/** Ends an attempt wherever it runs, and keeps any worker from starting it. */
	cancel(runId: string, taskId: string, attempt: number, reason: string): Promise<void> {
		return this.#cancel(attemptJobId(runId, taskId, attempt), reason);
	}

	async close(): Promise<void> {
		await Promise.allSettled([this.#events.close(), this.#queue.close(), this.#redis.quit()]);
	}

	async #run(runtime: string, request: TaskRequest, control: RunControl, add: boolean): Promise<WorkerResult> {
		control.signal.throwIfAborted();
		await this.#ready;
		const jobId = attemptJobId(request.runId, request.taskId, request.attempt);
		let latest = 0;
		const ended = new Promise<AttemptReturn>((resolve, reject) => {
			this.#watches.set(jobId, {
				progress: ({ started, events }) => {
					if (started < latest) return;
					latest = started;
					// A remote process is no business of this host's: only its activity counts here.
					for (const event of events) control.onEvent(event.type === "spawned" ? { type: "activity" } : event);
				},
				completed: resolve,
				failed: (reason) => reject(new CrewError(ErrorCode.Runtime, `remote attempt failed: ${reason}`)),
			});
		});
		try {
			if (add) {
				const data: AttemptJobData = { runtime, request };
				await this.#queue.add(request.taskId, data, {
					jobId,
					attempts: 1,
					removeOnComplete: { age: CANCEL_TTL_S },
					removeOnFail: { age: CANCEL_TTL_S },
				});
			} else await this.#settledMeanwhile(jobId);
			const onAbort = () => {
				// A cancel that cannot reach Redis still ends here: the attempt is given up after the wait.
				this.#cancel(jobId, errorMessage(control.signal.reason)).catch(() => undefined);
			};
			control.signal.addEventListener("abort", onAbort, { once: true });
			try {
				const outcome = await Promise.race([ended, aborted(control.signal, ended)]);
				return this.#keepFiles(request, outcome);
			} finally {
				control.signal.removeEventListener("abort", onAbort);
			}
		} finally {
			this.#watches.delete(jobId);
		}
	}

	/** A followed job that ended before it was followed is answered from what the queue kept. */
	async #settledMeanwhile(jobId: string): Promise<void> {
		const job = await Job.fromId(this.#queue, jobId);
		const state = job ? await job.getState() : "unknown";
		const watch = this.#watches.get(jobId);
		if (state === "completed" && job) watch?.completed(job.returnvalue as AttemptReturn);
		else if (state === "failed" || state === "unknown")
			watch?.failed(job?.failedReason ?? "the job is gone from the queue");
	}

	/** Marks the attempt cancelled and tells its worker; a job no worker took yet is removed. */
	async #cancel(jobId: string, reason: string): Promise<void> {
		await this.#redis.set(cancelKey(jobId), reason, "EX", CANCEL_TTL_S);
		await this.#queue.remove(jobId).catch(() => 0);
		await this.#redis.publish(CANCEL_CHANNEL, JSON.stringify({ jobId, reason }));
	}

	/** The result, with the files the worker wrote stored under the attempt's own folder here. */
	#keepFiles(request: TaskRequest, outcome: AttemptReturn): WorkerResult {
		for (const file of outcome.files) {
			const relative = file.name.slice(request.artifactPrefix.length + 1);
			if (!file.name.startsWith(`${request.artifactPrefix}/`) || relative.split("/").includes("..")) continue;
			writeAttemptFile(join(request.artifactDir, relative), Buffer.from(file.base64, "base64").toString("utf8"));
		}
		return outcome.result;
	}
}

/**
 * Rejects with the signal's reason once the attempt's worker has ended after an abort (or after
 * a bounded wait, when it does not answer); never settles while the signal is not aborted.
 */
function aborted(signal: AbortSignal, ended: Promise<unknown>): Promise<never> {
	return new Promise((_, reject) => {
		const onAbort = () => {
			const timer = setTimeout(() => reject(signal.reason), CANCEL_WAIT_MS);
			const done = () => {
				clearTimeout(timer);
				reject(signal.reason);
			};
			ended.then(done, done);
		};
		if (signal.aborted) onAbort();
		else signal.addEventListener("abort", onAbort, { once: true });
	});
}
