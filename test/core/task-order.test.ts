import { expect, test } from "vitest";
import { taskOrder } from "../../src/core/task-order.js";

const task = (id: string, dependsOn: string[] = [], phase: string | null = null) => ({ id, dependsOn, phase });
const ids = (tasks: readonly { id: string }[]) => tasks.map((t) => t.id);

test("tasks that were declared after what they wait for keep their declared order", () => {
	const declared = [task("plan"), task("left", ["plan"]), task("right", ["plan"]), task("join", ["left", "right"])];
	expect(ids(taskOrder(declared))).toEqual(["plan", "left", "right", "join"]);
});

test("a planner's dependent comes after the tasks its plan added after it", () => {
	const tasks = [
		task("assess"),
		task("report", ["assess", "assess.1.1", "assess.2.1"]),
		task("assess.1.1", ["assess"]),
		task("assess.2.1", ["assess.1.1"]),
	];
	expect(ids(taskOrder(tasks))).toEqual(["assess", "assess.1.1", "assess.2.1", "report"]);
});

test("each --until pass reads as a block, not interleaved with the next", () => {
	const tasks = [
		task("work"),
		task("check", ["work"]),
		task("until.1", ["check"]),
		task("work.2"),
		task("check.2", ["work.2"]),
		task("until.2", ["check.2"]),
	];
	expect(ids(taskOrder(tasks))).toEqual(["work", "check", "until.1", "work.2", "check.2", "until.2"]);
});

test("a script's phases stay together wherever their dependencies allow", () => {
	const tasks = [
		task("build-a", [], "build"),
		task("lint-1", [], "lint"),
		task("build-b", [], "build"),
		task("lint-2", ["lint-1"], "lint"),
		task("ship", ["build-a", "build-b", "lint-2"], "ship"),
	];
	expect(ids(taskOrder(tasks))).toEqual(["build-a", "build-b", "lint-1", "lint-2", "ship"]);
});

test("dependencies outside the list are ignored and a cycle leaves its tasks in joining order", () => {
	expect(ids(taskOrder([task("b", ["gone"]), task("a")]))).toEqual(["b", "a"]);
	const cyclic = [task("x", ["z"]), task("free"), task("y", ["x"]), task("z", ["y"])];
	expect(ids(taskOrder(cyclic))).toEqual(["free", "x", "y", "z"]);
	expect(taskOrder([])).toEqual([]);
});

test("a dependency named twice counts once", () => {
	const tasks = [task("late", ["early", "early"]), task("early")];
	expect(ids(taskOrder(tasks))).toEqual(["early", "late"]);
});
