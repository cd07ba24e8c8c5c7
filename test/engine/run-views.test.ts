import { expect, test } from "vitest";
import { RunReader } from "../../src/engine/views/reader.js";
import { closeLater, storeWithRun, taskSpec } from "../store/view-fixture.js";

test("a run's changes since a view hold the run and only the tasks that changed after it, with the new seq", () => {
	const { project, store, lease } = storeWithRun([taskSpec("a"), taskSpec("b", "a"), taskSpec("c", "a")]);
	const reader = closeLater(new RunReader(project));
	const first = reader.view("run-1");
	expect(first.tasks.map((t) => t.id)).toEqual(["a", "b", "c"]);
	expect(reader.changes("run-1", 0).tasks.map((t) => t.id)).toEqual(["a", "b", "c"]);
	expect(reader.changes("run-1", first.seq)).toMatchObject({ tasks: [], seq: first.seq });

	const seq = store.appendEvent(lease, "worker.output", "b", { text: "b says hello" });
	const changed = reader.changes("run-1", first.seq);
	expect(changed.seq).toBe(seq);
	expect(changed.tasks.map((t) => [t.id, t.activity])).toEqual([["b", "b says hello"]]);
	expect(reader.changes("run-1", seq).tasks).toEqual([]);

	store.expandRun(lease, null, [taskSpec("a2", "a")], [{ taskId: "c", dependsOn: ["a", "a2"] }]);
	const grown = reader.changes("run-1", seq);
	expect(grown.tasks.map((t) => [t.id, t.dependsOn])).toEqual([
		["c", ["a", "a2"]],
		["a2", ["a"]],
	]);
	expect(grown.run.id).toBe("run-1");
});

test("a running task is in every change set, as whether its runner is alive shows without an event", () => {
	const { project, store, lease } = storeWithRun([taskSpec("a"), taskSpec("b")]);
	store.attempts.start(lease, "a", "dry-run", "m1");
	const reader = closeLater(new RunReader(project));
	const { seq } = reader.view("run-1");
	expect(reader.changes("run-1", seq).tasks.map((t) => [t.id, t.status, t.runtime, t.model])).toEqual([
		["a", "running", "dry-run", "m1"],
	]);
});

test("a task's view reads that task alone, as the run's view shows it", () => {
	const { project, store, lease } = storeWithRun([taskSpec("a"), taskSpec("b", "a")]);
	store.appendEvent(lease, "worker.assistant", "b", { text: "on it" });
	store.appendEvent(lease, "worker.usage", "b", { usage: { input: 3 } });
	const reader = closeLater(new RunReader(project));
	const { task } = reader.taskView("run-1", "b");
	expect(task).toEqual(reader.view("run-1").tasks.find((t) => t.id === "b"));
	expect(task.activity).toBe("on it");
});
