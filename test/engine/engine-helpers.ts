import { projectAt } from "../../src/config/project.js";
import type { EventRecord, TaskRecord } from "../../src/core/records.js";
import type { RunStatus } from "../../src/core/status.js";
import { Crew } from "../../src/engine/crew.js";
import type { EngineOptions } from "../../src/engine/options.js";
import type { PlanInput } from "../../src/engine/planning/plan-input.js";
import { RuntimeRegistry } from "../../src/runtimes/runtime-registry.js";
import type { TestRepo } from "../helpers.js";

export interface Outcome {
	readonly runId: string;
	readonly status: RunStatus;
	readonly runError: string | null;
	readonly tasks: ReadonlyMap<string, TaskRecord>;
	readonly events: readonly EventRecord[];
}

/** Options that keep engine tests quick: fast polling, short backoff without jitter, short grace. */
export function testCrew(repo: TestRepo, engine: Partial<EngineOptions> & { runtimes?: RuntimeRegistry } = {}): Crew {
	return new Crew({
		project: projectAt(repo.dir),
		runtimes: RuntimeRegistry.standard({ graceMs: 500 }),
		pollMs: 20,
		retryPolicy: { baseMs: 50, factor: 2, maxMs: 1000, jitter: 0 },
		...engine,
	});
}

export async function runWorkflow(
	repo: TestRepo,
	input: Omit<PlanInput, "goal"> & { goal?: string },
	options: {
		engine?: Partial<EngineOptions> & { runtimes?: RuntimeRegistry };
		signal?: AbortSignal;
		onRunId?: (id: string) => void;
	} = {},
): Promise<Outcome> {
	const crew = testCrew(repo, options.engine);
	try {
		const runId = crew.create(await crew.plan({ goal: "test goal", ...input }));
		options.onRunId?.(runId);
		const status = await crew.execute(runId, options.signal ? { signal: options.signal } : {});
		const snapshot = crew.snapshot(runId);
		return {
			runId,
			status,
			runError: snapshot.run.error,
			tasks: new Map(snapshot.tasks.map((t) => [t.id, t])),
			events: crew.events(runId),
		};
	} finally {
		crew.close();
	}
}

export function statuses(outcome: Outcome): Record<string, string> {
	return Object.fromEntries([...outcome.tasks].map(([id, t]) => [id, t.status]));
}
