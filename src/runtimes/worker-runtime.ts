// The worker runtime interface: one attempt's request, the events a runtime reports and its result.

import type { AgentSetup, SetupKey } from "../core/agent-setup.js";
import type { DelegationAnswer, DelegationAsk } from "../core/delegation.js";
import type { ProcessHandle, SetAside } from "../core/records.js";
import type { AttemptSandbox, CachesRecord, SandboxNetwork } from "../core/sandbox-level.js";
import type { AgentSession, Continuation, SessionOrigin } from "../core/session.js";
import type { SpecCheck } from "../core/spec-contract.js";
import type { ThinkingLevel } from "../core/thinking.js";
import type { AgentSpec, RunOptions } from "../core/types.js";
import type { Usage } from "../core/usage.js";
import type { VerifySpec } from "../core/verdict.js";

/** Everything a runtime needs to run one attempt of a task; plain data, so it can travel. */
export interface TaskRequest {
	readonly runId: string;
	readonly taskId: string;
	readonly stepId: string;
	readonly role: string;
	readonly attempt: number;
	/** The attempt's record, and the epoch of the runner that made it: a later runner's are larger. */
	readonly attemptId: number;
	readonly epoch: number;
	readonly agent: AgentSpec;
	readonly prompt: string;
	/** Absolute path of the stored prompt. */
	readonly promptFile: string;
	/** The task's working directory. */
	readonly cwd: string;
	/** Folder for the attempt's own files: absolute, and as an artifact name prefix. */
	readonly artifactDir: string;
	readonly artifactPrefix: string;
	/**
	 * Whether the repository's own files may run (pi's project extensions and settings, …):
	 * decided by whoever runs the attempt, never carried from elsewhere. Absent means not trusted.
	 */
	readonly projectTrusted?: boolean;
	/** How its processes are confined; absent: not at all. */
	readonly sandbox?: AttemptSandbox;
	/** How deep in crew runs its processes are, when its run was delegated (see `nestingDepth`); else its runner's depth plus one. */
	readonly depth?: number;
	/** The attempt's span, W3C `traceparent`, when the run is traced: its processes' parent. */
	readonly traceparent?: string;
	/**
	 * For a later attempt of its task: the earlier attempt's agent session to continue, or why it
	 * starts over; absent on a first attempt. A runtime that cannot continue starts over and says why.
	 */
	readonly session?: Continuation | { readonly startedOver: string };
}

/** crew's one event schema for what a worker does, whatever runs it. */
export type WorkerEvent =
	| { readonly type: "spawned"; readonly process: ProcessHandle }
	/** The worker produced output; resets the stall timer. */
	| { readonly type: "activity" }
	| { readonly type: "assistant"; readonly text: string }
	| { readonly type: "tool-start"; readonly id: string; readonly name: string; readonly args?: unknown }
	| {
			readonly type: "tool-end";
			readonly id: string;
			readonly name: string;
			readonly isError: boolean;
			/** The start of what the tool returned. */
			readonly output?: string;
	  }
	/** Whole lines a command printed on stdout. */
	| { readonly type: "output"; readonly text: string }
	/**
	 * Usage reported while the attempt runs, added to the attempt's record as it arrives: counts
	 * not reported before (each report adds, never repeats). `usage.partial` says whether, after
	 * this report, what the attempt reported falls short of what it used (Claude Code before its
	 * result).
	 */
	| { readonly type: "usage"; readonly usage: Usage }
	/** The attempt's agent proposed `note` for the project's knowledge, in its answer. */
	| { readonly type: "knowledge-proposed"; readonly note: string }
	/**
	 * How the attempt is confined, as its runtime decided before starting it: where its agent may
	 * connect, and the toolchain caches of crew's its processes write to.
	 */
	| { readonly type: "confined"; readonly network?: SandboxNetwork; readonly caches?: CachesRecord }
	/** The sandbox refused a write to `path`, or a connection to `host` (and `port`), as the worker said. */
	| {
			readonly type: "sandbox-denied";
			readonly path?: string;
			readonly host?: string;
			readonly port?: number;
	  }
	/**
	 * Git folders left in the attempt's workspace, which crew moved out of it (see `SetAside`);
	 * `shared` when other attempts worked there meanwhile, so that they may have left them.
	 */
	| { readonly type: "git-set-aside"; readonly folders: readonly SetAside[]; readonly shared: boolean }
	/** The attempt changed `paths` outside what its step may write; crew put them back. */
	| { readonly type: "scope-violated"; readonly paths: readonly string[] }
	/** Where the attempt's agent CLI keeps its session, and how the attempt began (see `TaskRequest.session`). */
	| { readonly type: "session"; readonly session: AgentSession; readonly origin?: SessionOrigin }
	/** The shared workspace as the attempt left it: a `workspaceFingerprint`. */
	| { readonly type: "workspace-left"; readonly fingerprint: string }
	/** crew committed the attempt's changes on the task's branch. */
	| { readonly type: "commit"; readonly commit: string; readonly branch: string }
	| { readonly type: "error"; readonly message: string; readonly retryable: boolean };

