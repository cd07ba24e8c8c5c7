// The places of a workflow script's calls, numbered per branch so a replay finds each call at its key.

import type { AsyncLocalStorage } from "node:async_hooks";
import { CrewError, ErrorCode } from "../../core/errors.js";

/**
 * Where a script's calls happen: the root, or a branch of a `parallel` or `fanOut`. Each scope
 * numbers its calls in the order it makes them, so a call's place does not depend on how long
 * other branches' agents take.
 */
export class ScriptScope {
	readonly prefix: string;
	phase: string | undefined;
	/** The tasks this scope's next call comes after: its last call's, or a fan-out's branches' last. */
	after: readonly string[] = [];
	#calls = 0;
	#values = 0;
	#notes = 0;
	#mails = 0;

	constructor(prefix: string, phase: string | undefined) {
		this.prefix = prefix;
		this.phase = phase;
	}

	/** The place of the next agent call, `parallel` or `fanOut`: `3`, or `2.1.3` in a branch. */
	nextCall(): string {
		return `${this.prefix}${++this.#calls}`;
	}

	/** The place of the next `now()` or `random()`, counted apart so adding one moves no call. */
	nextValue(): string {
		return `${this.prefix}v${++this.#values}`;
	}

	/** The place of the next `log()` or `phase()`, counted apart for the same reason. */
	nextNote(): string {
		return `${this.prefix}n${++this.#notes}`;
	}

	/** The place of the next `mail()`, which is the mail's id: `m1`, or `2.0.m1` in a branch. */
	nextMail(): string {
		return `${this.prefix}m${++this.#mails}`;
	}

	/** Branch `index` of the `parallel` or `fanOut` at `key`; it starts in this scope's phase. */
	branch(key: string, index: number): ScriptScope {
		const branch = new ScriptScope(`${key}.${index}.`, this.phase);
		branch.after = this.after;
		return branch;
	}
}

/**
 * Runs `fn` on each of `items` at most `concurrency` at a time, each in a branch of `scope` of its
 * own, so their calls get the same keys however they interleave; the first failure stops the rest.
 * The calls after them wait for every branch's last calls.
 */
export async function fanOut<Item, T>(
	scope: ScriptScope,
	scopes: AsyncLocalStorage<ScriptScope>,
	items: readonly Item[],
	fn: (item: Item, index: number) => Promise<T>,
	concurrency: number | undefined,
	what: string,
): Promise<T[]> {
	const key = scope.nextCall();
	if (!Array.isArray(items)) throw new CrewError(ErrorCode.InvalidInput, `${what} call ${key}: expected an array`);
	if (typeof fn !== "function") throw new CrewError(ErrorCode.InvalidInput, `${what} call ${key}: expected a function`);
	const limit = concurrency ?? Number.POSITIVE_INFINITY;
	if (!(limit === Number.POSITIVE_INFINITY || (Number.isInteger(limit) && limit >= 1))) {
		throw new CrewError(
			ErrorCode.InvalidInput,
			`${what} call ${key}: concurrency ${JSON.stringify(concurrency)}: expected an integer >= 1`,
		);
	}
	const results: T[] = new Array(items.length);
	const branches = items.map((_, i) => scope.branch(key, i));
	let next = 0;
	let failed = false;
	const worker = async () => {
		while (!failed && next < items.length) {
			const i = next++;
			try {
				results[i] = await scopes.run(branches[i] as ScriptScope, () => fn(items[i] as Item, i));
			} catch (error) {
				failed = true;
				throw error;
			}
		}
	};
	await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
	if (branches.length > 0) scope.after = [...new Set(branches.flatMap((b) => b.after))];
	return results;
}
