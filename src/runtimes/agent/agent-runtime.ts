// The agent runtime: runs an attempt through an agent CLI, in its sandbox, and reads its JSON-lines output.

import { execFile } from "node:child_process";
import { mkdirSync } from "node:fs";
import { dirname, isAbsolute, join } from "node:path";
import type { Writable } from "node:stream";
import { finished } from "node:stream/promises";
import { crewPackagePath } from "../../config/crew-package.js";
import type { AgentSetup, SetupKey } from "../../core/agent-setup.js";
import { ASK_WAIT_MS } from "../../core/asked.js";
import { errorMessage } from "../../core/errors.js";
import { redact, redactDeep } from "../../core/redact.js";
import { type HostPort, hostPortText, isConfined, reachable } from "../../core/sandbox-level.js";
import type { ThinkingLevel } from "../../core/thinking.js";
import { phaseSince, timed } from "../../core/timings.js";
import { ZERO_USAGE } from "../../core/usage.js";
import { attemptFileStream, writeAttemptFile } from "../attempt-files.js";
import { crewVariables } from "../command-runtime.js";
import { delegationSocket } from "../delegation/delegation-socket.js";
import { AttemptSeal } from "../process/attempt-seal.js";
import { JsonLines } from "../process/json-lines.js";
import { onPath } from "../process/program-path.js";
import { LiveGroups, runWorkerProcess, type WorkerExit } from "../process/worker-process.js";
import { type Command, findSocat } from "../sandbox/confine.js";
import { DenialWatch } from "../sandbox/denials.js";
import type { GateWatch } from "../sandbox/network-gate.js";
import { type Closed, type Launch, leftFailure, Sandbox, tellSetAside } from "../sandbox/sandbox.js";
import type { RunControl, TaskRequest, WorkerFailure, WorkerResult, WorkerRuntime } from "../worker-runtime.js";
import type { AgentCli, AgentStream } from "./agent-cli.js";
import { AskSocket } from "./ask-socket.js";
import { openSession } from "./attempt-session.js";
import { attemptHome } from "./cli-home.js";
import { AgentConversation } from "./conversation.js";
import { agentEnvironment } from "./environment.js";
import { failureLine } from "./failure-lines.js";
import { projectSkills } from "./skills.js";
import { TurnLimit } from "./turn-limit.js";

export interface AgentRuntimeOptions {
	/** How to start the CLI: a program and its first arguments. Default: the CLI's own. */
	readonly command?: readonly string[];
	/** The environment the CLI's variables are taken from. Default: this process's. */
	readonly env?: NodeJS.ProcessEnv;
	/** Time between SIGTERM and SIGKILL, in ms. Default 3000. */
	readonly graceMs?: number;
	/** Bytes of stderr kept per attempt. Default 8 MiB. */
	readonly maxLogBytes?: number;
	/** Bytes of transcript kept per attempt. Default 16 MiB. */
	readonly maxTranscriptBytes?: number;
	/** Longest stdout line read, in bytes. Default 8 MiB. */
	readonly maxLineBytes?: number;
	readonly live?: LiveGroups;
	/** Makes each attempt's token. Default: one with the user's key. */
	readonly seal?: AttemptSeal;
	/** Confines each attempt as its request asks. Default: this machine's. */
	readonly sandbox?: Sandbox;
}

/** The socket serving an attempt's agent crew's `ask` tool, and the program its CLI starts to reach it. */
interface AskServed {
	readonly socket: AskSocket;
	readonly bridge: string;
}

/**
 * Runs a task with an agent CLI in its JSON-lines mode. A CLI that converses gets its prompt and
 * any messages on its stdin, which is closed once it says its work is over; another gets none.
 * The exit code is not trusted alone: a failure the CLI reports in its output fails the attempt
 * even when it exits 0. The transcript keeps what the stream says belongs in it,
 * bounded, with lines that are not JSON kept as `crew.unparsed`.
 */
export class AgentRuntime implements WorkerRuntime {
	readonly name: string;
	readonly steerable: boolean;
	readonly keepsSessions: boolean;
	readonly #cli: AgentCli;
	readonly #options: AgentRuntimeOptions;
	readonly #live: LiveGroups;
	readonly #seal: AttemptSeal;
	readonly #sandbox: Sandbox;
	#version: Promise<string> | undefined;

	constructor(cli: AgentCli, options: AgentRuntimeOptions = {}) {
		this.name = cli.name;
		this.steerable = cli.conversation !== undefined;
		this.keepsSessions = cli.sessions !== undefined;
		this.#cli = cli;
		this.#options = options;
		this.#live = options.live ?? new LiveGroups();
		this.#seal = options.seal ?? new AttemptSeal();
		this.#sandbox = options.sandbox ?? new Sandbox(options.env);
	}

