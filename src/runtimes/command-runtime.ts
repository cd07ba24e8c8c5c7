import { spawn } from "node:child_process";
import { createWriteStream, mkdirSync } from "node:fs";
import { join } from "node:path";
import { finished } from "node:stream/promises";
import { setTimeout as delay } from "node:timers/promises";
import { ZERO_USAGE } from "../core/types.js";
import { BoundedBuffer, TailBuffer } from "./bounded-buffer.js";
import { handleOf, terminateGroup } from "./process-group.js";
import type { RunControl, TaskRequest, WorkerResult, WorkerRuntime } from "./worker-runtime.js";

/** How long to wait for a finished worker's pipes to close before giving up on them, in ms. */
const CLOSE_WAIT_MS = 2000;

/** Exit status a command uses to say "temporary failure, try again" (EX_TEMPFAIL). */
export const RETRYABLE_EXIT_CODE = 75;

export interface CommandRuntimeOptions {
	/** Time between SIGTERM and SIGKILL, in ms. Default 3000. */
	readonly graceMs?: number;
	/** Bytes of stdout kept as the result. Default 4 MiB. */
	readonly maxResultBytes?: number;
	/** Bytes of stderr kept in the attempt's log. Default 8 MiB. */
	readonly maxLogBytes?: number;
	/** The environment commands inherit. Default: this process's. */
	readonly env?: NodeJS.ProcessEnv;
}

/**
 * Runs an agent's own command line with `/bin/sh -c`, in its own process group, with the prompt
 * on stdin; stdout is the result, stderr goes to the attempt's log.
 */
export class CommandRuntime implements WorkerRuntime {
	readonly name = "command";
	readonly #graceMs: number;
	readonly #maxResult: number;
	readonly #maxLog: number;
	readonly #env: NodeJS.ProcessEnv;
	/** Process groups of workers running now. */
	readonly #live = new Set<number>();

	constructor(options: CommandRuntimeOptions = {}) {
		this.#graceMs = options.graceMs ?? 3000;
		this.#maxResult = options.maxResultBytes ?? 4 * 1024 * 1024;
		this.#maxLog = options.maxLogBytes ?? 8 * 1024 * 1024;
		this.#env = options.env ?? process.env;
	}

	async run(request: TaskRequest, { signal, onEvent }: RunControl): Promise<WorkerResult> {
		signal.throwIfAborted();
		const command = request.agent.command?.trim();
		if (!command) {
			return failed(`agent '${request.agent.name}' has runtime 'command' but no command line`, false, null, []);
		}
		mkdirSync(request.artifactDir, { recursive: true });
		const logFile = `attempt-${request.attempt}.stderr.log`;
		const artifacts = [{ name: `${request.artifactPrefix}/${logFile}`, kind: "log" }];
		const log = createWriteStream(join(request.artifactDir, logFile));
		let logError: Error | undefined;
		log.on("error", (error) => {
			logError ??= error;
		});
		const child = spawn("/bin/sh", ["-c", command], {
			cwd: request.cwd,
			detached: true,
			stdio: ["pipe", "pipe", "pipe"],
			env: {
				...this.#env,
				CREW_RUN_ID: request.runId,
				CREW_TASK_ID: request.taskId,
				CREW_STEP_ID: request.stepId,
				CREW_ROLE: request.role,
				CREW_ATTEMPT: String(request.attempt),
				CREW_PROMPT_FILE: request.promptFile,
				CREW_WORKSPACE: request.cwd,
			},
		});
		const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; error?: Error }>((resolve) => {
			child.once("error", (error) => resolve({ code: null, signal: null, error }));
			child.once("exit", (code, sig) => resolve({ code, signal: sig }));
		});
		const closed = new Promise<void>((resolve) => child.once("close", () => resolve()));
		if (child.pid === undefined) {
			const { error } = await exited;
			log.end();
			return failed(`cannot start command of agent '${request.agent.name}': ${error?.message}`, false, null, artifacts);
		}
		const pgid = child.pid;
		this.#track(pgid);
		onEvent({ type: "spawned", process: handleOf(child) });

		const stdout = new BoundedBuffer(this.#maxResult);
		const stderrTail = new TailBuffer(2048);
		let logged = 0;
		child.stdout.on("data", (chunk: Buffer) => {
			stdout.push(chunk);
			onEvent({ type: "activity" });
		});
		child.stderr.on("data", (chunk: Buffer) => {
			stderrTail.push(chunk);
			if (logged < this.#maxLog) log.write(chunk.subarray(0, this.#maxLog - logged));
			logged += chunk.length;
			onEvent({ type: "activity" });
		});
		// A command that never reads its prompt closes stdin early; that is its choice, not a failure.
		child.stdin.on("error", () => undefined);
		child.stdin.end(request.prompt);

		let stopping: Promise<void> | undefined;
		const onAbort = () => {
			stopping = terminateGroup(pgid, this.#graceMs);
		};
		signal.addEventListener("abort", onAbort, { once: true });
		try {
			const end = await exited;
			// Workers die with their task: whatever the leader left in its group goes too.
			stopping ??= terminateGroup(pgid, this.#graceMs);
			await stopping;
			// A descendant that left the group may still hold the pipes; stop reading after a while.
			const wait = new AbortController();
			const drained = await Promise.race([
				closed.then(() => true),
				delay(CLOSE_WAIT_MS, false, { signal: wait.signal }).catch(() => false),
			]);
			wait.abort();
			if (!drained) {
				child.stdout.destroy();
				child.stderr.destroy();
			}
			if (logged > this.#maxLog) log.write(`\n[crew: stderr truncated, ${logged} bytes in all]\n`);
			log.end();
			await finished(log).catch((error: Error) => {
				logError ??= error;
			});
			signal.throwIfAborted();
			if (logError) return failed(`cannot write the attempt's log: ${logError.message}`, false, end.code, artifacts);
			let text = stdout.text();
			if (stdout.truncated) text += `\n[crew: output truncated after ${this.#maxResult} of ${stdout.total} bytes]\n`;
			if (end.code === 0) return { ok: true, text, exitCode: 0, usage: ZERO_USAGE, artifacts };
			const detail = lastLine(stderrTail.text());
			if (end.signal) return failed(`killed by ${end.signal}${detail}`, true, null, artifacts, text);
			return failed(`exit code ${end.code}${detail}`, end.code === RETRYABLE_EXIT_CODE, end.code, artifacts, text);
		} finally {
			signal.removeEventListener("abort", onAbort);
			this.#untrack(pgid);
		}
	}

	/** Remembers a live worker group, so a runner that exits abruptly still ends it. */
	#track(pgid: number): void {
		if (this.#live.size === 0) process.on("exit", this.#killLive);
		this.#live.add(pgid);
	}

	#untrack(pgid: number): void {
		this.#live.delete(pgid);
		if (this.#live.size === 0) process.off("exit", this.#killLive);
	}

	readonly #killLive = (): void => {
		for (const pgid of this.#live) {
			try {
				process.kill(-pgid, "SIGKILL");
			} catch {
				// Already gone: nothing left to end.
			}
		}
	};
}

function lastLine(text: string): string {
	const line = text.trimEnd().split("\n").pop()?.trim();
	return line ? `: ${line.slice(0, 500)}` : "";
}

function failed(
	message: string,
	retryable: boolean,
	exitCode: number | null,
	artifacts: WorkerResult["artifacts"],
	text = "",
): WorkerResult {
	return { ok: false, text, error: { message, retryable }, exitCode, usage: ZERO_USAGE, artifacts };
}
