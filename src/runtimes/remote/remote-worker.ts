// The worker end of the remote queue: takes attempts from BullMQ and runs them with this machine's runtimes.

import type { ChildProcess } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { type Job, UnrecoverableError, Worker } from "bullmq";
import { Redis } from "ioredis";
import { agentRuns } from "../../core/agent-runs.js";
import { CrewError, ErrorCode, errorMessage } from "../../core/errors.js";
import { looser, type SandboxLevel } from "../../core/sandbox-level.js";
import type { AgentSpec } from "../../core/types.js";
import { withPartial, ZERO_USAGE } from "../../core/usage.js";
import { isProcessAlive } from "../../store/process-identity.js";
import { Checkouts, changesSince } from "../../workspace/checkouts.js";
import { writeAttemptFile } from "../attempt-files.js";
import type { RuntimeRegistry } from "../runtime-registry.js";
import { runSetup } from "../setup-hook.js";
import { withVerification } from "../verified-runtime.js";
import type { AttemptParts, RunControl, TaskRequest, WorkerEvent, WorkerResult } from "../worker-runtime.js";
import { ATTEMPT_QUEUE, AttemptJob, type AttemptReturn, CANCEL_CHANNEL, cancelKey } from "./attempt-job.js";
import { watchGroup } from "./group-sentinel.js";
import { openJob } from "./job-seal.js";
import { redisAddress } from "./redis-url.js";

export interface RemoteWorkerOptions {
	readonly url: string;
	readonly runtimes: RuntimeRegistry;
	/**
	 * Where attempts get their own folders, each removed once its result is sent, and the copies of
	 * runs' repositories their checkouts come from live.
	 */
	readonly workdir: string;
	/** Attempts run at once. Default 1. */
	readonly concurrency?: number;
	/** How long a job's lock lasts without renewal, in ms; a worker silent that long loses its jobs. Default 10000. */
	readonly lockMs?: number;
	/** Grace between SIGTERM and SIGKILL when an agent's group is ended, in ms. Default 3000. */
	readonly graceMs?: number;
	readonly log?: (line: string) => void;
	/**
	 * Whether this worker's operator trusts the jobs of a repository (a job's checkout source;
	 * `undefined` for a job without one) to run what the user's own agent CLIs would not: command
	 * agents, checks, setup hooks, `permissions: full`, and the repository's own pi files. A job
	 * never carries trust with it. Default: no job is trusted.
	 */
	readonly trusts?: (repository: string | undefined) => boolean;
	/** The queue's key: a job not signed with it is refused before anything of it runs (see `openJob`). */
	readonly key: string;
	/**
	 * The loosest sandbox this worker runs an attempt in, whatever its job asks: its operator's
	 * level (flag or config), else the machine's default.
	 */
	readonly sandbox: SandboxLevel;
}

/** What a job would run beyond an agent CLI under crew's permissions: its agent's command or full permissions, its check, its setup hook. */
function jobRuns(runtime: string, agent: AgentSpec, parts: AttemptParts): string[] {
	const own = agentRuns(agent, runtime);
	return [
		...(own !== undefined ? [`agent '${agent.name}': ${own}`] : []),
		...(parts.verify?.kind === "command" ? [`the check: ${parts.verify.command}`] : []),
		...(parts.setup ? [`the setup hook: ${parts.setup.command}`] : []),
	];
}

/** The result of an attempt its worker stopped: nothing done, nothing used beyond what its events said. */
const LEFT = { ok: false, text: "", exitCode: null, usage: ZERO_USAGE, artifacts: [] } as const;

/** Most bytes of one attempt's files sent back with its result. */
const MAX_FILE_BYTES = 8 * 1024 * 1024;
/** How often a running attempt's events are sent, in ms. */
const FLUSH_MS = 100;

/**
 * Takes attempts from the queue and runs each with a runtime of this machine, in a folder of its
 * own, its agent in its own process group watched by a sentinel that ends it if this worker
 * dies. A job whose lock this worker loses, or that the coordinator cancels, has its agent ended
 * at once.
 */
export class RemoteWorker {
	readonly #options: RemoteWorkerOptions;
	readonly #worker: Worker;
	readonly #subscriber: Redis;
	readonly #redis: Redis;
	readonly #running = new Map<string, AbortController>();
	readonly #checkouts: Checkouts;
	/** This worker's attempt folders, named by its pid so a later worker can tell them from a live one's. */
	readonly #attempts: string;
	#closing = false;

