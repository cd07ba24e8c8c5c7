import { expect, test } from "vitest";
import { Cause, canTransitionTask, isTerminalTask, satisfiesDependents, TaskStatus } from "../../src/core/status.js";

const statuses = Object.values(TaskStatus);
const causes = Object.values(Cause);

test("a completed task never changes status, whatever the cause", () => {
	for (const to of statuses) for (const cause of causes) expect(canTransitionTask("completed", to, cause)).toBe(false);
});

test("failed, cancelled, skipped and needs_attention tasks leave their status only by an explicit resume or retry", () => {
	for (const from of ["failed", "cancelled", "skipped", "needs_attention"] as const) {
		for (const cause of causes) {
			expect(canTransitionTask(from, "queued", cause)).toBe(cause === "resume" || cause === "retry");
		}
		for (const to of statuses) if (to !== "queued") expect(canTransitionTask(from, to, "resume")).toBe(false);
	}
});

test("a running task goes back to queued only for a retry backoff", () => {
	for (const cause of causes) expect(canTransitionTask("running", "queued", cause)).toBe(cause === "backoff");
});

test("needs_attention is terminal, reached only from running, and satisfies its dependents as completed does", () => {
	expect(isTerminalTask("needs_attention")).toBe(true);
	for (const from of statuses) {
		expect(canTransitionTask(from, "needs_attention", "settle")).toBe(from === "running");
	}
	expect(statuses.filter(satisfiesDependents)).toEqual(["completed", "needs_attention"]);
});
