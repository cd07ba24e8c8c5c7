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
