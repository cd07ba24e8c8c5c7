// The plan of a replay: a recorded run's workflow, each task answered from the attempts that run recorded.

import { CrewError, ErrorCode } from "../../core/errors.js";
import type { AttemptRecord, RunRecord, TaskRecord } from "../../core/records.js";
import { RunStatus, TaskStatus } from "../../core/status.js";
import type { ReplayedAttempt, TaskSpec } from "../../core/types.js";
import { isLeaseHolderAlive } from "../../store/lease.js";
import type { RunQueries } from "../../store/run-queries.js";
import type { Plan, PlanInput } from "../planning/plan-input.js";
import { type ExecutionSettings, forkPlanInput, modelOf } from "./fork.js";

/** A recorded run as a replay reads it. */
export interface ReplayedRun {
	readonly record: RunRecord;
	readonly specs: readonly TaskSpec[];
	readonly tasks: readonly TaskRecord[];
	readonly attempts: readonly AttemptRecord[];
}

/**
 * Run `runId` as a replay reads it, as of one committed state; refused while a live runner works
 * on it, whose record is not whole yet (a replay answers from the record alone). `clock` tells a
 * live runner's lease from a stale one.
 */
export function replayedRun(
	queries: RunQueries,
	runId: string,
	clock: { now(): number; readonly staleAfterMs: number },
): ReplayedRun {
	const run = queries.consistent(() => ({
		record: queries.getRun(runId),
		specs: queries.taskSpecs(runId),
		tasks: queries.listTasks(runId),
		attempts: queries.attempts(runId),
	}));
	const { lease, status } = run.record;
	if (lease !== null && isLeaseHolderAlive(lease, clock.now(), clock.staleAfterMs)) {
		throw new CrewError(ErrorCode.Conflict, `run ${runId} is ${status}: replay it once it has ended`);
	}
	return run;
}

/**
 * The plan of a replay of run `source`: its workflow as it is now, with its goal check (`--until`,
 * the judge, the passes it may make), each task to be answered from `source` (see `replaying`), or
 * with `live`, run for real where it diverges.
 */
export async function planReplay(
	plan: (input: PlanInput) => Promise<Plan>,
	source: ReplayedRun,
	live: boolean,
	now: ExecutionSettings,
): Promise<Plan> {
	const { record } = source;
	if (record.importedAt !== null && live) {
		throw new CrewError(
			ErrorCode.InvalidInput,
			`run ${record.id} was not made by this store here: its replay answers from its record only, and --live-on-divergence would run its tasks; crew fork ${record.id} runs them as this repository's workflow says`,
		);
	}
	// An imported run's replay runs nothing: not even the user's setup hook.
	const asked = record.importedAt === null ? now : { ...now, setup: undefined };
	const input = forkPlanInput(record, { runId: record.id, now: asked }, "crew replay");
	// A replay that answers from the record writes nothing: it shares the checkout with no one.
	const planned = await plan({ ...input, ...goalCheckOf(source.specs), ...(live ? {} : { allowShared: true }) });
	// A task run for real runs on the model it had.
	const was = new Map(source.specs.map((s) => [s.id, s]));
	const tasks = planned.tasks.map((t) => {
		const spec = was.get(t.id);
		return spec ? { ...t, agent: { ...t.agent, ...modelOf(spec) } } : t;
	});
	// A fork's copied prompt names the run that made it; a fork of a fork's, the first.
	const madeIn = Object.fromEntries(source.tasks.flatMap((t) => (t.inherited ? [[t.id, t.inherited.runId]] : [])));
	const cancelled = record.status === RunStatus.Cancelled ? { cancelled: record.error ?? "cancelled" } : {};
	const replay = {
		of: record.id,
		live,
		failures: failuresOf(source),
		madeIn,
		attempts: attemptsOf(source),
		...cancelled,
	};
	return { ...planned, tasks, options: { ...planned.options, replay } };
}

/** The run's `--until` check as the planner takes it: from its first check's task. */
function goalCheckOf(specs: readonly TaskSpec[]): Partial<PlanInput> {
	const first = specs.find((s) => s.until?.iteration === 1);
	if (!first?.until) return {};
	const { command, judge, maxIterations } = first.until;
	return {
		...(command !== undefined ? { until: command } : {}),
		...(judge ? { untilJudged: true, judge: first.agent.name } : {}),
		maxIterations,
	};
}

/**
 * The tasks a replay answers with a failure, as the run ended them, and why: every task the run did
 * not complete, but a judge's check a later pass took the place of, whose recorded verdict says so
 * itself. A command's check that a later pass took the place of fails again, and so is answered
 * by the next pass as it was.
 */
function failuresOf(source: ReplayedRun): Record<string, string> {
	const judged = new Set(source.specs.filter((s) => s.until?.judge).map((s) => s.id));
	const failed = source.tasks.filter(
		(t) => t.status !== TaskStatus.Completed && !(t.status === TaskStatus.Superseded && judged.has(t.id)),
	);
	const why = (t: TaskRecord) => `${t.status}${t.error ? `: ${t.error.split("\n")[0]}` : ""}`;
	return Object.fromEntries(failed.map((t) => [t.id, why(t)]));
}

/**
 * The attempts the run made of each task, in order; none of a task it never started; nothing of
 * one a fork took as it was, which the replay answers as it ended.
 */
function attemptsOf(source: ReplayedRun): Record<string, ReplayedAttempt[]> {
	const made: Record<string, ReplayedAttempt[]> = {};
	// A task the run stopped while it waited to retry was queued again after its last attempt.
	const waiting = new Set<string>();
	for (const t of source.tasks) {
		if (t.inherited) continue;
		made[t.id] = [];
		if (WAITED.has(t.status)) waiting.add(t.id);
	}
	const next = new Map(source.attempts.map((a) => [`${a.taskId} ${a.number - 1}`, a]));
	for (const a of [...source.attempts].sort((x, y) => x.number - y.number)) {
		const after = next.get(`${a.taskId} ${a.number}`);
		// Queued again, for the next attempt or for one that never came, by the same runner or a later one.
		const waited = waiting.has(a.taskId) && FAILED_ATTEMPT.has(a.status);
		const then = after?.epoch ?? (waited ? source.record.epoch : undefined);
		const requeued = then === undefined ? undefined : then === a.epoch ? "retry" : "resume";
		const times = {
			startedAt: Date.parse(a.startedAt),
			finishedAt: a.finishedAt === null ? null : Date.parse(a.finishedAt),
		};
		const outcome = { status: a.status, error: a.error, epoch: a.epoch, ...times };
		made[a.taskId]?.push(requeued ? { ...outcome, requeued } : outcome);
	}
	return made;
}

/** Task states a run leaves a task in that waited to be retried when the run stopped. */
const WAITED = new Set<string>([TaskStatus.Skipped, TaskStatus.Cancelled, TaskStatus.Queued]);
/** How an attempt ends that its task may be queued again after: a failure, or its runner's loss. */
const FAILED_ATTEMPT = new Set(["failed", "timed-out", "stalled", "lost"]);
