// What each agent CLI (pi, Claude Code, Codex) tells the agent runtime: how to start, read and talk to it.

import type { AgentSetup, SetupKey } from "../../core/agent-setup.js";
import type { HostPort } from "../../core/sandbox-level.js";
import type { AgentSession } from "../../core/session.js";
import type { ThinkingLevel } from "../../core/thinking.js";
import type { Usage } from "../../core/usage.js";
import type { TaskRequest, WorkerEvent, WorkerFailure } from "../worker-runtime.js";
import type { CliHome } from "./cli-home.js";
import type { Conversation } from "./conversation.js";

/** What an agent CLI's JSON output says, read line by line into crew's event schema. */
export interface AgentStream {
	/** The crew events of one output line, and whether the line belongs in the transcript. */
	accept(event: Record<string, unknown>): { events: WorkerEvent[]; keep: boolean };
	readonly usage: Usage;
	/** The agent's final answer so far. */
	readonly text: string;
	/** Whether the agent finished a turn, so its answer is whole. */
	readonly answered: boolean;
	/** The failure the CLI reported, whatever its exit code says. */
	readonly error: WorkerFailure | undefined;
	/** The CLI's id of its session, once it has said it, where the CLI names it rather than crew. */
	readonly session?: string;
	/**
	 * The model turns (responses) the agent has taken, for a CLI without a turn limit of its own:
	 * crew then holds the agent to its `maxTurns` (see `TurnLimit`).
	 */
	readonly turns?: number;
}

/** How one agent CLI is started and read. */
export interface AgentCli {
	readonly name: string;
	/** The program and its first arguments when none is configured; `env` holds the `PATH` to look in. */
	defaultCommand(env: NodeJS.ProcessEnv): readonly string[];
	/**
	 * The arguments after those: for `request`, its agent's system prompt in `systemFile` when it
	 * has one, crew's `ask` tool when `asks` (`askTool`), crew's delegation tools when `delegates`;
	 * `env` is where skills are looked for.
	 */
	args(request: TaskRequest, attempt: AttemptArgs): string[];
	/** The keys of an agent's setup the CLI has no equivalent of, among those `setup` sets. */
	ignores(setup: AgentSetup): SetupKey[];
	/** How the CLI's agent is given crew's `ask` tool; absent: it is not. */
	readonly askTool?: AskTool;
	/**
	 * For a CLI that takes messages while it works: how to talk to it in one attempt. It gets its
	 * prompt on stdin (an argument is capped at 128 KiB). Without it, stdin is closed from the start.
	 * `resume`: the session it continues, where the conversation itself resumes it (`SessionKeeping`).
	 */
	conversation?(request: TaskRequest, resume?: string): Conversation;
	/**
	 * The variables of `env` the CLI reads for its configuration and to reach the request's model:
	 * names, or prefixes ending in `*`. No other provider's keys reach it.
	 */
	credentials(request: TaskRequest, env: NodeJS.ProcessEnv): string[];
	/**
	 * How the CLI is told thinking level `level`: arguments to add, and variables to set; undefined
	 * when it has no equivalent, and the agent then runs at the CLI's default.
	 */
	thinking(level: ThinkingLevel): ThinkingSetting | undefined;
	/**
	 * The CLI's own folder for `env` (settings, logins, extensions): a confined attempt gets one of
	 * its own in its place (see `attemptHome`), and writes nothing else beside its workspace.
	 */
	home(env: NodeJS.ProcessEnv): CliHome;
	/** Where the CLI reaches the request's model, for `env`: all a confined attempt may connect to, with the user's hosts. */
	hosts(request: TaskRequest, env: NodeJS.ProcessEnv): HostPort[];
	stream(): AgentStream;
	/** How the CLI keeps a session a later attempt can continue; absent: each attempt starts afresh. */
	readonly sessions?: SessionKeeping;
	/**
	 * What the request's trust asks of the program before it starts: arguments to put before the
	 * others, or why it must not run here. `version` is what the program says `--version` prints,
	 * asked once per runtime and only when needed.
	 */
	admit?(request: TaskRequest, version: () => Promise<string>): Promise<Admission>;
}

/** How an agent CLI keeps each attempt's session, and continues an earlier attempt's. */
export interface SessionKeeping {
	/**
	 * The arguments that keep the attempt's session, in `folder` (the attempt's own, which it may
	 * write) or where the CLI keeps its sessions (`home`, the CLI folder the attempt uses), continuing
	 * `previous`'s when given and it can be had (`continued`; `resume`, the session's id, where the
	 * conversation resumes it), else starting over and saying why. `previous.folder` is that
	 * attempt's session folder, `previous.homes` each CLI folder it may have used.
	 */
	open(
		request: TaskRequest,
		at: {
			readonly folder: string;
			readonly home: string;
			readonly previous?: {
				readonly attempt: number;
				readonly session: AgentSession;
				readonly folder: string;
				readonly homes: readonly string[];
			};
		},
	): {
		readonly args: string[];
		readonly session: AgentSession;
		readonly continued?: true;
		readonly resume?: string;
		readonly startedOver?: string;
	};
	/**
	 * Once the attempt's processes have ended: its session kept in `folder` with every secret
	 * redacted, as all crew keeps is, and its CLI's own copy among the attempt's files (under
	 * `homes[0]`, its CLI folder) redacted too. `homes` as `open` has them.
	 */
	keep(session: AgentSession, at: { readonly folder: string; readonly homes: readonly string[] }): void;
}

/** What an attempt adds to its request for a CLI's arguments. */
export interface AttemptArgs {
	readonly systemFile: string | undefined;
	readonly asks: boolean;
	/** Whether the attempt's runner takes delegations (`CREW_DELEGATE_SOCKET`): a CLI that can offers its tools. */
	readonly delegates: boolean;
	readonly env: NodeJS.ProcessEnv;
}

/** How an agent CLI is given crew's `ask` tool. */
export type AskTool =
	/**
	 * An extension crew writes for the attempt (the end of its file's name, and its text), loaded by
	 * `args(file)`, whose questions come as the CLI's dialogs (`Conversation`).
	 */
	| { readonly via: "extension"; readonly suffix: string; readonly text: string; args(file: string): string[] }
	/**
	 * An MCP server named `crew`, which the CLI starts with the command line `server` (a bridge to
	 * the socket crew serves the tool on); `waitMs` is how long a call may wait for its answer.
	 */
	| {
			readonly via: "mcp";
			args(server: readonly string[], waitMs: number): string[];
			/** Variables that let a call wait `waitMs`. */
			env?(waitMs: number): Readonly<Record<string, string>>;
	  };

export interface ThinkingSetting {
	readonly args: readonly string[];
	readonly env?: Readonly<Record<string, string>>;
}

export type Admission = { readonly args: readonly string[] } | { readonly refused: string };
