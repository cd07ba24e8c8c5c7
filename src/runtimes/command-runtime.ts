// The command runtime: runs an agent's own command line with the prompt on stdin, its stdout the result.

import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { errorMessage } from "../core/errors.js";
import { nestingDepth } from "../core/nesting.js";
import { hostPortText, isConfined, reachable } from "../core/sandbox-level.js";
import { ZERO_USAGE } from "../core/usage.js";
import { tailLines } from "./agent/failure-lines.js";
import { OutputEvents } from "./agent/output-events.js";
import { type DelegationSocket, delegationSocket } from "./delegation/delegation-socket.js";
import { AttemptSeal } from "./process/attempt-seal.js";
import { BoundedBuffer, TailBuffer } from "./process/bounded-buffer.js";
import { LiveGroups, runWorkerProcess } from "./process/worker-process.js";
import { DenialWatch } from "./sandbox/denials.js";
import { type Closed, type Launch, leftFailure, NOTHING_LEFT, Sandbox, tellSetAside } from "./sandbox/sandbox.js";
import type { RunControl, TaskRequest, WorkerResult, WorkerRuntime } from "./worker-runtime.js";

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
	/** Worker groups to end if the runner exits abruptly. Default: a set of this runtime's own. */
	readonly live?: LiveGroups;
	/** Makes each attempt's token. Default: one with the user's key. */
	readonly seal?: AttemptSeal;
	/** Confines each attempt as its request asks. Default: this machine's. */
	readonly sandbox?: Sandbox;
}

/**
 * Runs an agent's own command line with `/bin/sh -c`, in its own process group, with the prompt
 * on stdin; stdout is the result, stderr goes to the attempt's log. A failure's error ends with
 * the last lines the command wrote to stderr, or to stdout when stderr was empty.
 */
export class CommandRuntime implements WorkerRuntime {
	readonly name = "command";
	readonly #graceMs: number;
	readonly #maxResult: number;
	readonly #maxLog: number;
	readonly #env: NodeJS.ProcessEnv;
	readonly #live: LiveGroups;
	readonly #seal: AttemptSeal;
	readonly #sandbox: Sandbox;

	constructor(options: CommandRuntimeOptions = {}) {
		this.#graceMs = options.graceMs ?? 3000;
		this.#maxResult = options.maxResultBytes ?? 4 * 1024 * 1024;
		this.#maxLog = options.maxLogBytes ?? 8 * 1024 * 1024;
		this.#env = options.env ?? process.env;
		this.#live = options.live ?? new LiveGroups();
		this.#seal = options.seal ?? new AttemptSeal();
		this.#sandbox = options.sandbox ?? new Sandbox(this.#env);
	}

	async run(request: TaskRequest, control: RunControl): Promise<WorkerResult> {
		control.signal.throwIfAborted();
		const delegation = await delegationSocket(control);
		try {
			return await this.#run(request, control, delegation);
		} finally {
			await delegation?.close();
		}
	}

