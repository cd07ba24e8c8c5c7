// The coordinator end of the remote queue: hands a runner's attempts to `crew worker` processes via BullMQ.

import { mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { Job, Queue, QueueEvents } from "bullmq";
import { Redis } from "ioredis";
import { CrewError, ErrorCode, errorMessage } from "../../core/errors.js";
import { CREDENTIAL_ENV, hasCredentials, withoutCredentials } from "../../core/url-credentials.js";
import { ZERO_USAGE } from "../../core/usage.js";
import { applyChanges, type CheckoutSource, changesSince } from "../../workspace/checkouts.js";
import { writeAttemptFile } from "../attempt-files.js";
import type { AttemptParts, RunControl, TaskRequest, WorkerResult, WorkerRuntime } from "../worker-runtime.js";
import {
	ATTEMPT_QUEUE,
	type AttemptJobData,
	type AttemptProgress,
	type AttemptReturn,
	attemptJobId,
	CANCEL_CHANNEL,
	cancelKey,
} from "./attempt-job.js";
import { sealJob } from "./job-seal.js";
import { redisAddress } from "./redis-url.js";

interface JobWatch {
	readonly progress: (data: AttemptProgress) => void;
	readonly completed: (value: AttemptReturn) => void;
	readonly failed: (reason: string) => void;
}

/** Where the workers of a run in a git repository make its tasks' workspaces from. */
export interface RemoteWorkspace {
	/** A git URL or path the workers fetch `base` from. */
	readonly repository: string;
	readonly base: string;
	/** The repository here: a task working in it rather than in a worktree of its own gets no checkout. */
	readonly root: string;
}

/** How long closing waits for Redis to answer before its connections are dropped. */
const CLOSE_WAIT_MS = 5000;
/** How long a cancelled attempt's worker is waited for before the attempt is given up. */
const CANCEL_WAIT_MS = 10_000;
/** How long the record of a cancelled attempt stays, so a worker taking it later skips it: a day. */
const CANCEL_TTL_S = 86_400;
/**
 * How often the state of each job followed is read from the queue, in ms. Its events bring the
 * result at once; reading the state is for an event that never comes (the event stream trimmed,
 * or not readable, while the job ended), so a few seconds late is fine.
 */
const POLL_MS = 5000;

/**
 * Hands a runner's attempts to `crew worker` processes through a BullMQ queue on Redis. Each
 * attempt is one job; its worker events come back as job progress, its result, files and changes
 * as the job's return value. A task in a worktree of its own sends its starting state with the
 * job, and the worker's changes are applied to that worktree when the job ends. Events of a job a
 * worker lost (it stalled, and another worker took the job over) are dropped once the new taker's
 * arrive. Each job followed is also read from the queue now and then: a job that ended without
 * its event reaching here is settled from the result the queue keeps.
 */
export class RemoteDispatch {
	readonly #queue: Queue;
	readonly #events: QueueEvents;
	/** For what BullMQ does not do: the cancel marks and messages. */
	readonly #redis: Redis;
	readonly #ready: Promise<unknown>;
	readonly #watches = new Map<string, JobWatch>();
	readonly #url: string;
	readonly #workspace: RemoteWorkspace | undefined;

	/** What its jobs are signed with (see `sealJob`). */
	readonly #key: string;

	constructor(url: string, key: string, workspace?: RemoteWorkspace) {
		this.#url = url;
		this.#key = key;
		this.#workspace = workspace;
		const connection = { ...redisAddress(url), maxRetriesPerRequest: null };
		// Adding a job or a cancel fails at once while Redis is away, rather than waiting for it.
		const commands = { ...connection, enableOfflineQueue: false };
		this.#queue = new Queue(ATTEMPT_QUEUE, { connection: commands });
		this.#events = new QueueEvents(ATTEMPT_QUEUE, { connection });
		this.#redis = new Redis(commands);
		this.#events.on("progress", ({ jobId, data }) => this.#watches.get(jobId)?.progress(data as AttemptProgress));
		this.#events.on("completed", ({ jobId, returnvalue }) => {
			const value = typeof returnvalue === "string" ? (JSON.parse(returnvalue) as AttemptReturn) : returnvalue;
			this.#watches.get(jobId)?.completed(value as unknown as AttemptReturn);
		});
		this.#events.on("failed", ({ jobId, failedReason }) => this.#watches.get(jobId)?.failed(failedReason));
		// Commands fail rather than wait while a client is not connected: each use waits for this first.
		this.#ready = Promise.all([
			this.#events.waitUntilReady(),
			this.#queue.waitUntilReady(),
			// Not `once` from node:events: a failed connection attempt rejects that, and the client retries.
			new Promise((resolve) => this.#redis.once("ready", resolve)),
		]);
		// Redis being away shows in the commands that need it, and its clients reconnect on their own.
		const away = () => undefined;
		this.#queue.on("error", away);
		this.#events.on("error", away);
		this.#redis.on("error", away);
	}

	/**
	 * A runtime that runs `name`'s attempts on whichever worker takes them; carrying a task's
	 * setup hook and check, it has the worker run those too, beside the agent.
	 */
	runtime(name: string): WorkerRuntime {
		const runtime = (parts: AttemptParts): WorkerRuntime => ({
			name,
			run: (request, control) => this.#run(name, request, control, parts),
			carry: runtime,
		});
		return runtime({});
	}

	/**
	 * A runtime that follows an attempt already in the queue (a dead runner's) to its end instead
	 * of adding it: the result of a job that ended meanwhile, or the events and result of one that
	 * still runs or waits. The job already carries the task's setup hook and check. `label` is
	 * the runtime's own name, as its registry knows it.
	 */
	attach(name: string, label: string): WorkerRuntime {
		const runtime: WorkerRuntime = {
			name: label,
			run: (request, control) => this.#run(name, request, control, undefined),
			carry: () => runtime,
		};
		return runtime;
	}

	/** Whether an attempt is still in the queue to be followed: waiting, running, or completed with its result kept. */
	async inFlight(runId: string, taskId: string, attempt: number): Promise<boolean> {
		await this.#ready;
		const state = await this.#queue.getJobState(attemptJobId(runId, taskId, attempt));
		return ["waiting", "delayed", "prioritized", "active", "completed"].includes(state);
	}

	/** Ends an attempt wherever it runs, and keeps any worker from starting it. */
	cancel(runId: string, taskId: string, attempt: number, reason: string): Promise<void> {
		return this.#cancel(attemptJobId(runId, taskId, attempt), reason);
	}

	/** Closes its connections; when they do not close within a few seconds (Redis is away), drops them. */
	async close(): Promise<void> {
		const closed = this.#ready.then(() =>
			Promise.allSettled([this.#events.close(), this.#queue.close(), this.#redis.quit()]),
		);
		let timer: NodeJS.Timeout | undefined;
		const late = new Promise<"late">((resolve) => {
			timer = setTimeout(() => resolve("late"), CLOSE_WAIT_MS);
		});
		if ((await Promise.race([closed, late])) === "late") {
			// BullMQ's own disconnect waits for a connection too: it is started, not awaited.
			this.#redis.disconnect();
			void this.#events.disconnect();
			void this.#queue.disconnect();
		}
		clearTimeout(timer);
	}

	/** Runs an attempt remotely: adds its job with `parts`, or follows the job already there without. */
	async #run(
		runtime: string,
		request: TaskRequest,
		control: RunControl,
		parts: AttemptParts | undefined,
	): Promise<WorkerResult> {
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
			if (parts) {
				const checkout = await this.#checkoutOf(request);
				const data: AttemptJobData = { runtime, request, parts, ...(checkout ? { checkout } : {}) };
				try {
					await this.#queue.add(request.taskId, sealJob(data, this.#key), {
						jobId,
						attempts: 1,
						removeOnComplete: { age: CANCEL_TTL_S },
						removeOnFail: { age: CANCEL_TTL_S },
					});
				} catch (error) {
					const message = `cannot hand the attempt to the queue at ${withoutCredentials(this.#url)}: ${errorMessage(error)}`;
					return { ...NOTHING, error: { message, retryable: true } };
				}
			} else await this.#settledMeanwhile(jobId);
			const stopPolling = this.#poll(jobId);
			const onAbort = () => {
				// A cancel that cannot reach Redis still ends here: the attempt is given up after the wait.
				this.#cancel(jobId, errorMessage(control.signal.reason)).catch(() => undefined);
			};
			control.signal.addEventListener("abort", onAbort, { once: true });
			try {
				const outcome = await Promise.race([ended, aborted(control.signal, ended)]).catch((error: unknown) => {
					// A job that failed because this attempt was stopped (its timeout, a cancel) ends as the stop says.
					throw control.signal.aborted ? control.signal.reason : error;
				});
				return await this.#keep(request, outcome);
			} finally {
				stopPolling();
				control.signal.removeEventListener("abort", onAbort);
			}
		} finally {
			this.#watches.delete(jobId);
		}
	}

	/**
	 * Reads the job's state from the queue every few seconds until the returned function is called:
	 * a job that ended is settled from what the queue kept, whether or not its event arrived.
	 */
	#poll(jobId: string): () => void {
		let timer: NodeJS.Timeout | undefined;
		let stopped = false;
		const next = () => {
			timer = setTimeout(() => {
				this.#settledMeanwhile(jobId)
					// Redis away: the next reading asks again, and the attempt's limits still apply.
					.catch(() => undefined)
					.finally(() => {
						if (!stopped) next();
					});
			}, POLL_MS);
		};
		next();
		return () => {
			stopped = true;
			clearTimeout(timer);
		};
	}

	/**
	 * A followed job that ended (before it was followed, or without its event here) is answered
	 * from what the queue kept. A job the queue no longer has (a Redis that lost its data) ends
	 * its attempt as one that may be tried again.
	 */
	async #settledMeanwhile(jobId: string): Promise<void> {
		const job = await Job.fromId(this.#queue, jobId);
		const state = job ? await job.getState() : "unknown";
		const watch = this.#watches.get(jobId);
		if (state === "completed" && job) watch?.completed(job.returnvalue as AttemptReturn);
		else if (state === "failed") watch?.failed(job?.failedReason ?? "the job failed");
		else if (state === "unknown") {
			const error = { message: "remote attempt lost: the job is gone from the queue", retryable: true };
			watch?.completed({ result: { ...NOTHING, error }, files: [] });
		}
	}

	/** Marks the attempt cancelled and tells its worker; a job no worker took yet is removed. */
	async #cancel(jobId: string, reason: string): Promise<void> {
		await this.#ready;
		await this.#redis.set(cancelKey(jobId), reason, "EX", CANCEL_TTL_S);
		await this.#queue.remove(jobId).catch(() => 0);
		await this.#redis.publish(CANCEL_CHANNEL, JSON.stringify({ jobId, reason }));
	}

	/** Where a task in a worktree of its own starts: the run's base commit, and the worktree's state over it. */
	async #checkoutOf(request: TaskRequest): Promise<CheckoutSource | undefined> {
		const workspace = this.#workspace;
		if (!workspace || request.cwd === workspace.root) return undefined;
		const start = await changesSince(request.cwd, workspace.base);
		return { repository: workspace.repository, base: workspace.base, start };
	}

	/**
	 * The result, with the files the worker wrote stored under the attempt's own folder here and
	 * its changes applied to the task's worktree. Changes that do not apply fail the attempt.
	 */
	async #keep(request: TaskRequest, outcome: AttemptReturn): Promise<WorkerResult> {
		for (const file of outcome.files) {
			const relative = file.name.slice(request.artifactPrefix.length + 1);
			if (!file.name.startsWith(`${request.artifactPrefix}/`) || relative.split("/").includes("..")) continue;
			const path = join(request.artifactDir, relative);
			mkdirSync(dirname(path), { recursive: true });
			writeAttemptFile(path, Buffer.from(file.base64, "base64"));
		}
		if (outcome.changes === undefined || request.cwd === this.#workspace?.root) return outcome.result;
		try {
			await applyChanges(request.cwd, outcome.changes);
			return outcome.result;
		} catch (error) {
			const message = `the worker's changes do not apply to ${request.cwd}: ${errorMessage(error)}`;
			return { ...outcome.result, ok: false, error: { message, retryable: false } };
		}
	}
}

