// An agent held to its `maxTurns` where its CLI has no turn limit: told to wrap up, then stopped.

/** Model turns an agent past its `maxTurns` is given to wrap up before its attempt is stopped. */
export const GRACE_TURNS = 5;

/** What an agent at its turn limit is told. */
export function wrapUp(max: number): string {
	return `You have used your ${max} turns. Stop working now: give your final answer, with what is done and what is left.`;
}

/**
 * Holds an agent to its `maxTurns` where its CLI has no such limit, counting its model turns: once
 * it has taken that many and still starts a tool (so it goes on working), it is told to wrap up;
 * past `GRACE_TURNS` more, its attempt is stopped through `signal`.
 */
export class TurnLimit {
	readonly #max: number;
	readonly #tell: (text: string) => void;
	readonly #stop = new AbortController();
	#told = false;

	constructor(max: number, tell: (text: string) => void) {
		this.#max = max;
		this.#tell = tell;
	}

	get signal(): AbortSignal {
		return this.#stop.signal;
	}

	/** Why the attempt was stopped, once it was. */
	get overrun(): string | undefined {
		return this.#stop.signal.aborted ? String(this.#stop.signal.reason) : undefined;
	}

	/** The agent has taken `turns` turns; `working`: it has just started a tool, so its turn is not its answer. */
	seen(turns: number, working: boolean): void {
		if (turns >= this.#max && working && !this.#told) {
			this.#told = true;
			this.#tell(wrapUp(this.#max));
		}
		if (turns > this.#max + GRACE_TURNS && working && !this.#stop.signal.aborted) {
			const said = this.#told ? ` and ${GRACE_TURNS} more to wrap up` : "";
			this.#stop.abort(`its agent took ${turns} turns, past its maxTurns of ${this.#max}${said}`);
		}
	}
}
