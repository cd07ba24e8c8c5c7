import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { TestRepo } from "../helpers.js";
import { runWorkflow, statuses, testCrew } from "./engine-helpers.js";

test("a run cancelled before its runner starts it is never started", async () => {
	const repo = new TestRepo().agent("worker");
	repo.workflow("one", [{ id: "a" }]);
	const crew = testCrew(repo);
	try {
		const runId = crew.create(await crew.plan({ goal: "g", workflow: "one" }));
		expect(await crew.cancel(runId, "changed my mind")).toBe("cancelled");
		await expect(crew.execute(runId, { onlyIfQueued: true })).rejects.toThrow(
			/is cancelled, not queued; not starting it/,
		);
		expect(crew.snapshot(runId).tasks.map((t) => t.status)).toEqual(["cancelled"]);
		expect(repo.starts()).toEqual([]);
	} finally {
		crew.close();
	}
});

test("a task whose files cannot be stored fails with that error, and the run goes on", async () => {
	const repo = new TestRepo().agent("worker");
	repo.workflow("two", [{ id: "blocked" }, { id: "fine" }]);
	const crew = testCrew(repo);
	try {
		const runId = crew.create(await crew.plan({ goal: "g", workflow: "two", failure: "continue" }));
		// A folder where the result file should go makes writing it fail, as a full disk would.
		mkdirSync(join(repo.dir, ".crew", "runs", runId, "tasks", "blocked", "result.md"), { recursive: true });
		expect(await crew.execute(runId)).toBe("failed");
		const tasks = crew.snapshot(runId).tasks;
		expect(tasks.map((t) => t.status)).toEqual(["failed", "completed"]);
		expect(tasks[0]?.error).toMatch(/^worker error: cannot store the task's files: EISDIR/);
	} finally {
		crew.close();
	}
});

test("draining does not wait out a pending retry", async () => {
	// broken fails well after flaky's first failure, even on a loaded machine, so a retry is pending when the run drains.
	const repo = new TestRepo().agent("flaky", "--fail-first 5").agent("broken", "--sleep 2500 --exit 1");
	repo.workflow("mix", [
		{ id: "flaky", role: "flaky" },
		{ id: "broken", role: "broken" },
	]);
	const started = Date.now();
	const outcome = await runWorkflow(
		repo,
		{ workflow: "mix", retries: 3 },
		{ engine: { retryPolicy: { baseMs: 20_000, factor: 2, maxMs: 20_000, jitter: 0 } } },
	);
	expect(Date.now() - started).toBeLessThan(15_000);
	expect(statuses(outcome)).toEqual({ flaky: "skipped", broken: "failed" });
	expect(outcome.tasks.get("flaky")?.attempts).toBe(1);
});

test("retry refuses a task whose own dependency did not complete, naming it", async () => {
	const repo = new TestRepo().agent("broken", "--exit 1").agent("worker");
	repo.workflow("pair", [
		{ id: "first", role: "broken" },
		{ id: "second", role: "worker", dependsOn: ["first"] },
	]);
	const outcome = await runWorkflow(repo, { workflow: "pair" });
	expect(statuses(outcome)).toEqual({ first: "failed", second: "skipped" });
	const crew = testCrew(repo);
	try {
		await expect(crew.retry(outcome.runId, "second")).rejects.toThrow(
			"task second depends on first, which is failed; retry first first",
		);
	} finally {
		crew.close();
	}
});

test("resuming a failed run runs only what did not complete", async () => {
	const repo = new TestRepo().agent("worker");
	repo.writeFile(".crew/agents/picky.md", "---\nruntime: command\ncommand: test -f ready && echo ok\n---\n");
	repo.workflow("fix", [
		{ id: "a" },
		{ id: "fragile", role: "picky", dependsOn: ["a"] },
		{ id: "after", dependsOn: ["fragile"] },
		{ id: "side", dependsOn: ["a"] },
	]);
	const first = await runWorkflow(repo, { workflow: "fix", failure: "continue" });
	expect(statuses(first)).toEqual({ a: "completed", fragile: "failed", after: "skipped", side: "completed" });
	repo.writeFile("ready", "");
	const crew = testCrew(repo);
	try {
		expect(await crew.execute(first.runId)).toBe("completed");
	} finally {
		crew.close();
	}
	expect(repo.starts("a")).toHaveLength(1);
	expect(repo.starts("side")).toHaveLength(1);
	expect(repo.starts("after")).toHaveLength(1);
});