	async run(request: TaskRequest, control: RunControl): Promise<WorkerResult> {
		const { signal } = control;
		signal.throwIfAborted();
		const preparing = performance.now();
		const source = this.#options.env ?? process.env;
		const confined = isConfined(request.sandbox);
		// What a confined agent may reach, and what its tools were refused, read from their output.
		const allowed = confined ? reachable(this.#cli.hosts(request, source), request.sandbox?.hosts ?? []) : [];
		const watch = new DenialWatch(control.onEvent, { reach: allowed, cwd: request.cwd });
		const onEvent = confined ? watch.pass : control.onEvent;
		const [file, ...lead] = this.#options.command ?? this.#cli.defaultCommand(source);
		mkdirSync(request.artifactDir, { recursive: true });
		const base = `attempt-${request.attempt}`;
		const names = { log: `${base}.stderr.log`, transcript: `${base}.transcript.jsonl`, system: `${base}.system.md` };
		const artifacts = [
			{ name: `${request.artifactPrefix}/${names.log}`, kind: "log" },
			{ name: `${request.artifactPrefix}/${names.transcript}`, kind: "transcript" },
		];
		const logFile = join(request.artifactDir, names.log);
		let systemFile: string | undefined;
		if (request.agent.systemPrompt.trim() !== "") {
			systemFile = join(request.artifactDir, names.system);
			writeAttemptFile(systemFile, redact(request.agent.systemPrompt));
			artifacts.push({ name: `${request.artifactPrefix}/${names.system}`, kind: "prompt" });
		}
		const variables = crewVariables(request, source);
		const level = request.agent.thinking;
		const thinking = level === undefined ? undefined : this.#cli.thinking(level);
		const tool = this.#cli.askTool;
		const askEnv = control.asking && tool?.via === "mcp" ? tool.env?.(ASK_WAIT_MS) : undefined;
		const delegation = await delegationSocket(control);
		const env = agentEnvironment(
			source,
			{ ...variables, ...thinking?.env, ...askEnv, ...delegation?.env },
			this.#cli.credentials(request, source),
		);
		const version = () => this.#programVersion(file as string, lead, env);
		const admission = (await this.#cli.admit?.(request, version)) ?? { args: [] };
		if ("refused" in admission) {
			await delegation?.close();
			const error = { message: admission.refused, retryable: false };
			return { ok: false, text: "", exitCode: null, usage: ZERO_USAGE, artifacts: [], error };
		}
		// Questions come once the CLI runs, by when its transcript is open.
		let note: (line: Record<string, unknown>) => void = () => {};
		const ask = await this.#askTool(request, control, base, (line) => note(line), source.PATH);
		const own = this.#cli.args(request, {
			systemFile,
			asks: ask !== undefined,
			delegates: delegation !== undefined,
			env: source,
		});
		const kept = timed("agent: open its session", () => openSession(this.#cli, request, base, source));
		const args = [...lead, ...admission.args, ...(thinking?.args ?? []), ...(ask?.args ?? []), ...own, ...kept.args];
		phaseSince("agent: prepare the attempt", preparing);
		let launch: Launch;
		try {
			launch = await this.#launch(
				request,
				base,
				{ file: file as string, args },
				source,
				env,
				[...(ask?.served ? [ask.served.socket.folder] : []), ...(delegation ? [delegation.folder] : [])],
				ask?.served?.bridge,
				kept.folder,
				watch.gate(allowed),
			);
		} catch (error) {
			await ask?.served?.socket.close();
			await delegation?.close();
			const failure = { message: errorMessage(error), retryable: false };
			return { ok: false, text: "", exitCode: null, usage: ZERO_USAGE, artifacts: [], error: failure };
		}
		if (confined)
			onEvent({
				type: "confined",
				network: allowed.map(hostPortText),
				...(launch.caches ? { caches: launch.caches } : {}),
			});
		// On record before the CLI runs: a runner killed next leaves it for the attempt after.
		if (kept.session)
			onEvent({ type: "session", session: kept.session, ...(kept.origin ? { origin: kept.origin } : {}) });

		const stream = this.#cli.stream();
		const transcript = attemptFileStream(join(request.artifactDir, names.transcript));
		let transcriptError: Error | undefined;
		transcript.on("error", (error) => {
			transcriptError ??= error;
		});
		const maxTranscript = this.#options.maxTranscriptBytes ?? 16 * 1024 * 1024;
		let written = 0;
		const keep = (line: string) => {
			if (written >= maxTranscript) return;
			written += line.length + 1;
			transcript.write(written > maxTranscript ? '{"type":"crew.truncated"}\n' : `${line}\n`);
		};
		note = (line) => keep(JSON.stringify(line));
		const talk = this.#cli.conversation?.(request, kept.resume);
		const conversation = talk ? new AgentConversation(talk, control, (line) => keep(JSON.stringify(line))) : undefined;
		const max = request.agent.setup?.maxTurns;
		const limit =
			max !== undefined && stream.turns !== undefined && conversation
				? new TurnLimit(max, (text) => void conversation.tell(text))
				: undefined;
		// A session the CLI names itself is on record once it says the name.
		let session = kept.session;
		const named = (id: string | undefined) => {
			if (id === undefined || session === undefined || session.id === id) return;
			session = { ...session, id };
			onEvent({ type: "session", session });
		};
		const lines = new JsonLines(this.#options.maxLineBytes ?? 8 * 1024 * 1024, (line) => {
			if (line.kind === "json") {
				conversation?.read(line.value);
				const { events, keep: kept } = stream.accept(line.value);
				// Stored as its own JSON again, with every string in it redacted.
				if (kept) keep(JSON.stringify(redactDeep(line.value)));
				for (const event of events) onEvent(event);
				named(stream.session);
				limit?.seen(
					stream.turns ?? 0,
					events.some((e) => e.type === "tool-start"),
				);
			} else if (line.kind === "text")
				keep(JSON.stringify({ type: "crew.unparsed", text: redact(line.text.slice(0, 4096)) }));
			else keep(JSON.stringify({ type: "crew.oversize", bytes: line.bytes }));
		});
		let end: WorkerExit | undefined;
		let closed: Closed | undefined;
		try {
			end = await runWorkerProcess({
				file: launch.file,
				args: launch.args,
				cwd: request.cwd,
				env: { ...env, ...launch.env },
				token: this.#seal.token(variables),
				stdin: talk ? talk.prompt(kept.prompt) : null,
				...(conversation ? { converse: (stdin: Writable) => conversation.attach(stdin) } : {}),
				logFile,
				maxLogBytes: this.#options.maxLogBytes ?? 8 * 1024 * 1024,
				graceMs: this.#options.graceMs ?? 3000,
				live: this.#live,
				signal: limit ? AbortSignal.any([signal, limit.signal]) : signal,
				onEvent,
				onStdout: (chunk) => lines.push(chunk),
			});
		} catch (error) {
			// Stopped for its turns, not by the attempt: its own failure, with what it did.
			if (!limit?.overrun || signal.aborted) throw error;
		} finally {
			conversation?.end("its agent has ended");
			await ask?.served?.socket.close();
			await delegation?.close();
			closed = await launch.close();
			tellSetAside(closed, onEvent);
			kept.close(session);
			lines.end();
			transcript.end();
			await finished(transcript).catch((error: Error) => {
				transcriptError ??= error;
			});
		}
		const result = { text: stream.text, usage: stream.usage, artifacts };
		const refused = closed && leftFailure(closed);
		if (refused) return { ...result, ok: false, exitCode: end?.code ?? null, error: refused };
		if (end === undefined) {
			const error = { message: limit?.overrun ?? "its agent was stopped", retryable: false };
			return { ...result, ok: false, exitCode: null, error };
		}
		if (confined) watch.scanEnds(end.stderrHead, end.stderrTail);
		const failure = this.#failure(file as string, end, stream, transcriptError);
		if (!failure) return { ...result, ok: true, exitCode: 0 };
		// Where the CLI's own account is: its stderr, redacted, whatever the failure says.
		const { logged, ...reported } = failure;
		const network = watch.networkCauses().map((cause) => `; ${cause}`);
		const message = `${reported.message}${logged ? ` (log: ${logFile})` : ""}${network.join("")}`;
		const error = { ...reported, message };
		return { ...result, ok: false, exitCode: end.code, error };
	}