export interface WorkerFailure {
	readonly message: string;
	/** Decided where the failure is seen: whether another attempt may succeed. */
	readonly retryable: boolean;
	/** What a failed check printed, given to the next attempt. */
	readonly evidence?: string;
	/** The agent ended without what its step needs of it (an answer, a verdict): see `TaskSpec.onMissing`. */
	readonly missing?: true;
	/** A goal's `--until` command did not pass: the next pass answers it (see `judgingGoal`). */
	readonly unmet?: true;
	/**
	 * The task's next attempt is not a retry, and its retries count afresh from it: in a replay,
	 * its run's next attempt was a resumed runner's; or an answer came as its agent's wait ran out.
	 */
	readonly afresh?: true;
}

export interface WorkerResult {
	readonly ok: boolean;
	/** The task's result: the agent's final answer, or a command's stdout. */
	readonly text: string;
	readonly error?: WorkerFailure;
	readonly exitCode: number | null;
	/**
	 * The attempt's total usage as its runtime counts it, covering the same work as its usage
	 * events: the record takes each count's larger of the two (see `settledUsage`), so a total that
	 * repeats the events counts once. `partial` when the runtime knows it falls short.
	 */
	readonly usage: Usage;
	/** Files the runtime wrote under the request's artifact folder, by artifact name. */
	readonly artifacts: readonly { readonly name: string; readonly kind: string }[];
	/** What became of the checks of a strict step's specs, run after its agent (see `withSpecChecks`). */
	readonly specChecks?: readonly SpecCheck[];
}

export interface RunControl {
	/** Aborting ends the worker's whole process group; the promise then rejects with `signal.reason`, unless the worker had ended by itself. */
	readonly signal: AbortSignal;
	readonly onEvent: (event: WorkerEvent) => void;
	/** Where messages for the running agent come from; absent when nobody can send any. */
	readonly steering?: Steering;
	/**
	 * Asks a person `question` for the agent, which waits: resolves with the answer. Absent when
	 * the agent may not ask (`ask: false`), and then it is given no `ask` tool.
	 */
	readonly asking?: (question: string) => Promise<string>;
	/**
	 * Carries out work the agent delegates, as a run of the attempt's own run's: resolves with its
	 * answer once it ends. Absent when the agent may not delegate, and then it is given no socket.
	 */
	readonly delegating?: Delegating;
}

/**
 * Carries out one delegation: `started` hears the delegated run's id once it is recorded; aborting
 * `signal` (its agent went away) stops it.
 */
export type Delegating = (
	ask: DelegationAsk,
	control: { readonly signal: AbortSignal; readonly started: (runId: string) => void },
) => Promise<DelegationAnswer>;

/** How a message for a running agent went: taken by its agent, or refused and why. */
export type Delivery = { readonly delivered: true } | { readonly delivered: false; readonly reason: string };

/**
 * The channel a runtime whose agent takes messages while it works (`steerable`) opens once its
 * agent can, and closes when it no longer can. Messages sent before it opens wait for it.
 */
export interface Steering {
	open(deliver: (text: string) => Promise<Delivery>): void;
	/** No more messages: those still waiting, and any sent later, are refused with `reason`. */
	close(reason: string): void;
}

/** What a task asks of each attempt besides its agent: a check after it, a setup hook before it. */
export interface AttemptParts {
	readonly verify?: VerifySpec;
	/** Run first in a task's new worktree; a failure fails the attempt and its changes are not kept. */
	readonly setup?: RunOptions["setup"];
}

export interface WorkerRuntime {
	readonly name: string;
	/** Whether its agents take messages while they work, through `RunControl.steering`. */
	readonly steerable?: boolean;
	/** Whether its agents keep a session a later attempt can continue (see `TaskRequest.session`). */
	readonly keepsSessions?: boolean;
	run(request: TaskRequest, control: RunControl): Promise<WorkerResult>;
	/**
	 * Offered by a runtime that runs attempts elsewhere: this runtime, running the task's setup
	 * hook and check where its agent runs, in the agent's workspace, rather than having them
	 * wrapped around it here.
	 */
	carry?(parts: AttemptParts): WorkerRuntime;
	/**
	 * Whether the runtime's agent CLI can be given thinking level `level`. Absent on runtimes that
	 * start no model CLI (a command, a dry run), which have no thinking level to set.
	 */
	takesThinking?(level: ThinkingLevel): boolean;
	/** The keys of an agent's setup its CLI has no equivalent of; absent on runtimes that run no agent CLI. */
	ignores?(setup: AgentSetup): SetupKey[];
}
