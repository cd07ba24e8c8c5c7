// A run's spending caps and reservations, and the budget that decides whether a task fits under them.

import { addUsage, isZeroUsage, tokensOf, type Usage, ZERO_USAGE } from "./usage.js";

/** A run's spending caps, and what a task is expected to spend when its agent does not say. */
export interface BudgetLimits {
	readonly tokens?: number;
	readonly usd?: number;
	/** Tokens reserved for a task whose agent has no `maxTokens`. Default 0. */
	readonly reserveTokens?: number;
	/** Dollars reserved for each task. Default 0. */
	readonly reserveUsd?: number;
}

/** The keys of a budget, as options and config files name them. */
export const BUDGET_KEYS: readonly (keyof BudgetLimits)[] = ["tokens", "usd", "reserveTokens", "reserveUsd"];

/**
 * What is wrong with `value` as a budget's `key`, or undefined when nothing is (undefined, for no
 * value, included). A cap must be a number > 0: a cap of 0 would stop a run before anything
 * starts, and no cap is said by leaving it out. A reservation must be a number >= 0.
 */
export function budgetProblem(key: string, value: unknown): string | undefined {
	if (!(BUDGET_KEYS as readonly string[]).includes(key)) return `expected one of ${BUDGET_KEYS.join(", ")}`;
	if (value === undefined) return undefined;
	const cap = key === "tokens" || key === "usd";
	const number = typeof value === "number" && Number.isFinite(value);
	if (cap && !(number && value > 0)) return "expected a number > 0";
	if (!cap && !(number && value >= 0)) return "expected a number >= 0";
	return undefined;
}

export interface Reservation {
	readonly tokens: number;
	readonly usd: number;
}

/** What a run has spent, and what its caps leave (absent where it has no cap). */
export interface BudgetView {
	readonly spentTokens: number;
	readonly spentUsd: number;
	readonly tokensLeft?: number;
	readonly usdLeft?: number;
}

/** Fraction of a cap at which the run is warned, once. */
const WARN_AT = 0.8;

/**
 * A run's spending against its caps. Spent is every token on record, as the store counts it: what
 * every attempt reported, running or ended, however it ended. Running attempts also hold a
 * reservation, and a task starts only when spent, what the running attempts' reservations have
 * left beyond their usage so far, and its own reservation fit under every cap. So while tasks
 * stay within their reservations, concurrent tasks never push spend past a cap.
 */
export class RunBudget {
	readonly #limits: BudgetLimits;
	#spent: Usage;
	readonly #running = new Map<number, { reserved: Reservation; live: Usage }>();
	#warned = false;
	readonly #onSpend: ((usage: Usage) => void) | undefined;

	/**
	 * `spent`: what the store holds for the run, running and lost attempts' reported usage included,
	 * and what the runs below it spent; `onSpend` hears each amount counted after.
	 */
	constructor(limits: BudgetLimits | undefined, spent: Usage, onSpend?: (usage: Usage) => void) {
		this.#limits = limits ?? {};
		this.#spent = spent;
		this.#onSpend = onSpend;
	}

	get limited(): boolean {
		return this.#limits.tokens !== undefined || this.#limits.usd !== undefined;
	}

	reservationFor(maxTokens: number | undefined): Reservation {
		return { tokens: maxTokens ?? this.#limits.reserveTokens ?? 0, usd: this.#limits.reserveUsd ?? 0 };
	}

	/** Whether a task reserving `r` fits now. */
	fits(r: Reservation): boolean {
		const { tokens, usd } = this.#committed();
		return this.#under(tokens + r.tokens, usd + r.usd);
	}

	/** Task `i`'s attempt starts holding `reserved`; `recorded` is what it has on record already (one followed again). */
	start(i: number, reserved: Reservation, recorded: Usage = ZERO_USAGE): void {
		this.#running.set(i, { reserved, live: recorded });
	}

	/** Usage an attempt of task `i` reported, as recorded: it is spent. */
	report(i: number, usage: Usage): void {
		this.#spent = addUsage(this.#spent, usage);
		const entry = this.#running.get(i);
		if (entry) entry.live = addUsage(entry.live, usage);
		this.#onSpend?.(usage);
	}

	/**
	 * Task `i`'s attempt ended, its record growing by `added` beyond what it had reported (its
	 * runtime's final total, where larger): its reservation is released.
	 */
	settle(i: number, added: Usage): void {
		this.#running.delete(i);
		this.#spent = addUsage(this.#spent, added);
		if (!isZeroUsage(added)) this.#onSpend?.(added);
	}

	/** Whether what is spent reaches a cap. */
	exhausted(): boolean {
		const used = this.#spent;
		const { tokens, usd } = this.#limits;
		return (tokens !== undefined && tokensOf(used) >= tokens) || (usd !== undefined && used.cost >= usd);
	}

	/** True once, the first time spending reaches 80% of a cap. */
	takeWarning(): boolean {
		if (this.#warned || !this.limited) return false;
		const used = this.#spent;
		const { tokens, usd } = this.#limits;
		const near =
			(tokens !== undefined && tokensOf(used) >= WARN_AT * tokens) || (usd !== undefined && used.cost >= WARN_AT * usd);
		if (near) this.#warned = true;
		return near;
	}

	/** Spent so far, running attempts' usage included, and what each cap leaves. */
	view(): BudgetView {
		const used = this.#spent;
		const { tokens, usd } = this.#limits;
		return {
			spentTokens: tokensOf(used),
			spentUsd: used.cost,
			...(tokens !== undefined ? { tokensLeft: Math.max(0, tokens - tokensOf(used)) } : {}),
			...(usd !== undefined ? { usdLeft: Math.max(0, usd - used.cost) } : {}),
		};
	}

	/** `45 of 50 tokens, $0.0300 of $0.0500`: what is spent against each cap. */
	describe(): string {
		const used = this.#spent;
		const parts: string[] = [];
		if (this.#limits.tokens !== undefined) parts.push(`${tokensOf(used)} of ${this.#limits.tokens} tokens`);
		if (this.#limits.usd !== undefined) parts.push(`$${used.cost.toFixed(4)} of $${this.#limits.usd.toFixed(4)}`);
		return parts.join(", ");
	}

	/** Spent plus, for each running attempt, what its reservation has left beyond its usage so far. */
	#committed(): { tokens: number; usd: number } {
		let tokens = tokensOf(this.#spent);
		let usd = this.#spent.cost;
		for (const { reserved, live } of this.#running.values()) {
			tokens += Math.max(0, reserved.tokens - tokensOf(live));
			usd += Math.max(0, reserved.usd - live.cost);
		}
		return { tokens, usd };
	}

	#under(tokens: number, usd: number): boolean {
		const { tokens: capTokens, usd: capUsd } = this.#limits;
		return (capTokens === undefined || tokens <= capTokens) && (capUsd === undefined || usd <= capUsd);
	}
}