	async #run(
		request: TaskRequest,
		{ signal, onEvent }: RunControl,
		delegation: DelegationSocket | undefined,
	): Promise<WorkerResult> {
		signal.throwIfAborted();
		const command = request.agent.command?.trim();
		if (!command) {
			return failed(`agent '${request.agent.name}' has runtime 'command' but no command line`, false, null, []);
		}
		mkdirSync(request.artifactDir, { recursive: true });
		const logFile = `attempt-${request.attempt}.stderr.log`;
		const artifacts = [{ name: `${request.artifactPrefix}/${logFile}`, kind: "log" }];
		const stdout = new BoundedBuffer(this.#maxResult);
		const stdoutTail = new TailBuffer(2048);
		const confined = isConfined(request.sandbox);
		// A command runs what the user wrote: it keeps the network, unless the level is strict, where
		// it reaches only the hosts the user allows (their registries among them), through crew's gate.
		const offline = request.sandbox?.level === "strict";
		const allowed = offline ? reachable([], request.sandbox?.hosts ?? []) : [];
		const watch = new DenialWatch(onEvent, { reach: offline ? allowed : "all", cwd: request.cwd });
		const events = confined ? watch.pass : onEvent;
		const output = new OutputEvents(events);
		const variables = crewVariables(request, this.#env);
		const env = { ...this.#env, ...variables, ...delegation?.env };
		let launch: Launch;
		try {
			const network = !offline ? "host" : allowed.length > 0 ? watch.gate(allowed) : "none";
			const writable = delegation ? [delegation.folder] : [];
			launch = await this.#sandbox.wrap(
				request,
				{ file: "/bin/sh", args: ["-c", command] },
				{ network, env, writable },
			);
		} catch (error) {
			return failed(errorMessage(error), false, null, []);
		}
		if (launch.caches)
			onEvent({ type: "confined", caches: launch.caches, ...(offline ? { network: allowed.map(hostPortText) } : {}) });
		let closed: Closed = NOTHING_LEFT;
		// Closed however the process ends, a cancel's rejection too: what it left is undone all the same.
		const end = await runWorkerProcess({
			file: launch.file,
			args: launch.args,
			cwd: request.cwd,
			env: { ...env, ...launch.env },
			token: this.#seal.token(variables),
			stdin: request.prompt,
			logFile: join(request.artifactDir, logFile),
			maxLogBytes: this.#maxLog,
			graceMs: this.#graceMs,
			live: this.#live,
			signal,
			onEvent: events,
			onStdout: (chunk) => {
				stdout.push(chunk);
				stdoutTail.push(chunk);
				output.push(chunk);
			},
		}).finally(async () => {
			output.end();
			closed = await launch.close();
			tellSetAside(closed, events);
		});
		if (confined) watch.scanEnds(end.stderrHead, end.stderrTail);
		if (end.spawnError) {
			const message = `cannot start command of agent '${request.agent.name}': ${end.spawnError.message}`;
			return failed(message, false, null, artifacts);
		}
		if (end.logError)
			return failed(`cannot write the attempt's log: ${end.logError.message}`, false, end.code, artifacts);
		const refused = leftFailure(closed);
		if (refused) return failed(refused.message, false, end.code, artifacts);
		let text = stdout.text();
		if (stdout.truncated) text += `\n[crew: output truncated after ${this.#maxResult} of ${stdout.total} bytes]\n`;
		if (end.code === 0) return { ok: true, text, exitCode: 0, usage: ZERO_USAGE, artifacts };
		// The hosts the sandbox refused, the likely cause, first; then what the command said last: on
		// stderr, else on stdout.
		const said = tailLines(end.stderrTail) ?? tailLines(stdoutTail.text());
		const causes = [...watch.networkCauses(), ...(said ? [said] : [])].join("; ");
		const detail = causes ? `: ${causes}` : "";
		if (end.signal) return failed(`killed by ${end.signal}${detail}`, true, null, artifacts, text);
		return failed(`exit code ${end.code}${detail}`, end.code === RETRYABLE_EXIT_CODE, end.code, artifacts, text);
	}
}

/**
 * What every worker learns about its task from its environment; `env` is the runner's, whose
 * nesting depth the worker's is one more than, unless its run was delegated and says its own.
 */
export function crewVariables(request: TaskRequest, env: NodeJS.ProcessEnv): Record<string, string> {
	return {
		CREW_DEPTH: String(request.depth ?? nestingDepth(env) + 1),
		CREW_RUN_ID: request.runId,
		CREW_TASK_ID: request.taskId,
		CREW_STEP_ID: request.stepId,
		CREW_ROLE: request.role,
		CREW_ATTEMPT: String(request.attempt),
		CREW_PROMPT_FILE: request.promptFile,
		CREW_WORKSPACE: request.cwd,
		...(request.traceparent ? { TRACEPARENT: request.traceparent } : {}),
	};
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
