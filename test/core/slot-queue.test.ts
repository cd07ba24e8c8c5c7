import { expect, test } from "vitest";
import { buildDag } from "../../src/core/dag.js";
import { SlotQueue } from "../../src/core/slot-queue.js";

const independent = (n: number) => buildDag(Array.from({ length: n }, (_, i) => ({ id: `t${i}`, dependsOn: [] })));

test("no more tasks run than the concurrency allows", () => {
	const slots = new SlotQueue(
		independent(5),
		Array(5).fill("w"),
		{ concurrency: 2, roleLimits: {} },
		() => false,
		() => true,
	);
	expect([slots.take(() => true), slots.take(() => true), slots.take(() => true)]).toEqual([0, 1, undefined]);
	slots.release(0);
	expect(slots.take(() => true)).toBe(2);
	expect(slots.running).toBe(2);
});

test("a role at its limit waits in its own queue while other roles take the free slots", () => {
	const roles = ["solo", "solo", "solo", "other", "other"];
	const slots = new SlotQueue(
		independent(5),
		roles,
		{ concurrency: 4, roleLimits: { solo: 1 } },
		() => false,
		() => true,
	);
	const taken: (number | undefined)[] = [];
	for (let k = 0; k < 4; k++) taken.push(slots.take(() => true));
	expect(taken).toEqual([0, 3, 4, undefined]);
	expect(slots.ready).toBe(0);
	slots.release(0);
	expect(slots.take(() => true)).toBe(1);
	slots.release(3);
	expect(slots.take(() => true)).toBeUndefined();
	slots.release(1);
	expect(slots.take(() => true)).toBe(2);
});

test("tasks that stopped being startable are dropped, not started", () => {
	const slots = new SlotQueue(
		independent(3),
		Array(3).fill("w"),
		{ concurrency: 3, roleLimits: {} },
		() => false,
		() => true,
	);
	expect(slots.take((i) => i !== 0)).toBe(1);
});
