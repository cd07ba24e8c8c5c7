// The `ctx` API given to a workflow script's function: agent calls, branches, phases, logs and budget.

import type { BudgetView } from "../../core/budget.js";

export type { BudgetView };

/** A schema a call's answer or the script's arguments must match: zod (any Standard Schema) or JSON Schema. */
export type SchemaLike = StandardSchemaLike<unknown> | Readonly<Record<string, unknown>>;

/** The part of the Standard Schema interface crew reads; zod, valibot and arktype schemas have it. */
export interface StandardSchemaLike<Output> {
	readonly "~standard": {
		readonly vendor: string;
		readonly validate: (value: unknown) => unknown;
		readonly types?: { readonly output: Output } | undefined;
	};
}

/** One agent call: a task of the run, run by the agent of `role`. */
export interface AgentCall {
	/** A role of the run's team, or, without a team, an agent's name. */
	readonly role: string;
	/** The task; `{goal}` is replaced by the run's goal. */
	readonly prompt: string;
	/** Names the task in views (`<name>-<position>`); default the role. ASCII letters, digits, `-`, `_`. */
	readonly name?: string;
	/** Overrides the agent's model for this call. */
	readonly model?: string;
	/** `true`: the answer must end with a PASS verdict; a string: a command that must exit 0. */
	readonly verify?: boolean | string;
	/** The task works in a git worktree of its own, merged back when the run ends. */
	readonly worktree?: boolean;
	/** The answer must end with JSON matching it; the call returns the parsed value. */
	readonly schema?: SchemaLike;
	/** Extra attempts after a retryable failure; default the run's. */
	readonly retries?: number;
	/** Limit of one attempt: milliseconds, or a duration such as `90s` or `10m`; 0: none (not even the default). */
	readonly timeout?: number | string;
	/**
	 * Files whose text the prompt carries, fenced as data: paths in the repository, or absolute (an
	 * earlier call's result file). Read when the call is first made; a replay keeps that text.
	 */
	readonly inputs?: readonly string[];
	/** The specs the task is held to (`crew spec list`), frozen when the call is first made. */
	readonly specRefs?: readonly string[];
	/** Held strictly: its checks run after it, and a spec not found fails the call. */
	readonly specStrict?: boolean;
}

/** What a workflow script's function is given. Every call is recorded, so a resumed run replays it. */
export interface WorkflowContext {
	readonly runId: string;
	readonly goal: string;
	/**
	 * Runs an agent and resolves to its answer: the text, or the parsed value when `schema` is given.
	 * A call that fails (after its retries) rejects with an error whose `code` is `CALL_FAILED`.
	 */
	agent<Output>(call: AgentCall & { readonly schema: StandardSchemaLike<Output> }): Promise<Output>;
	agent(call: AgentCall): Promise<unknown>;
	/** Runs branches at once; each branch's calls have places of their own, so timing cannot reorder them. */
	parallel<T>(branches: readonly (() => Promise<T>)[]): Promise<T[]>;
	/** Runs `fn` for each item, at most `concurrency` at once; results in the items' order. */
	fanOut<Item, T>(
		items: readonly Item[],
		fn: (item: Item, index: number) => Promise<T>,
		options?: { readonly concurrency?: number },
	): Promise<T[]>;
	/** The run's arguments (`crew run --args '<json>'`), as the script's `args` schema parsed them. */
	args<T = unknown>(): T;
	/** Names the part of the script that follows, in this branch; views group tasks by it. */
	phase(name: string): void;
	/** A line in the run's events, written once even when the script replays. */
	log(...parts: readonly unknown[]): void;
	/** What the run has spent, and what its caps leave. */
	readonly budget: BudgetView;
	/** Aborted when the run stops (cancel, budget): pass it to your own waits. */
	readonly signal: AbortSignal;
	/** The time in ms, recorded the first time: a replay sees the same value. Use instead of `Date.now()`. */
	now(): number;
	/** A number in [0, 1), recorded the first time: a replay sees the same value. Use instead of `Math.random()`. */
	random(): number;
}
