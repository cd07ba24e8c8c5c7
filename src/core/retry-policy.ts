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
