import { CrewError, ErrorCode } from "../core/errors.js";
import type { ProcessHandle } from "../core/types.js";
import { CommandRuntime, type CommandRuntimeOptions } from "./command-runtime.js";
import { DryRunRuntime } from "./dry-run-runtime.js";
import { PiRuntime, type PiRuntimeOptions } from "./pi-runtime.js";
import { groupsOfRun, reapOrphan, terminateGroup } from "./process-group.js";
import { LiveGroups } from "./worker-process.js";
import type { WorkerRuntime } from "./worker-runtime.js";

/** The runtimes a runner may use, by name, and how to end a worker a dead runner left behind. */
export class RuntimeRegistry {
	readonly #runtimes = new Map<string, WorkerRuntime>();
	readonly #graceMs: number;

	constructor(runtimes: readonly WorkerRuntime[], options: { graceMs?: number } = {}) {
		for (const runtime of runtimes) this.#runtimes.set(runtime.name, runtime);
		this.#graceMs = options.graceMs ?? 3000;
	}

	/** The command, dry-run and pi runtimes, sharing one set of live worker groups. */
	static standard(options: CommandRuntimeOptions & { pi?: PiRuntimeOptions } = {}): RuntimeRegistry {
		const live = options.live ?? new LiveGroups();
		const { graceMs } = options;
		return new RuntimeRegistry(
			[
				new CommandRuntime({ ...options, live }),
				new DryRunRuntime(),
				new PiRuntime({ ...(graceMs !== undefined ? { graceMs } : {}), ...options.pi, live }),
			],
			options,
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

	/** Ends the process group of a worker whose runner died; false when it was already gone. */
	reap(handle: ProcessHandle): Promise<boolean> {
		return reapOrphan(handle, this.#graceMs);
	}

	/**
	 * Ends every process group on this host still working for `runId`, found by the run id each
	 * worker carries in its environment; returns how many groups it ended. Call it only when no
	 * runner of the run is alive.
	 */
	async reapRun(runId: string): Promise<number> {
		const groups = groupsOfRun(runId);
		await Promise.all(groups.map((pgid) => terminateGroup(pgid, this.#graceMs)));
		return groups.length;
	}
}