	/**
	 * The arguments that give the attempt's agent crew's `ask` tool, with what they need made: the
	 * extension's file, or the socket that serves the tool over MCP and the bridge its CLI starts to
	 * reach it. Undefined when the agent may not ask, or its CLI cannot be given the tool.
	 */
	async #askTool(
		request: TaskRequest,
		control: RunControl,
		base: string,
		note: (line: Record<string, unknown>) => void,
		path: string | undefined,
	): Promise<{ args: string[]; served?: AskServed } | undefined> {
		const tool = this.#cli.askTool;
		const { asking } = control;
		if (!asking || !tool) return undefined;
		if (tool.via === "extension") {
			if (!this.#cli.conversation) return undefined;
			const file = join(request.artifactDir, `${base}.${tool.suffix}`);
			writeAttemptFile(file, tool.text);
			return { args: tool.args(file) };
		}
		let asked = 0;
		const socket = await AskSocket.open(async (question) => {
			const id = `crew-question-${++asked}`;
			note({ type: "crew.ask", id, question: redact(question) });
			const answer = await asking(question);
			note({ type: "crew.answer", id, text: redact(answer) });
			return answer;
		});
		// A bridge to the socket, which serves the tool: socat starts in a few ms, Node in a tenth of a second.
		const socat = findSocat(path);
		const server = socat
			? [socat, "STDIO", `UNIX-CONNECT:${socket.path}`]
			: [process.execPath, crewPackagePath("bin", "crew.js"), "ask-server", socket.path];
		return { args: tool.args(server, ASK_WAIT_MS), served: { socket, bridge: server[0] as string } };
	}

	/**
	 * The CLI as started for `request`: confined as it asks, with the CLI's own state writable and
	 * a network of the hosts it reaches its model at and those the user allows, nothing else. An
	 * attempt reaches the folders of its `sockets` (asking, delegating) and runs the `bridge` to ask; its session
	 * folder it may write; the project's skills its agent names it can read.
	 */
	async #launch(
		request: TaskRequest,
		base: string,
		command: Command,
		source: NodeJS.ProcessEnv,
		env: NodeJS.ProcessEnv,
		sockets: readonly string[],
		bridge: string | undefined,
		sessionFolder: string | undefined,
		gate: GateWatch & { readonly allow: readonly HostPort[] },
	): Promise<Launch> {
		if (!isConfined(request.sandbox)) return this.#sandbox.wrap(request, command, { network: "host", env });
		const found = isAbsolute(command.file) ? command.file : onPath(command.file, env.PATH ?? "");
		const program = found ? [dirname(found)] : [];
		const asker = bridge ? [dirname(bridge)] : [];
		const skills = projectSkills(request.agent.setup ?? {}, request.cwd, source);
		const folder = join(request.artifactDir, `${base}.home`);
		const home = timed("agent: make the CLI's home", () => attemptHome(this.#cli.home(source), folder, source));
		const launch = await this.#sandbox.wrap(request, command, {
			writable: [folder, ...sockets, ...(sessionFolder ? [sessionFolder] : [])],
			readable: [...program, ...asker, ...skills, ...home.shows],
			network: gate,
			env,
		});
		const close = async () => {
			const closed = await launch.close();
			timed("agent: settle the CLI's home", () => home.settle());
			return closed;
		};
		return { ...launch, env: { ...launch.env, ...home.env }, close };
	}

	ignores(setup: AgentSetup): SetupKey[] {
		return this.#cli.ignores(setup);
	}

	takesThinking(level: ThinkingLevel): boolean {
		return this.#cli.thinking(level) !== undefined;
	}

	/** What `<program> --version` prints, or why nothing could be asked. */
	#programVersion(file: string, lead: readonly string[], env: NodeJS.ProcessEnv): Promise<string> {
		this.#version ??= new Promise((resolve) => {
			execFile(file, [...lead, "--version"], { env, timeout: 15_000 }, (error, stdout, stderr) => {
				resolve(error ? `unknown: ${error.message}` : `${stdout}${stderr}`.trim());
			});
		});
		return this.#version;
	}

	/**
	 * Why the attempt failed, if it did: what the CLI reported in its output, else the line of its
	 * stderr that says why (`FAILURE_LINES`). `logged` when the CLI ran and its log may say more.
	 */
	#failure(
		file: string,
		end: WorkerExit,
		stream: AgentStream,
		transcriptError: Error | undefined,
	): (WorkerFailure & { logged: boolean }) | undefined {
		const name = this.#cli.name;
		if (end.spawnError)
			return { message: `cannot start ${name} (${file}): ${end.spawnError.message}`, retryable: false, logged: false };
		const writeError = end.logError ?? transcriptError;
		if (writeError)
			return { message: `cannot write the attempt's files: ${writeError.message}`, retryable: false, logged: false };
		if (stream.error) return { ...stream.error, logged: true };
		const line = failureLine(name, { head: end.stderrHead, tail: end.stderrTail });
		const said = line ? `: ${line}` : "";
		if (end.signal) return { message: `${name} was killed by ${end.signal}${said}`, retryable: true, logged: true };
		if (end.code !== 0)
			return { message: `${name} exited with code ${end.code}${said}`, retryable: false, logged: true };
		if (!stream.answered)
			return { message: `${name} ended without an answer${said}`, retryable: false, missing: true, logged: true };
		return undefined;
	}
}
