import { expect, test } from "vitest";
import { GRACE_TURNS, TurnLimit } from "../../src/runtimes/agent/turn-limit.js";

test("an agent at its turn limit is told once to wrap up, and stopped only if it is still working after the grace turns", () => {
	const told: string[] = [];
	const limit = new TurnLimit(2, (text) => told.push(text));
	limit.seen(2, false);
	expect(told).toEqual([]);
	limit.seen(2, true);
	limit.seen(3, true);
	expect(told).toHaveLength(1);
	// Its answer, past the grace turns, is not cut off.
	limit.seen(2 + GRACE_TURNS + 1, false);
	expect(limit.signal.aborted).toBe(false);
	limit.seen(2 + GRACE_TURNS + 1, true);
	expect(limit.overrun).toBe("its agent took 8 turns, past its maxTurns of 2 and 5 more to wrap up");
});
