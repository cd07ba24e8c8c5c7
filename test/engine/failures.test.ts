import { expect, test } from "vitest";
import { isAlive, TestRepo, waitFor } from "../helpers.js";
import { runWorkflow, statuses } from "./engine-helpers.js";

/** fail breaks at once while slow is running; dep needs fail; later needs slow. */
function policyRepo(): TestRepo {
	const repo = new TestRepo().agent("failer", "--exit 3").agent("slow", "--sleep 700").agent("worker");
	repo.workflow("policy", [
		{ id: "slow", role: "slow" },
		{ id: "fail", role: "failer" },
		{ id: "dep", dependsOn: ["fail"] },
		{ id: "later", dependsOn: ["slow"] },
	]);
	return repo;
}

test("drain: running tasks finish and are saved, nothing new starts, the run fails", async () => {
	const repo = policyRepo();
	const outcome = await runWorkflow(repo, { workflow: "policy", concurrency: 2, failure: "drain" });
	expect(outcome.status).toBe("failed");
	expect(statuses(outcome)).toEqual({ slow: "completed", fail: "failed", dep: "skipped", later: "skipped" });
	expect(outcome.tasks.get("fail")?.error).toMatch(/^exit code 3: failing with 3 as asked/);
	expect(outcome.tasks.get("later")?.error).toMatch(/task fail failed and the run is draining/);
	expect(outcome.runError).toMatch(/task fail failed: exit code 3/);
	expect(
		repo
			.starts()
			.map((e) => e.task)
			.sort(),
	).toEqual(["fail", "slow"]);
});

test("continue: independent branches go on, only dependents of the failure are skipped", async () => {
	const repo = policyRepo();
	const outcome = await runWorkflow(repo, { workflow: "policy", concurrency: 2, failure: "continue" });
	expect(outcome.status).toBe("failed");
	expect(statuses(outcome)).toEqual({ slow: "completed", fail: "failed", dep: "skipped", later: "completed" });
	expect(outcome.tasks.get("dep")?.error).toBe("dependency fail failed");
});

test("abort: running tasks are cancelled at once and their processes end", async () => {
	const repo = policyRepo();
	const started = Date.now();
	const outcome = await runWorkflow(repo, { workflow: "policy", concurrency: 2, failure: "abort" });
	expect(outcome.status).toBe("failed");
	expect(statuses(outcome)).toEqual({ slow: "cancelled", fail: "failed", dep: "cancelled", later: "cancelled" });
	expect(outcome.tasks.get("slow")?.error).toBe("aborted: task fail failed");
	expect(Date.now() - started).toBeLessThan(5000);
	for (const entry of repo.starts()) expect(isAlive(entry.pid)).toBe(false);
});

test("a retryable failure is retried with growing backoff until it succeeds", async () => {
	const repo = new TestRepo().agent("worker", "--fail-first 2");
	repo.workflow("flaky", [{ id: "flaky" }]);
	const outcome = await runWorkflow(repo, { workflow: "flaky", retries: 2 });
	expect(outcome.status).toBe("completed");
	expect(outcome.tasks.get("flaky")?.attempts).toBe(3);
	const entries = repo.entries();
	const ends = entries.filter((e) => e.event === "end").map((e) => e.time);
	const starts = entries.filter((e) => e.event === "start").map((e) => e.time);
	// Backoff base 50 ms, factor 2, no jitter: at least 50 ms, then at least 100 ms between attempts.
	expect((starts[1] ?? 0) - (ends[0] ?? 0)).toBeGreaterThanOrEqual(50);
	expect((starts[2] ?? 0) - (ends[1] ?? 0)).toBeGreaterThanOrEqual(100);
	const retries = outcome.events.filter((e) => e.type === "task.queued" && e.data.cause === "backoff");
	expect(retries.map((e) => e.data.error)).toEqual([
		expect.stringMatching(/exit code 75: temporary failure on attempt 1; retry 1 of 2 in 50ms/),
		expect.stringMatching(/exit code 75: temporary failure on attempt 2; retry 2 of 2 in 100ms/),
	]);
});

test("a retryable failure stops being retried when its retries are used up", async () => {
	const repo = new TestRepo().agent("worker", "--fail-first 5");
	repo.workflow("flaky", [{ id: "flaky", extra: { retries: "1" } }]);
	const outcome = await runWorkflow(repo, { workflow: "flaky", retries: 4 });
	expect(outcome.tasks.get("flaky")).toMatchObject({ status: "failed", attempts: 2 });
});

