// The engine's options (clock, chance, retry policy, heartbeats, time limits) and what a `Crew` is made with.

import type { Project } from "../config/project.js";
import type { EventRecord } from "../core/records.js";
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from "../core/retry-policy.js";
import type { Usage } from "../core/usage.js";
import type { RuntimeRegistry } from "../runtimes/runtime-registry.js";
import { DEFAULT_STALE_AFTER_MS } from "../store/lease.js";

/** Timing and chance the engine uses; tests set them, users keep the defaults. */
export interface EngineOptions {
	readonly now: () => number;
	/** A number in [0, 1); drives retry jitter. */
	readonly random: () => number;
	readonly retryPolicy: RetryPolicy;
	/** How often a runner renews its lease, in ms. Default 2000. */
	readonly heartbeatMs: number;
	/** How often a runner looks for a cancel request from another process, in ms. Default 200. */
	readonly pollMs: number;
	/** When a runner on another host counts as gone without a heartbeat, in ms. Default 30000. */
	readonly staleAfterMs: number;
	/** Time given to ending workers on cancel before the runner stops waiting, in ms. Default 10000. */
	readonly cleanupMs: number;
	/**
	 * Wall-clock limit of an attempt no step, agent, run or config limits, in ms; 0: none. Default
	 * 2 hours: several times what an agent's task takes when it goes well, so only a loop or a hang
	 * meets it, before it has spent a night's tokens.
	 */
	readonly defaultTimeoutMs: number;
	/**
	 * Limit on time without output of an agent CLI's attempt (pi, Claude Code, Codex) no step,
	 * agent, run or config limits, in ms; 0: none. Default 10 minutes: these CLIs print as they
	 * think and call tools, so that long a silence is a model or a tool that does not answer.
	 */
	readonly defaultStallTimeoutMs: number;
	/**
	 * Whether the run's spans are exported: then each attempt's processes are given the attempt's
	 * span as `TRACEPARENT`. Default false.
	 */
	readonly traced: boolean;
}

export const DEFAULT_ENGINE_OPTIONS: EngineOptions = {
	now: Date.now,
	random: Math.random,
	retryPolicy: DEFAULT_RETRY_POLICY,
	heartbeatMs: 2000,
	pollMs: 200,
	staleAfterMs: DEFAULT_STALE_AFTER_MS,
	cleanupMs: 10_000,
	defaultTimeoutMs: 2 * 3_600_000,
	defaultStallTimeoutMs: 10 * 60_000,
	traced: false,
};

/** How `Crew.execute` runs a run here. */
export interface ExecuteOptions {
	/** Aborting cancels the run: workers are ended and unfinished tasks cancelled. */
	readonly signal?: AbortSignal;
	/** Start the run only if it never started (e.g. it was cancelled meanwhile). Default false. */
	readonly onlyIfQueued?: boolean;
	/**
	 * Once only a person can let the run go on (its ready tasks wait for approval, nothing else
	 * runs), return `waiting` and leave the run waiting without a runner; `approve` then reports no
	 * live runner, so its caller starts one. Default false: the runner waits for the approval.
	 */
	readonly releaseWhenWaiting?: boolean;
	/** Hears each token the run (and any run below it) spends, as it is recorded: a delegated run's parent counts them. */
	readonly onSpend?: (usage: Usage) => void;
}

/** How a `Crew` is made: its project and, where the defaults do not do, its runtimes, resources, trust and credentials. */
export interface CrewOptions extends Partial<EngineOptions> {
	readonly project: Project;
	readonly runtimes?: RuntimeRegistry;
	/** Hears every event written, after it commits; the foreground progress view uses it. */
	readonly onEvent?: (runId: string, event: EventRecord) => void;
	/** The user's resource folders, strongest first. Default: crew's XDG config folder, then pi's. */
	readonly userDirs?: readonly string[];
	/** Whether the user trusts the project to run its own commands. Default: the user's trust records. */
	readonly trusted?: (root: string) => boolean;
	/**
	 * URLs with credentials that runs' queue and repository URLs may need; the store keeps none.
	 * Default: `CREW_QUEUE_URL`, `CREW_REPOSITORY_URL` and the user config's queue URL.
	 */
	readonly credentials?: readonly string[];
}
