// Token and cost usage of attempts: sums, comparisons, and how an attempt's usage is settled once.

/** Tokens and cost, of an attempt or summed over several. */
export interface Usage {
	readonly input: number;
	readonly output: number;
	readonly cacheRead: number;
	readonly cacheWrite: number;
	readonly cost: number;
	/**
	 * True when these figures are a lower bound: an attempt counted in them used more than its agent
	 * has reported, and it ended (or has not yet come) to the report that says the rest. Claude Code
	 * gives a response's output tokens and cost only in its result, Codex a turn's usage only when
	 * the turn ends. Absent when complete.
	 */
	readonly partial?: boolean;
}

export const ZERO_USAGE: Usage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cost: 0 };

export function addUsage(a: Usage, b: Usage): Usage {
	return {
		input: a.input + b.input,
		output: a.output + b.output,
		cacheRead: a.cacheRead + b.cacheRead,
		cacheWrite: a.cacheWrite + b.cacheWrite,
		cost: a.cost + b.cost,
		...(a.partial || b.partial ? { partial: true } : {}),
	};
}

/** Input, output and cache tokens together: what a token budget counts. */
export function tokensOf(usage: Usage): number {
	return usage.input + usage.output + usage.cacheRead + usage.cacheWrite;
}

/** Whether no token and no cost is counted. */
export function isZeroUsage(usage: Usage): boolean {
	return tokensOf(usage) === 0 && usage.cost === 0;
}

/** `usage`'s counts, partial as `partial` says. */
export function withPartial(usage: Usage, partial: boolean): Usage {
	const { input, output, cacheRead, cacheWrite, cost } = usage;
	return { input, output, cacheRead, cacheWrite, cost, ...(partial ? { partial: true } : {}) };
}

/** Each count the larger of `a`'s and `b`'s; partial as `a` is. */
export function maxUsage(a: Usage, b: Usage): Usage {
	return withPartial(
		{
			input: Math.max(a.input, b.input),
			output: Math.max(a.output, b.output),
			cacheRead: Math.max(a.cacheRead, b.cacheRead),
			cacheWrite: Math.max(a.cacheWrite, b.cacheWrite),
			cost: Math.max(a.cost, b.cost),
		},
		a.partial === true,
	);
}

/** What `a` counts beyond `b`, count by count, never below 0; partial as `a` is. */
export function usageOver(a: Usage, b: Usage): Usage {
	return withPartial(
		{
			input: Math.max(0, a.input - b.input),
			output: Math.max(0, a.output - b.output),
			cacheRead: Math.max(0, a.cacheRead - b.cacheRead),
			cacheWrite: Math.max(0, a.cacheWrite - b.cacheWrite),
			cost: Math.max(0, a.cost - b.cost),
		},
		a.partial === true,
	);
}

/**
 * How an attempt's usage is counted, once. While it runs, each usage event its runtime reports
 * is added to its record as it arrives (`reported`, the sum, partial as the latest event says).
 * When it ends with a result, the result's usage is the runtime's total for the same work: each
 * count becomes the larger of the two, so a total that repeats what was reported replaces it
 * without counting a token twice, and a total short of it (a runtime that lost its reports, a
 * worker that took an attempt over) never drops what was reported. Partial then as the result
 * says. An attempt that ends without a result (timed out, stalled, cancelled, lost) keeps what
 * was reported, partial as it was.
 */
export function settledUsage(reported: Usage, total: Usage | undefined): Usage {
	if (total === undefined) return reported;
	return withPartial(maxUsage(reported, total), total.partial === true);
}
