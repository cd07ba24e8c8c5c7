import { createWriteStream, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { finished } from "node:stream/promises";
import { fileURLToPath } from "node:url";
import { CrewError, ErrorCode } from "../core/errors.js";
import { agentEnvironment } from "./agent-environment.js";
import { crewVariables } from "./command-runtime.js";
import { JsonLines } from "./json-lines.js";
import { PiStream } from "./pi-stream.js";
import { LiveGroups, lastLine, runWorkerProcess } from "./worker-process.js";
import type { RunControl, TaskRequest, WorkerResult, WorkerRuntime } from "./worker-runtime.js";

/** pi's own tools; other names in an agent's `tools:` (pi-crew's `ask`, `delegate`, …) are left out. */
const PI_TOOLS: ReadonlySet<string> = new Set(["read", "bash", "edit", "write", "grep", "find", "ls"]);

export interface PiRuntimeOptions {
	/** How to start pi: a program and its first arguments. Default: the pi crew depends on. */
	readonly command?: readonly string[];
	/** The environment pi's variables are taken from. Default: this process's. */
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
}

/** The pi that crew depends on: `node <its cli.js>`. */
export function bundledPi(): readonly string[] {
	const main = fileURLToPath(import.meta.resolve("@mariozechner/pi-coding-agent"));
	const cli = join(dirname(main), "cli.js");
	if (!existsSync(cli)) {
		throw new CrewError(ErrorCode.Runtime, `crew's pi is not where expected (${cli}); reinstall crew or configure pi`);
	}
	return [process.execPath, cli];
}

/**
 * Runs a task with pi in JSON mode: `pi --mode json -p --no-session --offline`, the agent's model,
 * tools and system prompt, and the prompt from its stored file. stdin stays closed (pi waits for
 * it otherwise). The transcript keeps every event but pi's repeated partial-message updates.
 */
export class PiRuntime implements WorkerRuntime {
	readonly name = "pi";
	readonly #options: PiRuntimeOptions;
	readonly #live: LiveGroups;

	constructor(options: PiRuntimeOptions = {}) {
		this.#options = options;
		this.#live = options.live ?? new LiveGroups();
	}

	async run(request: TaskRequest, { signal, onEvent }: RunControl): Promise<WorkerResult> {
		signal.throwIfAborted();
		const [file, ...lead] = this.#options.command ?? bundledPi();
		mkdirSync(request.artifactDir, { recursive: true });
		const base = `attempt-${request.attempt}`;
		const names = { log: `${base}.stderr.log`, transcript: `${base}.transcript.jsonl`, system: `${base}.system.md` };
		const artifacts = [
			{ name: `${request.artifactPrefix}/${names.log}`, kind: "log" },
			{ name: `${request.artifactPrefix}/${names.transcript}`, kind: "transcript" },
		];
		const args = [...lead, "--mode", "json", "-p", "--no-session", "--offline"];
		const { agent } = request;
		if (agent.model) args.push("--model", agent.model);
		if (agent.tools !== undefined && !agent.tools.some((t) => t === "*" || t === "all")) {
			const tools = agent.tools.filter((t) => PI_TOOLS.has(t));
			if (tools.length > 0) args.push("--tools", tools.join(","));
			else args.push("--no-tools");
		}
		if (agent.systemPrompt.trim() !== "") {
			writeFileSync(join(request.artifactDir, names.system), agent.systemPrompt);
			args.push("--append-system-prompt", join(request.artifactDir, names.system));
			artifacts.push({ name: `${request.artifactPrefix}/${names.system}`, kind: "prompt" });
		}
		args.push(`@${request.promptFile}`);

		const stream = new PiStream();
		const transcript = createWriteStream(join(request.artifactDir, names.transcript));
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
		const lines = new JsonLines(this.#options.maxLineBytes ?? 8 * 1024 * 1024, (line) => {
			if (line.kind === "json") {
				const { events, keep: kept } = stream.accept(line.value);
				if (kept) keep(line.text);
				for (const event of events) onEvent(event);
			} else if (line.kind === "text") keep(JSON.stringify({ type: "crew.unparsed", text: line.text.slice(0, 4096) }));
			else keep(JSON.stringify({ type: "crew.oversize", bytes: line.bytes }));
		});
		let end: Awaited<ReturnType<typeof runWorkerProcess>>;
		try {
			end = await runWorkerProcess({
				file: file as string,
				args,
				cwd: request.cwd,
				env: agentEnvironment(this.#options.env ?? process.env, crewVariables(request)),
				stdin: null,
				logFile: join(request.artifactDir, names.log),
				maxLogBytes: this.#options.maxLogBytes ?? 8 * 1024 * 1024,
				graceMs: this.#options.graceMs ?? 3000,
				live: this.#live,
				signal,
				onEvent,
				onStdout: (chunk) => lines.push(chunk),
			});
		} finally {
			lines.end();
			transcript.end();
			await finished(transcript).catch((error: Error) => {
				transcriptError ??= error;
			});
		}
		const result = { text: stream.lastText, usage: stream.usage, artifacts };
		const fail = (message: string, retryable: boolean) => ({
			...result,
			ok: false,
			exitCode: end.code,
			error: { message, retryable },
		});
		if (end.spawnError) return fail(`cannot start pi (${file}): ${end.spawnError.message}`, false);
		if (end.logError || transcriptError) {
			return fail(`cannot write the attempt's files: ${(end.logError ?? transcriptError)?.message}`, false);
		}
		if (stream.error) return fail(stream.error.message, stream.error.retryable);
		if (end.signal) return fail(`pi was killed by ${end.signal}${lastLine(end.stderrTail)}`, true);
		if (end.code !== 0) return fail(`pi exited with code ${end.code}${lastLine(end.stderrTail)}`, false);
		if (!stream.answered) return fail(`pi ended without an answer${lastLine(end.stderrTail)}`, false);
		return { ...result, ok: true, exitCode: 0 };
	}
}
