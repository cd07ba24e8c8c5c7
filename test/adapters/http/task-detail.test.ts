import { expect, test } from "vitest";
import { taskDetail } from "../../../src/adapters/http/task-detail.js";
import { RunReader } from "../../../src/engine/views/reader.js";
import { closeLater, storeWithRun, taskSpec } from "../../store/view-fixture.js";

test("the task panel of a task with more events than its log holds shows the latest lines", () => {
	const { project, store, lease } = storeWithRun([taskSpec("a"), taskSpec("b")]);
	const attempt = store.attempts.start(lease, "a", "dry-run");
	store.batch(() => {
		for (let i = 1; i <= 12_000; i++) {
			store.appendEvent(lease, "worker.output", "a", { text: `line ${i}` });
			store.appendEvent(lease, "worker.output", "b", { text: `other ${i}` });
		}
	});
	store.attempts.settle(lease, {
		taskId: "a",
		attemptId: attempt.id,
		attemptStatus: "completed",
		taskStatus: "completed",
		cause: "settle",
	});
	const detail = taskDetail(closeLater(new RunReader(project)), "run-1", "a");
	const texts = detail.log.map((line) => line.text);
	expect(texts).toHaveLength(2000);
	expect(texts.at(-1)).toBe("completed");
	expect(texts.at(-2)).toBe("line 12000");
	expect(texts[0]).toBe("line 10002");
	expect(detail.attempts.map((a) => a.status)).toEqual(["completed"]);
	expect(detail.task).toMatchObject({ id: "a", status: "completed", activity: "line 12000" });
});