	constructor(options: RemoteWorkerOptions) {
		this.#options = options;
		this.#checkouts = new Checkouts(join(options.workdir, "repositories"));
		this.#attempts = join(options.workdir, "attempts", String(process.pid));
		const connection = { ...redisAddress(options.url), maxRetriesPerRequest: null };
		const lockDuration = options.lockMs ?? 10_000;
		this.#worker = new Worker(ATTEMPT_QUEUE, (job) => this.#process(job), {
			connection,
			concurrency: options.concurrency ?? 1,
			lockDuration,
			stalledInterval: lockDuration,
			maxStalledCount: 3,
			autorun: false,
		});
		this.#worker.on("lockRenewalFailed", (ids) => {
			for (const id of ids) this.#stop(id, "this worker lost the job's lock; another worker may run it");
		});
		this.#worker.on("error", (error) => this.#options.log?.(`worker error: ${errorMessage(error)}`));
		this.#redis = new Redis(connection);
		this.#subscriber = new Redis(connection);
		for (const client of [this.#redis, this.#subscriber])
			client.on("error", (error) => this.#options.log?.(`redis: ${errorMessage(error)}`));
		this.#subscriber.on("message", (_channel, message) => {
			const { jobId, reason } = JSON.parse(message) as { jobId: string; reason: string };
			this.#stop(jobId, reason);
		});
	}

	/**
	 * Tidies the work folder, listens for cancels, then takes jobs. While Redis does not answer it
	 * waits, saying why through `log`.
	 */
	async start(): Promise<void> {
		await this.#tidy();
		// Subscribing while the client checks its new connection fails that check and the subscription.
		const subscriber = this.#subscriber;
		if (subscriber.status !== "ready") await new Promise((resolve) => subscriber.once("ready", resolve));
		await subscriber.subscribe(CANCEL_CHANNEL);
		this.#worker.run().catch((error) => this.#options.log?.(`worker error: ${errorMessage(error)}`));
		await this.#worker.waitUntilReady();
	}

	/** Stops taking jobs, ends the agents of running ones, and closes its connections. */
	async close(): Promise<void> {
		this.#closing = true;
		for (const id of this.#running.keys()) this.#stop(id, "the worker is shutting down");
		await Promise.allSettled([this.#worker.close(), this.#subscriber.quit(), this.#redis.quit()]);
	}

	/** Removes what workers that died left in the work folder: their attempt folders and checkouts. */
	async #tidy(): Promise<void> {
		const attempts = join(this.#options.workdir, "attempts");
		mkdirSync(attempts, { recursive: true });
		for (const pid of readdirSync(attempts)) {
			if (!isProcessAlive(Number(pid), null)) rmSync(join(attempts, pid), { recursive: true, force: true });
		}
		await this.#checkouts.prune();
	}

	#stop(jobId: string, reason: string): void {
		const controller = this.#running.get(jobId);
		if (controller && !controller.signal.aborted) controller.abort(new CrewError(ErrorCode.Cancelled, reason));
	}

	async #process(job: Job): Promise<AttemptReturn> {
		const opened = openJob(job.data, this.#options.key);
		if ("refused" in opened) {
			this.#options.log?.(`job ${job.id}: refused, nothing of it run: ${opened.refused}`);
			throw new UnrecoverableError(`refused by the worker: ${opened.refused}`);
		}
		const parsed = AttemptJob.safeParse(opened.data);
		if (!parsed.success) throw new UnrecoverableError(`not a crew attempt: ${parsed.error.issues[0]?.message}`);
		const { runtime, request: given, parts, checkout } = parsed.data;
		const id = job.id as string;
		const cancelled = await this.#redis.get(cancelKey(id));
		if (cancelled !== null) throw new UnrecoverableError(`cancelled: ${cancelled}`);
		const trusted = this.#options.trusts?.(checkout?.repository) ?? false;
		const runs = jobRuns(runtime, given.agent, parts);
		if (!trusted && runs.length > 0) {
			const source = checkout ? `the repository ${checkout.repository}` : "jobs without a repository";
			const how = checkout ? `--trust ${checkout.repository} (or --trust-all)` : "--trust-all";
			const message = `this worker does not trust ${source}, and the attempt would run: ${runs.join("; ")}; if you trust it, start the worker with ${how}, or run \`crew trust\` in that repository on this host`;
			this.#options.log?.(`run ${given.runId} task ${given.taskId} attempt ${given.attempt}: refused: ${message}`);
			return { result: { ...LEFT, error: { message, retryable: false } }, files: [] };
		}
		const folder = join(this.#attempts, `${given.runId}.${given.taskId}.${given.attempt}.${job.attemptsStarted}`);
		const { sandbox, ...asked } = given;
		// A job may tighten the worker's sandbox, never loosen it.
		const floor = this.#options.sandbox;
		const request: TaskRequest = {
			...asked,
			projectTrusted: trusted,
			cwd: join(folder, "work"),
			artifactDir: join(folder, "files"),
			promptFile: join(folder, "files", "prompt.md"),
			// Other attempts' folders are out of its sight, as crew's are on the coordinator.
			sandbox: {
				level: looser(sandbox?.level ?? "off", floor) ? floor : (sandbox?.level ?? "off"),
				readOnly: sandbox?.readOnly ?? false,
				hosts: sandbox?.hosts ?? [],
				hide: [this.#attempts],
				show: [],
			},
		};
		mkdirSync(request.artifactDir, { recursive: true });
		writeAttemptFile(request.promptFile, request.prompt);
		const controller = new AbortController();
		this.#running.set(id, controller);
		const sentinels: ChildProcess[] = [];
		let pending: WorkerEvent[] = [];
		let sent = Promise.resolve();
		const flush = () => {
			if (pending.length === 0) return;
			const events = pending;
			pending = [];
			sent = sent.then(() => job.updateProgress({ started: job.attemptsStarted, events })).catch(() => undefined);
		};
		const timer = setInterval(flush, FLUSH_MS);
		const said = (what: string) =>
			this.#options.log?.(`run ${given.runId} task ${given.taskId} attempt ${given.attempt}: ${what}`);
		said("started");
		try {
			if (checkout) {
				try {
					await this.#checkouts.prepare(checkout, request.cwd);
				} catch (error) {
					said(errorMessage(error));
					return { result: { ...LEFT, error: { message: errorMessage(error), retryable: false } }, files: [] };
				}
			} else mkdirSync(request.cwd, { recursive: true });
			const { result, keep } = await this.#attempt(runtime, parts, request, {
				signal: controller.signal,
				onEvent: (event) => {
					if (event.type === "spawned") sentinels.push(watchGroup(event.process.pgid, this.#options.graceMs ?? 3000));
					pending.push(event);
				},
			});
			const files = result.artifacts.flatMap((file) => {
				const relative = file.name.slice(given.artifactPrefix.length + 1);
				const bytes = readFileSync(join(request.artifactDir, relative));
				return bytes.length > MAX_FILE_BYTES ? [] : [{ name: file.name, base64: bytes.toString("base64") }];
			});
			const changes = checkout && keep ? await changesSince(request.cwd, "HEAD") : undefined;
			said(result.ok ? "done" : "failed");
			return { result, files, ...(changes !== undefined ? { changes } : {}) };
		} catch (error) {
			const message = errorMessage(error);
			said(message);
			// A worker going away is no fault of the task: the attempt fails as one another worker may retry.
			// Its agent was stopped before it could report all it used: what it did report came as events.
			if (this.#closing) {
				const result = { ...LEFT, usage: withPartial(ZERO_USAGE, true), error: { message, retryable: true } };
				return { result, files: [] };
			}
			throw new UnrecoverableError(message);
		} finally {
			clearInterval(timer);
			flush();
			await sent;
			this.#running.delete(id);
			for (const sentinel of sentinels) sentinel.kill("SIGKILL");
			if (checkout) await this.#checkouts.remove(checkout.repository, request.cwd);
			rmSync(folder, { recursive: true, force: true });
		}
	}

	/**
	 * The attempt as the coordinator would run it here: the setup hook first (a failure ends the
	 * attempt, and what the hook changed is not kept), then the agent, checked by the task's check.
	 */
	async #attempt(
		name: string,
		parts: AttemptParts,
		request: TaskRequest,
		control: RunControl,
	): Promise<{ result: WorkerResult; keep: boolean }> {
		const { runtimes } = this.#options;
		if (parts.setup) {
			const failed = await runSetup(runtimes.get("command"), parts.setup, request, control);
			if (failed) return { result: failed, keep: false };
		}
		const agent = runtimes.get(name);
		const runtime = parts.verify ? withVerification(agent, runtimes.get("command"), parts.verify) : agent;
		return { result: await runtime.run(request, control), keep: true };
	}
}
