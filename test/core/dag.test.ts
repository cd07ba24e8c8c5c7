import { expect, test } from "vitest";
import { buildDag } from "../../src/core/dag.js";
import { CrewError } from "../../src/core/errors.js";
import { checkId } from "../../src/core/ids.js";
import { ReadyQueue } from "../../src/core/ready-queue.js";

const node = (id: string, ...dependsOn: string[]) => ({ id, dependsOn });

test("an unknown dependency is rejected naming the step and the dependency", () => {
	expect(() => buildDag([node("a"), node("b", "nope")])).toThrow("step 'b' depends on unknown step 'nope'");
});

test("a duplicate step id is rejected naming it", () => {
	expect(() => buildDag([node("a"), node("a")])).toThrow("declares step 'a' twice");
});

test("a cycle is rejected naming every step on it", () => {
	const error = (() => {
		try {
			buildDag([node("start"), node("a", "start", "c"), node("b", "a"), node("c", "b"), node("after", "c")]);
		} catch (e) {
			return e as CrewError;
		}
	})();
	expect(error).toBeInstanceOf(CrewError);
	expect(error?.code).toBe("INVALID_WORKFLOW");
	const cycle = /dependency cycle: (.*)$/.exec(error?.message ?? "")?.[1]?.split(" -> ") ?? [];
	expect(new Set(cycle)).toEqual(new Set(["a", "b", "c"]));
	expect(cycle[0]).toBe(cycle[cycle.length - 1]);
});

test("a self-dependency is rejected; an empty graph is a run with no tasks yet", () => {
	expect(() => buildDag([node("a", "a")])).toThrow("step 'a' depends on itself");
	expect(buildDag([]).order).toEqual([]);
});

test("ids outside the safe pattern are rejected where they enter", () => {
	for (const bad of ["", ".hidden", "-flag", "a/b", "../x", "a b", "x".repeat(65), "ä"]) {
		expect(() => checkId("step", bad)).toThrow(/invalid step id/);
	}
	for (const good of ["a", "A-1_b.c", "9", "x".repeat(64)]) expect(checkId("step", good)).toBe(good);
});

test("priority is the longest remaining path and the ready queue serves it first", () => {
	const dag = buildDag([node("a"), node("b"), node("c", "b"), node("d", "c")]);
	expect(dag.priority).toEqual([1, 3, 2, 1]);
	const done = new Set<number>();
	const ready = new ReadyQueue(
		dag,
		(i) => done.has(i),
		() => true,
	);
	const order: string[] = [];
	while (ready.size > 0) {
		const i = ready.pop() as number;
		order.push(dag.ids[i] as string);
		done.add(i);
		ready.complete(i, () => true);
	}
	expect(order).toEqual(["b", "c", "a", "d"]);
});

test("completing a node touches only its dependents", () => {
	const n = 1000;
	const nodes = [node("root"), ...Array.from({ length: n }, (_, i) => node(`t${i}`, "root"))];
	const dag = buildDag(nodes);
	const ready = new ReadyQueue(
		dag,
		() => false,
		() => true,
	);
	expect(ready.size).toBe(1);
	expect(ready.complete(ready.pop() as number, () => true)).toHaveLength(n);
	expect(ready.complete(1, () => true)).toEqual([]);
});
