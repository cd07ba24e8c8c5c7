// The registry of the runtimes a runner may use by name, and the ending of workers a dead runner left.

import { CrewError, ErrorCode } from "../core/errors.js";
import type { ProcessHandle } from "../core/records.js";
import type { AgentCli } from "./agent/agent-cli.js";
import { AgentRuntime, type AgentRuntimeOptions } from "./agent/agent-runtime.js";
import { claudeCli } from "./claude/cli.js";
import { codexCli } from "./codex/cli.js";
import { CommandRuntime, type CommandRuntimeOptions } from "./command-runtime.js";
import { DryRunRuntime } from "./dry-run-runtime.js";
import { piCli } from "./pi/cli.js";
import { AttemptSeal } from "./process/attempt-seal.js";
import { crewRunGroups, reapOrphan, terminateGroup } from "./process/process-group.js";
import { LiveGroups } from "./process/worker-process.js";
import { Sandbox } from "./sandbox/sandbox.js";
import type { WorkerRuntime } from "./worker-runtime.js";

export interface RegistryOptions {
	/** Time between SIGTERM and SIGKILL, in ms. Default 3000. */
	readonly graceMs?: number;
	/** Proves which processes crew started (see `AttemptSeal`). Default: one with the user's key. */
	readonly seal?: AttemptSeal;
	/** Confines attempts that ask for it. Default: this machine's. */
	readonly sandbox?: Sandbox;
	/** The worker groups to end if the runner exits abruptly. Default: a set of the registry's own. */
	readonly live?: LiveGroups;
	/** The environment the runtimes' processes inherit. Default: this process's. */
	readonly env?: NodeJS.ProcessEnv;
}

export interface StandardOptions extends CommandRuntimeOptions {
	readonly pi?: AgentRuntimeOptions;
	readonly claude?: AgentRuntimeOptions;
	readonly codex?: AgentRuntimeOptions;
}

/** The runtimes a runner may use, by name, and how to end a worker a dead runner left behind. */
export class RuntimeRegistry {
	readonly #runtimes = new Map<string, WorkerRuntime>();
	readonly #graceMs: number;
	readonly seal: AttemptSeal;
	/** This machine's sandbox, as the standard runtimes confine with it: what a run's default level depends on. */
	readonly sandbox: Sandbox;
	readonly #live: LiveGroups;
	readonly #env: NodeJS.ProcessEnv;

	constructor(runtimes: readonly WorkerRuntime[], options: RegistryOptions = {}) {
		for (const runtime of runtimes) this.#runtimes.set(runtime.name, runtime);
		this.#graceMs = options.graceMs ?? 3000;
		this.seal = options.seal ?? new AttemptSeal();
		this.sandbox = options.sandbox ?? new Sandbox();
		this.#live = options.live ?? new LiveGroups();
		this.#env = options.env ?? process.env;
	}

	/**
	 * A command runtime whose processes, the sandbox's own among them, inherit only the variables
	 * `kept` names of the registry's environment: for commands no credential may reach.
	 */
	commandsKeeping(kept: readonly string[]): WorkerRuntime {
		const env = Object.fromEntries(
			kept.flatMap((name) => (this.#env[name] === undefined ? [] : [[name, this.#env[name]]])),
		);
		return new CommandRuntime({
			graceMs: this.#graceMs,
			env,
			live: this.#live,
			seal: this.seal,
			sandbox: this.sandbox,
		});
	}

	/**
	 * The command, dry-run, pi, claude and codex runtimes, sharing one set of live worker groups.
	 * An agent CLI's program comes from its options, else `CREW_PI`, `CREW_CLAUDE` or `CREW_CODEX`
	 * in the environment, else the CLI's default (crew's own pi; `claude` and `codex` on PATH).
	 */
	static standard(options: StandardOptions = {}): RuntimeRegistry {
		const live = options.live ?? new LiveGroups();
		const seal = options.seal ?? new AttemptSeal();
		const env = options.env ?? process.env;
		const sandbox = options.sandbox ?? new Sandbox(env);
		const agent = (cli: AgentCli, own: AgentRuntimeOptions | undefined) => {
			const program = env[`CREW_${cli.name.toUpperCase()}`];
			return new AgentRuntime(cli, {
				...(options.graceMs !== undefined ? { graceMs: options.graceMs } : {}),
				...(options.env ? { env: options.env } : {}),
				...(program ? { command: [program] } : {}),
				...own,
				live,
				seal,
				sandbox,
			});
		};
		return new RuntimeRegistry(
			[
				new CommandRuntime({ ...options, live, seal, sandbox }),
				new DryRunRuntime(),
				agent(piCli, options.pi),
				agent(claudeCli, options.claude),
				agent(codexCli, options.codex),
			],
			{ ...options, seal, sandbox, live, env },
		);
	}

	has(name: string): boolean {
		return this.#runtimes.has(name);
	}

	get(name: string): WorkerRuntime {
		const runtime = this.#runtimes.get(name);
		if (!runtime) {
			throw new CrewError(
				ErrorCode.InvalidInput,
				`unknown runtime '${name}': available are ${[...this.#runtimes.keys()].join(", ")}`,
			);
		}
		return runtime;
	}

	names(): string[] {
		return [...this.#runtimes.keys()];
	}

	/**
	 * Ends the process group of a worker whose runner died, when it is provably the one crew
	 * started (`provenGroup`); false when it was gone or cannot be proven crew's.
	 */
	reap(handle: ProcessHandle): Promise<boolean> {
		return reapOrphan(handle, this.#graceMs);
	}

	/**
	 * Ends every process group on this host that works for run `runId` and that crew provably
	 * started: a process in it carries an attempt token `seal` proves, with a prompt file inside
	 * `runFolder` (this store's folder of the run). A process that only names the run
	 * (`CREW_RUN_ID`) is left alone. Call it only when no runner of the run is alive; returns how
	 * many groups it ended.
	 */
	async reapRun(runId: string, runFolder: string): Promise<number> {
		const groups = crewRunGroups(this.seal, () => runFolder).get(runId)?.proven ?? [];
		await Promise.all(groups.map((pgid) => terminateGroup(pgid, this.#graceMs)));
		return groups.length;
	}

	/** Ends one process group: SIGTERM, then SIGKILL after the grace period. */
	endGroup(pgid: number): Promise<void> {
		return terminateGroup(pgid, this.#graceMs);
	}
}
