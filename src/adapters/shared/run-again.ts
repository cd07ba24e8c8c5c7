// A past run run again as a new run, a fork or a replay, handed to a background runner: for every surface.

import type { Settings } from "../../config/settings.js";
import { checkId } from "../../core/ids.js";
import type { Crew } from "../../engine/crew.js";
import type { RunAgain } from "../../engine/history/fork.js";
import { startBackgroundRunner } from "./background-runner.js";
import { originOf, type RunAsker, withOrigin } from "./run-asker.js";
import { executionInput } from "./run-input.js";

export interface Forked {
	readonly runId: string;
	/** The run it forks. */
	readonly of: string;
	/** The tasks whose outcomes it takes as they were. */
	readonly reused: readonly string[];
	readonly rerun: readonly RunAgain[];
	readonly status: string;
}

/** A replay as it was made: its id, the run it replays, and its runner's status. */
export type Replayed = Pick<Forked, "runId" | "of" | "status">;

/**
 * `crew fork <runId> --from … --detach`: a new run of the run's goal that takes the outcomes of
 * its tasks before `from` (absent: of every task whose step has not changed), executing under
 * the user's settings now, never the record's; it records who asked, as a new run does.
 */
export async function forkRun(
	crew: Crew,
	settings: Settings,
	runId: string,
	asker: RunAsker,
	from?: readonly string[],
): Promise<Forked> {
	checkId("run", runId);
	const fork = await crew.planFork({
		runId,
		now: executionInput({}, settings),
		...(from && from.length > 0 ? { from } : {}),
	});
	const id = await crew.createFork({ ...fork, plan: withOrigin(fork.plan, originOf(asker)) });
	const runner = await startBackgroundRunner(crew, id, ["--if-queued"]);
	const { reused, rerun } = fork.decision;
	return { runId: id, of: runId, reused: reused.map((t) => t.id), rerun, status: runner.status };
}

/** `crew replay <runId> --detach`: the run's workflow again, each task answered from its record. */
export async function replayRun(
	crew: Crew,
	settings: Settings,
	runId: string,
	asker: RunAsker,
	liveOnDivergence = false,
): Promise<Replayed> {
	checkId("run", runId);
	const id = await crew.replay(runId, liveOnDivergence, executionInput({}, settings), originOf(asker));
	const runner = await startBackgroundRunner(crew, id, ["--if-queued"]);
	return { runId: id, of: runId, status: runner.status };
}
