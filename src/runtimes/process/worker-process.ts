// One worker process run in its own process group: its input, output, redacted stderr log and end.

import { type ChildProcess, spawn } from "node:child_process";
import type { Readable, Writable } from "node:stream";
import { finished } from "node:stream/promises";
import { setTimeout as delay } from "node:timers/promises";
import { phaseSince } from "../../core/timings.js";
import { attemptFileStream } from "../attempt-files.js";
import type { WorkerEvent } from "../worker-runtime.js";
import { ATTEMPT_TOKEN } from "./attempt-seal.js";
import { BoundedBuffer, TailBuffer } from "./bounded-buffer.js";
import { groupsCarrying, handleOf, signallable, terminateGroup } from "./process-group.js";
import { RedactingLines } from "./redacting-lines.js";

/** How long to wait for a finished worker's pipes to close before giving up on them, in ms. */
const CLOSE_WAIT_MS = 2000;

/**
 * The process groups of the workers running now, so a runner that exits abruptly (an uncaught
 * error, `process.exit`) still ends them: one instance per runner, shared by its runtimes.
 */
export class LiveGroups {
	readonly #groups = new Set<number>();
	readonly #killAll = (): void => {
		for (const pgid of this.#groups) {
			if (!signallable(pgid)) continue;
			try {
				process.kill(-pgid, "SIGKILL");
			} catch {
				// Already gone: nothing left to end.
			}
		}
	};

	add(pgid: number): void {
		if (this.#groups.size === 0) process.on("exit", this.#killAll);
		this.#groups.add(pgid);
	}

	delete(pgid: number): void {
		this.#groups.delete(pgid);
		if (this.#groups.size === 0) process.off("exit", this.#killAll);
	}
}

export interface WorkerProcessOptions {
	readonly file: string;
	readonly args: readonly string[];
	readonly cwd: string;
	readonly env: NodeJS.ProcessEnv;
	/** Written to stdin, then closed; null leaves stdin closed from the start. */
	readonly stdin: string | null;
	/**
	 * Keeps stdin open after `stdin` is written, and hands it over once the process runs: its
	 * holder writes more and ends it.
	 */
	readonly converse?: (stdin: Writable) => void;
	/** Absolute path of the attempt's stderr log. */
	readonly logFile: string;
	readonly maxLogBytes: number;
	readonly graceMs: number;
	readonly live: LiveGroups;
	readonly signal: AbortSignal;
	readonly onEvent: (event: WorkerEvent) => void;
	readonly onStdout: (chunk: Buffer) => void;
	/**
	 * The attempt's token (see `AttemptSeal`), put in the worker's environment. When the worker
	 * ends, groups whose processes carry it are ended too, so a helper that left the worker's
	 * group (a session of its own) does not outlive it.
	 */
	readonly token: string;
}

export interface WorkerExit {
	readonly code: number | null;
	readonly signal: NodeJS.Signals | null;
	/** Set when the process could not be started at all. */
	readonly spawnError?: Error;
	/** Set when the stderr log could not be written (a full disk, say). */
	readonly logError?: Error;
	/** The first and the last bytes of stderr (2 KiB each), for error messages. */
	readonly stderrHead: string;
	readonly stderrTail: string;
}

/**
 * Runs one worker process in its own process group and waits until it and everything it left in
 * its group (or marked with its attempt token elsewhere) are gone. On abort the whole group gets SIGTERM, then SIGKILL after `graceMs`, and the
 * promise rejects with the signal's reason once the group is gone, unless the worker had ended by itself first.
 */
export async function runWorkerProcess(options: WorkerProcessOptions): Promise<WorkerExit> {
	const { signal, onEvent } = options;
	signal.throwIfAborted();
	const log = attemptFileStream(options.logFile);
	let logError: Error | undefined;
	log.on("error", (error) => {
		logError ??= error;
	});
	let child: ChildProcess;
	const spawning = performance.now();
	try {
		child = spawn(options.file, options.args as string[], {
			cwd: options.cwd,
			detached: true,
			stdio: [options.stdin === null && !options.converse ? "ignore" : "pipe", "pipe", "pipe"],
			env: { ...options.env, [ATTEMPT_TOKEN]: options.token },
		});
	} catch (error) {
		// Some failures to start throw here rather than as an `error` event (arguments over the
		// system's limit, E2BIG): the same failure to start, and the log's descriptor is closed.
		log.end();
		// The log is empty: whether it closes cleanly changes nothing about the result.
		await finished(log).catch(() => undefined);
		return { code: null, signal: null, stderrHead: "", stderrTail: "", spawnError: error as Error };
	}
	const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; error?: Error }>((resolve) => {
		child.once("error", (error) => resolve({ code: null, signal: null, error }));
		child.once("exit", (code, sig) => resolve({ code, signal: sig }));
	});
	const closed = new Promise<void>((resolve) => child.once("close", () => resolve()));
	if (child.pid === undefined) {
		const { error } = await exited;
		log.end();
		return { code: null, signal: null, stderrHead: "", stderrTail: "", ...(error ? { spawnError: error } : {}) };
	}
	const pgid = child.pid;
	phaseSince("worker: spawn", spawning);
	const { stdout, stderr } = child as typeof child & { stdout: Readable; stderr: Readable };
	let quiet = true;
	const heard = () => {
		if (quiet) phaseSince("worker: from spawn to its first output", spawning);
		quiet = false;
		onEvent({ type: "activity" });
	};
	options.live.add(pgid);
	onEvent({ type: "spawned", process: handleOf(child) });

	const stderrHead = new BoundedBuffer(2048);
	const stderrTail = new TailBuffer(2048);
	const redacting = new RedactingLines();
	let logged = 0;
	stdout.on("data", (chunk: Buffer) => {
		options.onStdout(chunk);
		heard();
	});
	stderr.on("data", (chunk: Buffer) => {
		stderrHead.push(chunk);
		stderrTail.push(chunk);
		if (logged < options.maxLogBytes) log.write(redacting.push(chunk.subarray(0, options.maxLogBytes - logged)));
		logged += chunk.length;
		heard();
	});
	if (child.stdin) {
		// A worker that never reads its input closes stdin early; that is its choice, not a failure.
		child.stdin.on("error", () => undefined);
		if (options.converse) {
			if (options.stdin !== null) child.stdin.write(options.stdin);
			options.converse(child.stdin);
		} else child.stdin.end(options.stdin ?? undefined);
	}

	let stopping: Promise<void> | undefined;
	const onAbort = () => {
		stopping = terminateGroup(pgid, options.graceMs);
	};
	signal.addEventListener("abort", onAbort, { once: true });
	try {
		const end = await exited;
		phaseSince("worker: from spawn to its exit", spawning);
		const ending = performance.now();
		// A worker that ended by itself has its result, whatever stops it while what it left is cleared away.
		const stopped = signal.aborted;
		// Workers die with their task: whatever the leader left in its group goes too.
		stopping ??= terminateGroup(pgid, options.graceMs);
		await stopping;
		const strays = groupsCarrying({ [ATTEMPT_TOKEN]: options.token });
		await Promise.all(strays.map((g) => terminateGroup(g, options.graceMs)));
		// A descendant that left the group may still hold the pipes; stop reading after a while.
		const wait = new AbortController();
		const drained = await Promise.race([
			closed.then(() => true),
			delay(CLOSE_WAIT_MS, false, { signal: wait.signal }).catch(() => false),
		]);
		wait.abort();
		if (!drained) {
			stdout.destroy();
			stderr.destroy();
		}
		log.write(redacting.end());
		if (logged > options.maxLogBytes) log.write(`\n[crew: stderr truncated, ${logged} bytes in all]\n`);
		log.end();
		await finished(log).catch((error: Error) => {
			logError ??= error;
		});
		phaseSince("worker: end its group and strays, drain its output", ending);
		if (stopped) signal.throwIfAborted();
		return {
			code: end.code,
			signal: end.signal,
			stderrHead: stderrHead.text(),
			stderrTail: stderrTail.text(),
			...(logError ? { logError } : {}),
		};
	} finally {
		signal.removeEventListener("abort", onAbort);
		options.live.delete(pgid);
	}
}
