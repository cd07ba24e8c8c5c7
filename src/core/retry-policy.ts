// Retries of failed attempts: backoff delays, fallback models, and the note saying what comes next.

import { formatDuration } from "./duration.js";

export interface RetryPolicy {
	/** Delay before the first retry, in ms. Default 1000. */
	readonly baseMs: number;
	/** Growth per further retry. Default 2. */
	readonly factor: number;
	/** Upper bound of one delay, in ms. Default 30000. */
	readonly maxMs: number;
	/** Share of the delay that is randomised, 0 to 1. Default 0.5. */
	readonly jitter: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { baseMs: 1000, factor: 2, maxMs: 30_000, jitter: 0.5 };

/** Delay before retry number `retry` (1 for the first), with `random` in [0, 1). */
export function backoffDelay(policy: RetryPolicy, retry: number, random: number): number {
	const raw = Math.min(policy.maxMs, policy.baseMs * policy.factor ** Math.max(0, retry - 1));
	return Math.round(raw * (1 - policy.jitter) + raw * policy.jitter * random);
}

/** What follows a failed attempt. */
export type RetryDecision =
	| { readonly kind: "fallback"; readonly model: string }
	| { readonly kind: "retry"; readonly retry: number; readonly allowed: number; readonly delayMs: number }
	| { readonly kind: "fail" };

/**
 * A retryable failure is tried again at once on the agent's next fallback model while one is left
 * (that attempt does not count against the retries), else after a backoff while retries are left
 * (`used` is this failure's number among them); anything else fails.
 */
export function retryDecision(input: {
	readonly retryable: boolean;
	readonly fallback: string | undefined;
	readonly used: number;
	readonly allowed: number;
	readonly policy: RetryPolicy;
	readonly random: () => number;
}): RetryDecision {
	if (!input.retryable) return { kind: "fail" };
	if (input.fallback !== undefined) return { kind: "fallback", model: input.fallback };
	if (input.used > input.allowed) return { kind: "fail" };
	const delayMs = backoffDelay(input.policy, input.used, input.random());
	return { kind: "retry", retry: input.used, allowed: input.allowed, delayMs };
}

/** A retried failure's message, saying what comes next: the fallback model, or the retry and its delay. */
export function retryNote(message: string, next: Exclude<RetryDecision, { kind: "fail" }>): string {
	return next.kind === "fallback"
		? `${message}; falling back to model ${next.model}`
		: `${message}; retry ${next.retry} of ${next.allowed} in ${formatDuration(next.delayMs)}`;
}
