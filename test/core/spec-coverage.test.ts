import { expect, test } from "vitest";
import { requirementRows } from "../../src/core/spec-coverage.js";

const frozen = (taskId: string, strict: boolean) => ({
	type: "spec.frozen",
	taskId,
	data: {
		specId: "s",
		version: 3,
		trusted: true,
		strict,
		items: [
			{ requirement: { id: "R1", text: "works", priority: "must" }, acceptance: { id: "A1", check: "it runs" } },
			{ requirement: { id: "R2", text: "reads well", priority: "could" }, acceptance: { id: "A2", check: "it reads" } },
		],
	},
});

test("each check of a frozen spec stands as its task's latest answer and checks left it, pending until the task ends", () => {
	const checks = (outcome: string) => ({
		type: "spec.checked",
		taskId: "a",
		data: { checks: [{ specId: "s", acceptanceId: "A1", requirementId: "R1", outcome, exitCode: 1 }] },
	});
	const events = [
		frozen("a", true),
		frozen("b", false),
		frozen("c", false),
		checks("failed"),
		{ type: "task.spec_gate", taskId: "a", data: { cited: { A1: "ran it" } } },
		checks("met"),
		{ type: "task.spec_gate", taskId: "b", data: { cited: { A2: "reads fine" } } },
	];
	const rows = requirementRows(events, (task) => task !== "c");
	expect(rows.map((r) => `${r.taskId} ${r.acceptanceId} ${r.outcome} ${r.cited}`)).toEqual([
		"a A1 met ran it",
		"a A2 unverified null",
		"b A1 unverified null",
		"b A2 cited reads fine",
		"c A1 pending null",
		"c A2 pending null",
	]);
	expect(rows[0]).toMatchObject({
		specId: "s",
		version: 3,
		strict: true,
		trusted: true,
		priority: "must",
		exitCode: 1,
	});
});