/**
 * Resolves once the Redis at `url` answers; rejects, naming the URL, when it does not within
 * `ms`. Ask before making a dispatch: BullMQ's clients wait for a Redis that never answered even
 * to close.
 */
export async function checkQueue(url: string, ms: number): Promise<void> {
	const client = new Redis({
		...redisAddress(url),
		lazyConnect: true,
		connectTimeout: ms,
		maxRetriesPerRequest: 0,
		enableOfflineQueue: false,
		retryStrategy: () => null,
	});
	// The connection's own error says more than the closed connection the commands then see.
	let cause: unknown;
	client.on("error", (error) => {
		cause ??= error;
	});
	try {
		await client.connect();
		await client.ping();
	} catch (error) {
		const said = errorMessage(cause ?? error);
		const shown = withoutCredentials(url);
		if (/NOAUTH|WRONGPASS|invalid password|invalid username-password/i.test(said)) {
			const what = hasCredentials(url) ? "refuses the password it was given" : "needs a password, and crew stores none";
			throw new CrewError(
				ErrorCode.InvalidInput,
				`the queue at ${shown} ${what} (${said}): give its URL with the password in ${CREDENTIAL_ENV.queue} or as "queue": {"url": …} in your user config`,
			);
		}
		throw new CrewError(ErrorCode.Runtime, `the queue at ${shown} does not answer (${said}); is Redis running?`);
	} finally {
		client.disconnect();
	}
}

/** The result of an attempt that never reached a worker. */
const NOTHING = { ok: false, text: "", exitCode: null, usage: ZERO_USAGE, artifacts: [] } as const;

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
