import { expect, test } from "vitest";
import { projectAt } from "../../../src/config/project.js";
import { Crew } from "../../../src/engine/crew.js";
import { crew, isAlive, TestRepo, waitFor } from "../../helpers.js";

async function statusOf(
	dir: string,
	runId: string,
): Promise<{ run: { status: string }; tasks: { id: string; status: string }[] }> {
	return JSON.parse((await crew(dir, ["status", runId, "--json"])).stdout);
}

async function waitForStatus(dir: string, runId: string, status: string): Promise<void> {
	const until = Date.now() + 30_000;
	while ((await statusOf(dir, runId)).run.status !== status) {
		if (Date.now() > until) throw new Error(`run ${runId} never became ${status}`);
	}
}

test("an approval gate survives its runner being killed; crew approve starts a runner that finishes the run", async () => {
	const repo = new TestRepo().agent("worker");
	repo.workflow("gated", [{ id: "a" }, { id: "gate", dependsOn: ["a"], extra: { approval: "true" } }]);
	const started = await crew(repo.dir, ["run", "g", "--workflow", "gated", "--detach", "--json"]);
	expect(started.code).toBe(0);
	const { runId } = JSON.parse(started.stdout.trim().split("\n").pop() ?? "{}");
	await waitForStatus(repo.dir, runId, "waiting");

	const reader = new Crew({ project: projectAt(repo.dir) });
	const pid = reader.run(runId).lease?.pid ?? 0;
	reader.close();
	expect(pid).toBeGreaterThan(0);
	process.kill(pid, "SIGKILL");
	await waitFor("the runner to die", () => !isAlive(pid));
	const paused = await statusOf(repo.dir, runId);
	expect(paused.run.status).toBe("waiting");
	expect(paused.tasks.map((t) => [t.id, t.status])).toEqual([
		["a", "completed"],
		["gate", "waiting"],
	]);

	const approved = await crew(repo.dir, ["approve", runId]);
	expect(approved.code).toBe(0);
	expect(approved.stdout).toContain("approved: gate");
	expect(approved.stdout).toMatch(/in the background/);
	await waitForStatus(repo.dir, runId, "completed");
	expect(repo.starts("a")).toHaveLength(1);
	expect(repo.starts("gate")).toHaveLength(1);

	const again = await crew(repo.dir, ["approve", runId]);
	expect(again.code).toBe(1);
	expect(again.stderr).toMatch(/is completed; there is nothing to approve/);
});

test("crew reject cancels a waiting run with the reason; reject needs one", async () => {
	const repo = new TestRepo().agent("worker");
	repo.workflow("gated", [{ id: "gate", extra: { approval: "true" } }]);
	const started = await crew(repo.dir, ["run", "g", "--workflow", "gated", "--detach", "--json"]);
	const { runId } = JSON.parse(started.stdout.trim().split("\n").pop() ?? "{}");
	await waitForStatus(repo.dir, runId, "waiting");
	expect((await crew(repo.dir, ["reject", runId])).code).toBe(2);
	const rejected = await crew(repo.dir, ["reject", runId, "--reason", "not now"]);
	expect(rejected.code).toBe(0);
	expect(rejected.stdout).toContain("cancelled: rejected: not now");
	const reader = new Crew({ project: projectAt(repo.dir) });
	expect(reader.run(runId)).toMatchObject({ status: "cancelled", error: "rejected: not now" });
	reader.close();
	expect(repo.starts("gate")).toHaveLength(0);
});
