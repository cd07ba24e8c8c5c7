import { expect, test } from "vitest";
import { Cause, RunStatus } from "../../src/core/status.js";
import { RunReader } from "../../src/engine/views/reader.js";
import { currentProcess } from "../../src/store/process-identity.js";
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

test("a run that ends while it is read reads as ended, not as left by a gone runner", () => {
	// The runner's identity names a start time this pid never had: to readers, that runner is gone.
	const gone = { ...currentProcess(), startTime: "0" };
	const reads: ((reader: RunReader, id: string) => string)[] = [
		(reader, id) => reader.status(id).run.status,
		(reader, id) => reader.run(id).status,
		(reader, id) => reader.view(id).run.status,
		(reader, id) => JSON.parse(reader.statusJson(id)).run.status,
	];
	for (const [n, read] of reads.entries()) {
		const { project, store, lease } = storeWithRun([taskSpec("a")], `run-${n}`, gone);
		let ended = false;
		// The runner records the run's end, and exits, just as the reader has read the run going on.
		const now = () => {
			if (!ended) store.finishRun(lease, RunStatus.Completed, Cause.Settle);
			ended = true;
			return Date.now();
		};
		expect(read(closeLater(new RunReader(project, { now })), `run-${n}`), `read ${n}`).toBe("completed");
	}
	// A run whose runner is gone without an end reads as interrupted.
	const left = storeWithRun([taskSpec("a")], "run-left", gone);
	expect(closeLater(new RunReader(left.project)).status("run-left").run).toMatchObject({
		status: "interrupted",
		error: `runner pid ${process.pid} is gone`,
	});
});
