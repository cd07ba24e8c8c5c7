// Running one run under a lease: a dead runner's leftovers ended, tasks queued again, then the run loop.

import type { Project } from "../config/project.js";
import { errorMessage } from "../core/errors.js";
import type { AttemptRecord, RunRecord, TaskRecord } from "../core/records.js";
import { type Cause, type RunStatus, TaskStatus } from "../core/status.js";
import type { WorkflowResource } from "../resources/workflow-file.js";
import { redactLeftSessions } from "../runtimes/agent/attempt-session.js";
import type { RuntimeRegistry } from "../runtimes/runtime-registry.js";
import type { ArtifactFiles } from "../store/artifact-files.js";
import { currentProcess } from "../store/process-identity.js";
import type { TaskChange } from "../store/run-changes.js";
import type { RunStore } from "../store/run-store.js";
import { workspaceFingerprint } from "../workspace/fingerprint.js";
import type { IntegrationBranch } from "../workspace/integration-branch.js";
import type { Worktrees } from "../workspace/worktrees.js";
import type { RunDelegation } from "./delegation/delegate-run.js";
import type { EngineOptions, ExecuteOptions } from "./options.js";
import type { RunCredentials } from "./run/credentials.js";
import { RunLoop } from "./run/loop.js";
import { type RemoteRuntimes, remoteRuntimes } from "./run/remote-runtimes.js";

/** What a runner of one run works with: the store, files, runtimes, git, and the project's trust as it stands. */
export interface RunnerDeps {
	readonly store: RunStore;
	readonly files: ArtifactFiles;
	readonly project: Project;
	readonly runtimes: RuntimeRegistry;
	readonly options: EngineOptions;
	readonly credentials: RunCredentials;
	readonly worktrees: Worktrees;
	readonly integration: IntegrationBranch;
	/** Whether the user trusts the project's own files to run, as decided when this runner started. */
	readonly trusted: boolean;
	/** A workflow script's `workflow()` reads a workflow file by its name. */
	readonly workflow: (name: string) => WorkflowResource;
	/** How the run's agents delegate runs of their own; absent, they may not. */
	readonly delegation?: RunDelegation;
}

/**
 * The driver of workflow scripts, loaded by the runs that have one: it brings the script loader
 * (jiti) and zod, which a markdown workflow's run never needs.
 */
export function scriptDriver() {
	return import("./script/driver.js");
}

/**
 * Takes run `run` under a lease and runs it to its end here: a dead runner's leftover workers are
 * ended (its attempts still in a queue followed again), the tasks `requeue` names queued, then the
 * run loop runs.
 */
export async function runUnderLease(
	deps: RunnerDeps,
	run: RunRecord,
	cause: Cause,
	options: ExecuteOptions,
	requeue: (tasks: readonly TaskRecord[]) => TaskChange[],
): Promise<RunStatus> {
	const lease = deps.store.acquireLease(run.id, {
		holder: currentProcess(),
		cause,
		staleAfterMs: deps.options.staleAfterMs,
	});
	let remote: RemoteRuntimes | undefined;
	const adopted: AttemptRecord[] = [];
	try {
		remote = run.options.queue
			? await remoteRuntimes(deps.credentials.restore(run), deps.project.root, deps.runtimes)
			: undefined;
		const leftovers = deps.store.queries.liveAttempts(run.id);
		for (const attempt of leftovers) if (attempt.process) await deps.runtimes.reap(attempt.process);
		// A dead runner's remote attempts still in the queue are followed again, not run again.
		for (const attempt of leftovers) {
			if (await remote?.inFlight(run.id, attempt.taskId, attempt.number)) adopted.push(attempt);
		}
		const lost = leftovers.filter((a) => !adopted.includes(a));
		for (const attempt of lost) await remote?.cancel(run.id, attempt.taskId, attempt.number, "its runner was lost");
		// A queue's workers may run on this host too: their agents are theirs to end, not this runner's.
		if (!remote) await deps.runtimes.reapRun(run.id, deps.files.runDir(run.id));
		deps.store.attempts.lose(
			lease,
			lost.map((a) => ({ id: a.id, taskId: a.taskId })),
			"its runner was lost",
		);
		// Their agents are ended: what their CLIs wrote of their sessions is kept redacted, as an
		// attempt that ends keeps it, and the shared workspace is as they left it, for an attempt that continues one.
		const kept = lost.filter((a) => a.session !== null);
		for (const attempt of kept) redactLeftSessions(deps.files.path(run.id, `tasks/${attempt.taskId}`), attempt.number);
		if (kept.length > 0 && run.options.workspace !== "worktree") {
			const left = await workspaceFingerprint(run.options.cwd);
			if (left) for (const attempt of kept) deps.store.attempts.left(lease, attempt.id, left);
		}
		const following = new Set(adopted.map((a) => a.taskId));
		const changes = requeue(deps.store.queries.listTasks(run.id)).filter((c) => !following.has(c.taskId));
		deps.store.transitionTasks(lease, changes);
	} catch (error) {
		// Nothing ran yet: give the run back as failed with the reason, so it can be resumed.
		await remote?.close();
		deps.store.abandonRun(lease, `cannot start: ${errorMessage(error)}`);
		throw error;
	}
	const script = run.options.script;
	const driver = script
		? new (await scriptDriver()).ScriptDriver({
				store: deps.store,
				files: deps.files,
				lease,
				run: deps.store.queries.getRun(run.id),
				script,
				runtimes: deps.runtimes,
				now: deps.options.now,
				random: deps.options.random,
				workflow: deps.workflow,
			})
		: undefined;
	const loop = new RunLoop(
		{
			store: deps.store,
			files: deps.files,
			crewDir: deps.project.crewDir,
			runtimes: remote?.runtimes ?? deps.runtimes,
			localRuntimes: deps.runtimes,
			options: deps.options,
			worktrees: deps.worktrees,
			integration: deps.integration,
			trusted: deps.trusted,
			...(deps.delegation ? { delegation: deps.delegation } : {}),
			...(options.onSpend ? { onSpend: options.onSpend } : {}),
		},
		lease,
		options.signal,
		driver,
		adopted,
		options.releaseWhenWaiting === true,
	);
	try {
		return await loop.execute();
	} finally {
		await remote?.close();
	}
}

/**
 * Tasks a resume leaves as they are: done, already waiting to run, answered by a later pass, or
 * left for a person (`crew retry` runs one again).
 */
const FINAL_ON_RESUME: readonly TaskStatus[] = [
	TaskStatus.Completed,
	TaskStatus.Queued,
	TaskStatus.Superseded,
	TaskStatus.NeedsAttention,
];

/**
 * What a resume of `run` queues again: every task but those it leaves as they are. A script's
 * tasks queue again when its replay asks for them; its failed calls stay failed, since the script
 * saw them fail.
 */
export function resumedTasks(run: RunRecord, tasks: readonly TaskRecord[]): TaskChange[] {
	if (run.options.script) return [];
	return tasks
		.filter((t) => !FINAL_ON_RESUME.includes(t.status))
		.map((t) => ({ taskId: t.id, to: TaskStatus.Queued, cause: "resume" }));
}
