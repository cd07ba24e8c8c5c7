import { expect, test } from "vitest";
import { TestRepo, waitFor } from "../helpers.js";
import { testCrew } from "./engine-helpers.js";

/** a, then gate (needs approval), then after; side runs beside them. */
function gatedRepo(): TestRepo {
	const repo = new TestRepo().agent("worker");
	repo.workflow("gated", [
		{ id: "a" },
		{ id: "gate", dependsOn: ["a"], extra: { approval: "true" } },
		{ id: "after", dependsOn: ["gate"] },
		{ id: "side" },
	]);
	return repo;
}

test("a gated step waits, with the run waiting, until another process approves it; then the run goes on", async () => {
	const repo = gatedRepo();
	const crew = testCrew(repo);
	try {
		const runId = crew.create(await crew.plan({ goal: "g", workflow: "gated" }));
		const running = crew.execute(runId);
		await waitFor("the run to wait for approval", () => crew.run(runId).status === "waiting");
		const statuses = Object.fromEntries(crew.snapshot(runId).tasks.map((t) => [t.id, t.status]));
		expect(statuses).toEqual({ a: "completed", gate: "waiting", after: "queued", side: "completed" });
		const requested = crew.events(runId).find((e) => e.type === "approval.requested");
		expect(requested?.taskId).toBe("gate");
		expect(JSON.stringify(requested?.data)).toContain(`crew approve ${runId}`);
		expect(repo.starts("gate")).toHaveLength(0);

		const other = testCrew(repo);
		try {
			expect(other.approve(runId)).toEqual({ tasks: ["gate"], runnerAlive: true });
			expect(() => other.approve(runId)).toThrow(/nothing waiting for approval/);
		} finally {
			other.close();
		}
		expect(await running).toBe("completed");
		expect(repo.starts("gate")).toHaveLength(1);
		expect(repo.starts("a")).toHaveLength(1);
		const types = crew.events(runId).map((e) => e.type);
		expect(types).toContain("approval.granted");
		expect(types.indexOf("run.waiting")).toBeLessThan(types.lastIndexOf("run.running"));
	} finally {
		crew.close();
	}
});

test("a rejection cancels the run with the reason, and the gated step never runs", async () => {
	const repo = gatedRepo();
	const crew = testCrew(repo);
	try {
		const runId = crew.create(await crew.plan({ goal: "g", workflow: "gated" }));
		const running = crew.execute(runId);
		await waitFor("the run to wait for approval", () => crew.run(runId).status === "waiting");
		const other = testCrew(repo);
		try {
			await expect(other.reject(runId, "  ")).rejects.toThrow(/needs a reason/);
			expect(await other.reject(runId, "too risky")).toBe("cancelled");
		} finally {
			other.close();
		}
		expect(await running).toBe("cancelled");
		const { run, tasks } = crew.snapshot(runId);
		expect(run.error).toBe("rejected: too risky");
		expect(Object.fromEntries(tasks.map((t) => [t.id, t.status]))).toMatchObject({
			gate: "cancelled",
			after: "cancelled",
		});
		expect(repo.starts("gate")).toHaveLength(0);
	} finally {
		crew.close();
	}
});