test("a failure not marked retryable is never retried", async () => {
	const repo = new TestRepo().agent("worker", "--exit 1");
	repo.workflow("broken", [{ id: "broken" }]);
	const outcome = await runWorkflow(repo, { workflow: "broken", retries: 3 });
	expect(outcome.tasks.get("broken")).toMatchObject({ status: "failed", attempts: 1 });
	expect(repo.starts()).toHaveLength(1);
});

test("the wall-clock timeout ends a hung worker and fails the task", async () => {
	const repo = new TestRepo().agent("worker", "--hang --grandchild");
	repo.workflow("hung", [{ id: "hung", extra: { timeout: "400ms" } }]);
	const outcome = await runWorkflow(repo, { workflow: "hung", retries: 0 });
	expect(outcome.tasks.get("hung")).toMatchObject({ status: "failed", error: "timed out after 400ms" });
	const [start] = repo.starts();
	expect(isAlive(start?.pid ?? 0)).toBe(false);
	expect(isAlive(start?.grandchild ?? 0)).toBe(false);
});

test("the stall timeout ends a worker that stops producing output", async () => {
	const repo = new TestRepo().agent("worker", "--silent-hang");
	repo.workflow("quiet", [{ id: "quiet" }]);
	const outcome = await runWorkflow(repo, { workflow: "quiet", retries: 0, stallTimeoutMs: 400 });
	expect(outcome.tasks.get("quiet")).toMatchObject({ status: "failed", error: "no output for 400ms" });
	expect(isAlive(repo.starts()[0]?.pid ?? 0)).toBe(false);
});

test("a worker that keeps producing output is not stalled, however long it runs", async () => {
	const repo = new TestRepo().agent("worker", "--chatty --chatty-ms 1200");
	repo.workflow("chatty", [{ id: "chatty" }]);
	const outcome = await runWorkflow(repo, { workflow: "chatty", retries: 0, stallTimeoutMs: 400 });
	expect(outcome.tasks.get("chatty")?.status).toBe("completed");
});

test("cancel ends every worker, grandchildren and SIGTERM-ignorers included", async () => {
	const repo = new TestRepo().agent("worker", "--hang --grandchild --ignore-term");
	repo.workflow("stuck", [{ id: "a" }, { id: "b" }, { id: "c" }, { id: "d", dependsOn: ["a"] }]);
	const controller = new AbortController();
	const running = runWorkflow(repo, { workflow: "stuck", concurrency: 3 }, { signal: controller.signal });
	await waitFor("three workers", () => repo.starts().length === 3);
	controller.abort(new Error("stop now"));
	const outcome = await running;
	expect(outcome.status).toBe("cancelled");
	expect(statuses(outcome)).toEqual({ a: "cancelled", b: "cancelled", c: "cancelled", d: "cancelled" });
	expect(outcome.tasks.get("d")?.error).toBe("stop now");
	for (const entry of repo.starts()) {
		expect(isAlive(entry.pid)).toBe(false);
		expect(isAlive(entry.grandchild ?? 0)).toBe(false);
	}
});

test("a helper a worker started outside its process group ends with the worker", async () => {
	const repo = new TestRepo().agent("worker", "--escape");
	repo.workflow("one", [{ id: "a" }]);
	const outcome = await runWorkflow(repo, { workflow: "one" });
	expect(outcome.status).toBe("completed");
	const [start] = repo.starts();
	expect(start?.escaped).toBeGreaterThan(0);
	expect(isAlive(start?.escaped ?? 0)).toBe(false);
});

/** A command agent `name` whose command line is `command`, and a workflow of one step it runs. */
function commandRepo(command: string): TestRepo {
	const repo = new TestRepo();
	repo.writeFile(".crew/agents/cmd.md", `---\nname: cmd\nruntime: command\ncommand: ${command}\n---\n`);
	return repo.workflow("one", [{ id: "a", role: "cmd" }]);
}

test("a failed command with nothing on stderr shows the tail of its stdout", async () => {
	const repo = commandRepo(`printf 'step one\\nstep two\\nthe widget is broken\\n'; exit 4`);
	const outcome = await runWorkflow(repo, { workflow: "one", retries: 0 });
	expect(outcome.tasks.get("a")?.error).toBe("exit code 4: step one | step two | the widget is broken");
});

test("a failed command shows the tail of its stderr, not only its last line", async () => {
	const repo = commandRepo(
		`printf 'ignored on stdout\\n'; printf 'E: disk full writing out.bin\\n  at step 3\\n' >&2; exit 2`,
	);
	const outcome = await runWorkflow(repo, { workflow: "one", retries: 0 });
	expect(outcome.tasks.get("a")?.error).toBe("exit code 2: E: disk full writing out.bin | at step 3");
});
