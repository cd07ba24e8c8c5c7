// The order a replay starts and ends attempts in: the order its recorded run did.

import type { ReplayedAttempt } from "../../core/types.js";

/** Whether an attempt may start: now, once more of the recorded run has been replayed, or never. */
export type ReplayTurn = "now" | "later" | "never";

/** Whether attempt `number` of task `taskId` has started (or ended) in the replay, or never will. */
export type Happened = (taskId: string, number: number) => boolean;

/**
 * The order a replay starts and ends attempts in: the order the recorded run did. An attempt
 * starts once every attempt the run had ended by then has ended in the replay; its end is taken
 * once every attempt the run had started and ended before it ended has too. So a failure that
 * stopped the run from starting more stops the replay at the same point, however fast its answers
 * come. An attempt the run never made never starts; with `live`, one may, to run for real. A task
 * the run has no attempts recorded of (one it never had, or a fork took as it was) is not held back.
 */
export class ReplayOrder {
	readonly #attempts: Readonly<Record<string, readonly ReplayedAttempt[]>>;
	readonly #live: boolean;
	readonly #starts: Timeline;
	readonly #ends: Timeline;

	constructor(attempts: Readonly<Record<string, readonly ReplayedAttempt[]>>, live: boolean) {
		this.#attempts = attempts;
		this.#live = live;
		const all = Object.entries(attempts).flatMap(([taskId, made]) =>
			made.map((a, i) => ({ taskId, number: i + 1, a })),
		);
		this.#starts = new Timeline(all.map(({ taskId, number, a }) => ({ taskId, number, time: a.startedAt })));
		this.#ends = new Timeline(
			all.flatMap(({ taskId, number, a }) => (a.finishedAt === null ? [] : [{ taskId, number, time: a.finishedAt }])),
		);
	}

	/** Whether attempt `number` of task `taskId` may start, given which attempts have `ended`. */
	turn(taskId: string, number: number, ended: Happened): ReplayTurn {
		const made = this.#attempts[taskId];
		if (made === undefined) return "now";
		const attempt = made[number - 1];
		if (attempt === undefined) return this.#live ? "now" : "never";
		// The run recorded an end before a start of the same moment: it starts what they released.
		return this.#ends.reached(attempt.startedAt, true, ended) ? "now" : "later";
	}

	/** Attempt `number` of task `taskId` as the run recorded it; undefined when it has none. */
	recorded(taskId: string, number: number): ReplayedAttempt | undefined {
		return this.#attempts[taskId]?.[number - 1];
	}

	/** Whether the end of attempt `number` of task `taskId` may be taken now. */
	mayEnd(taskId: string, number: number, started: Happened, ended: Happened): boolean {
		const end = this.#attempts[taskId]?.[number - 1]?.finishedAt;
		if (end === undefined || end === null) return true;
		return this.#starts.reached(end, false, started) && this.#ends.reached(end, false, ended);
	}
}

interface Moment {
	readonly taskId: string;
	readonly number: number;
	readonly time: number;
}

/** Moments of a recorded run in time order, and how many of them, from the first, the replay has seen. */
class Timeline {
	readonly #moments: readonly Moment[];
	#seen = 0;

	constructor(moments: Moment[]) {
		this.#moments = moments.sort((a, b) => a.time - b.time);
	}

	/** Whether every moment before `time` (or at it, when `inclusive`) has `happened`. */
	reached(time: number, inclusive: boolean, happened: Happened): boolean {
		for (let next = this.#moments[this.#seen]; next && happened(next.taskId, next.number); ) {
			this.#seen++;
			next = this.#moments[this.#seen];
		}
		return this.#seen >= this.#before(time, inclusive);
	}

	#before(time: number, inclusive: boolean): number {
		let low = 0;
		let high = this.#moments.length;
		while (low < high) {
			const mid = (low + high) >>> 1;
			const at = (this.#moments[mid] as Moment).time;
			if (at < time || (inclusive && at === time)) low = mid + 1;
			else high = mid;
		}
		return low;
	}
}
