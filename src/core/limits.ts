// An attempt's wall-clock and stall time limits, from its step, agent, run or the defaults.

import type { RunOptions, TaskSpec } from "./types.js";

/** The runtimes that are agent CLIs. A command may be silent for long on purpose; an agent CLI is not. */
export const AGENT_CLI_RUNTIMES: readonly string[] = ["pi", "claude", "codex"];

/** The limits that apply where nothing else sets one, in ms; 0 turns one off. */
export interface DefaultLimits {
	/** Wall-clock limit of every attempt. */
	readonly timeoutMs: number;
	/** Limit on time without output, for the attempts of agent CLIs only. */
	readonly stallTimeoutMs: number;
}

/** An attempt's limits, in ms; absent: none. */
export interface AttemptLimits {
	readonly timeoutMs?: number;
	readonly stallTimeoutMs?: number;
}

/**
 * The limits of an attempt of `spec` run by `runtime`: each is the step's, else its agent's,
 * else the run's (its flag, else the config's, as recorded when it was planned), else the
 * default. The first one set decides, and 0 there means no limit.
 */
export function attemptLimits(
	spec: TaskSpec,
	run: Pick<RunOptions, "timeoutMs" | "stallTimeoutMs">,
	runtime: string,
	defaults: DefaultLimits,
): AttemptLimits {
	const stallDefault = AGENT_CLI_RUNTIMES.includes(runtime) ? defaults.stallTimeoutMs : 0;
	const timeoutMs = first(spec.timeoutMs, spec.agent.timeoutMs, run.timeoutMs, defaults.timeoutMs);
	const stallTimeoutMs = first(spec.stallTimeoutMs, spec.agent.stallTimeoutMs, run.stallTimeoutMs, stallDefault);
	return {
		...(timeoutMs > 0 ? { timeoutMs } : {}),
		...(stallTimeoutMs > 0 ? { stallTimeoutMs } : {}),
	};
}

function first(...limits: readonly (number | undefined)[]): number {
	return limits.find((limit) => limit !== undefined) ?? 0;
}
