// What the store records of runs, their tasks, attempts, events and artifacts, as readers get them.

import type { CachesRecord, SandboxLevel, SandboxNetwork } from "./sandbox-level.js";
import type { AgentSession, SessionOrigin } from "./session.js";
import type { RunStatus, TaskStatus } from "./status.js";
import type { IntegrationRecord, RunOptions } from "./types.js";
import type { Usage } from "./usage.js";

// What the store records of runs, their tasks, attempts, events and files, as readers get them.

export interface LeaseInfo {
	readonly epoch: number;
	readonly pid: number;
	readonly host: string;
	readonly processStart: string | null;
	readonly heartbeatAt: number;
}

export interface RunRecord {
	readonly id: string;
	readonly status: RunStatus;
	readonly goal: string;
	readonly team: string | null;
	readonly workflow: string;
	readonly options: RunOptions;
	readonly createdAt: string;
	readonly updatedAt: string;
	readonly finishedAt: string | null;
	readonly error: string | null;
	readonly cancelRequested: string | null;
	/** Raised each time a runner takes the run. */
	readonly epoch: number;
	readonly lease: LeaseInfo | null;
	/** How its worktree branches came together; null for a run without worktrees, or before its end. */
	readonly integration: IntegrationRecord | null;
	/** When `crew import` added the run: its specs are records of another store, never executed here. */
	readonly importedAt: string | null;
	/** The run this one was forked from (`crew fork`); null for any other run. */
	readonly forkedFrom: string | null;
	/** The attempt of another run's task whose agent delegated this run; null for any other run. */
	readonly parent: ParentLink | null;
	/** Collisions between its tasks' changes foreseen while they worked, oldest first (see `RunForesight`). */
	readonly foreseen: readonly ForeseenCollision[];
}

/** The attempt of a task whose agent delegated a run. */
export interface ParentLink {
	readonly runId: string;
	readonly taskId: string;
	readonly attempt: number;
}

/**
 * Two tasks whose changes, trial-merged while one of them worked, conflicted: the files, and the
 * lines of the common ancestor's files (first and last, 1-based) that both change.
 */
export interface ForeseenCollision {
	readonly tasks: readonly [string, string];
	readonly files: readonly string[];
	readonly regions: readonly { readonly file: string; readonly lines: readonly [number, number] }[];
	/** When it was foreseen, as an ISO time. */
	readonly at: string;
}

export interface TaskRecord {
	readonly id: string;
	readonly index: number;
	readonly stepId: string;
	readonly role: string;
	readonly status: TaskStatus;
	readonly attempts: number;
	readonly startedAt: string | null;
	readonly finishedAt: string | null;
	readonly error: string | null;
	/** Length of the whole result; its text is the task's `result.md` artifact. */
	readonly resultChars: number;
	readonly usage: Usage;
	/** How its latest attempt was confined; null before it ran, or when not recorded (an older crew's). */
	readonly sandbox: AttemptSandboxRecord | null;
	/** In a forked run, the task whose outcome this one took, with the usage spent there; null otherwise. */
	readonly inherited: InheritedOutcome | null;
	/** Whether its latest attempt continued the session of the one before, or started over; absent where a view does not read it. */
	readonly origin?: SessionOrigin | null;
	/** The git folders its attempts left in their workspace, which crew moved out of it; absent where a view does not read it. */
	readonly setAside?: readonly SetAsideRecord[];
}

/**
 * A git folder a task's attempt left in its workspace (a nested repository, a `.git` link, a git
 * folder under another name), which crew moved to `movedTo` (removed, when absent) since its
 * config could run programs at the user's next git command there. `shared` when other attempts
 * worked in the same workspace meanwhile, so that one of them may have left it.
 */
export interface SetAsideRecord extends SetAside {
	readonly attempt: number;
	readonly shared: boolean;
}

/** A git folder left in a workspace, relative to it, and where crew moved it (removed, when absent). */
export interface SetAside {
	readonly path: string;
	readonly kind: "folder" | "file" | "link" | "bare";
	readonly movedTo?: string;
}

/** The task of another run whose outcome a forked run's task took, not run again: its usage was spent there, not here. */
export interface InheritedOutcome {
	readonly runId: string;
	readonly taskId: string;
	readonly usage: Usage;
}

/** A task as task lists show it: its record, what it waits for and the script phase it belongs to. */
export interface ListedTask extends TaskRecord {
	/** What it waits for; for a script's task, the tasks the script had awaited before making it. */
	readonly dependsOn: readonly string[];
	/** The workflow script's phase when it made the task; null outside scripts. */
	readonly phase: string | null;
}

/** A task as live views show it: listed, with who runs it and what it did last. */
export interface TaskView extends ListedTask {
	readonly agent: string;
	readonly runtime: string;
	readonly model: string | null;
	/** Its latest worker event as one line; null before it has one. */
	readonly activity: string | null;
}

/** How an attempt's processes were confined, as recorded. */
export interface AttemptSandboxRecord {
	readonly level: SandboxLevel;
	readonly readOnly: boolean;
	/** Where its agent could connect, once its runtime said so; absent for one recorded before. */
	readonly network?: SandboxNetwork;
	/** The toolchain caches of crew's its processes wrote to, once its runtime said so. */
	readonly caches?: CachesRecord;
}

export interface ProcessHandle {
	readonly pid: number;
	readonly pgid: number;
	readonly startTime: string | null;
}

export interface AttemptRecord {
	readonly id: number;
	readonly taskId: string;
	readonly number: number;
	readonly epoch: number;
	readonly runtime: string;
	readonly status: string;
	readonly process: ProcessHandle | null;
	readonly startedAt: string;
	readonly finishedAt: string | null;
	readonly exitCode: number | null;
	readonly error: string | null;
	readonly retryable: boolean | null;
	/** What the attempt used, as reported so far while it runs. */
	readonly usage: Usage;
	/** How its processes were confined; null when they were not recorded (an older crew's attempt). */
	readonly sandbox: AttemptSandboxRecord | null;
	/** The model it ran on; null when its agent's own default. */
	readonly model: string | null;
	/** Whether its failure carried a check's output, which the attempt after it is given. */
	readonly evidence: boolean;
	/** Its agent CLI's session, once the CLI has one; null for a runtime without sessions. */
	readonly session: AgentSession | null;
	/** Whether it continued an earlier attempt's session, or started over and why; null on a first attempt. */
	readonly origin: SessionOrigin | null;
	/** The shared workspace as the attempt left it (`workspaceFingerprint`); null when not taken. */
	readonly workspaceLeft: string | null;
}

export interface EventRecord {
	readonly seq: number;
	readonly time: string;
	readonly type: string;
	readonly taskId: string | null;
	readonly data: Readonly<Record<string, unknown>>;
}

export interface ArtifactRecord {
	readonly path: string;
	readonly taskId: string | null;
	readonly kind: string;
	readonly size: number;
	readonly sha256: string;
	readonly createdAt: string;
}
