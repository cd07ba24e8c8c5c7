import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { verdictOf } from "../../src/core/verdict.js";
import { TestRepo, waitFor } from "../helpers.js";
import { runWorkflow, testCrew } from "./engine-helpers.js";

/** A command agent whose command line is `command`. */
function withAgent(repo: TestRepo, name: string, command: string): TestRepo {
	repo.writeFile(`.crew/agents/${name}.md`, `---\nname: ${name}\nruntime: command\ncommand: ${command}\n---\n`);
	return repo;
}

test("a verdict is the last line that says only PASS or FAIL", () => {
	expect(verdictOf("ran the tests\n# pass 3\nPASS\n")).toBe("PASS");
	expect(verdictOf("## Summary\n**FAIL**\nthe build breaks")).toBe("FAIL");
	expect(verdictOf("Verdict: pass.")).toBe("PASS");
	expect(verdictOf("PASS\nthen it broke\nFAIL")).toBe("FAIL");
	expect(verdictOf("everything passed, no FAILures")).toBeUndefined();
	expect(verdictOf("")).toBeUndefined();
});

test("verify: true completes on a PASS verdict and fails, unretried, on FAIL or on no verdict", async () => {
	const repo = new TestRepo();
	withAgent(repo, "passer", "echo 'ran the checks'; echo PASS");
	withAgent(repo, "failer", "echo 'two tests fail'; echo FAIL");
	withAgent(repo, "mute", "echo 'all looks fine to me'");
	repo.workflow("checks", [
		{ id: "pass", role: "passer", extra: { verify: "true" } },
		{ id: "fail", role: "failer", extra: { verify: "true" } },
		{ id: "mute", role: "mute", extra: { verify: "true" } },
	]);
	const outcome = await runWorkflow(repo, { workflow: "checks", failure: "continue" });
	expect(outcome.tasks.get("pass")).toMatchObject({ status: "completed", attempts: 1 });
	expect(outcome.tasks.get("fail")).toMatchObject({ status: "failed", attempts: 1, error: "the verdict is FAIL" });
	expect(outcome.tasks.get("mute")).toMatchObject({ status: "failed", attempts: 1 });
	expect(outcome.tasks.get("mute")?.error).toMatch(/no verdict/);
});

test("a verify command that fails is retried with its output given to the agent, then passes", async () => {
	const repo = new TestRepo();
	// The agent keeps each prompt it gets, and does the work only from its second attempt on.
	withAgent(
		repo,
		"fixer",
		'cat > "prompt-$CREW_ATTEMPT.txt"; if [ "$CREW_ATTEMPT" -ge 2 ]; then echo ok > fixed.txt; fi; echo done',
	);
	repo.workflow("fix", [
		{ id: "fix", role: "fixer", extra: { verify: 'test -f fixed.txt || { echo "fixed.txt is missing"; exit 1; }' } },
	]);
	const outcome = await runWorkflow(repo, { workflow: "fix" });
	expect(outcome.status).toBe("completed");
	expect(outcome.tasks.get("fix")).toMatchObject({ status: "completed", attempts: 2 });
	expect(readFileSync(join(repo.dir, "prompt-1.txt"), "utf8")).not.toContain("did not pass");
	const second = readFileSync(join(repo.dir, "prompt-2.txt"), "utf8");
	expect(second).toContain("## Your previous attempt did not pass its check");
	expect(second).toMatch(/<check-output chars="\d+">\nfixed.txt is missing\n<\/check-output>/);
	const dir = join(repo.dir, ".crew", "runs", outcome.runId, "tasks", "fix", "check");
	expect(readFileSync(join(dir, "attempt-1.output.txt"), "utf8")).toBe("fixed.txt is missing\n");
	expect(readFileSync(join(dir, "attempt-2.output.txt"), "utf8")).toBe("");
	const retry = outcome.events.find((e) => e.type === "task.queued" && e.taskId === "fix");
	expect(JSON.stringify(retry?.data)).toMatch(/the check .* failed/);
});

test("a verify command that never passes fails the task once its retries are used, keeping the evidence", async () => {
	const repo = new TestRepo();
	withAgent(repo, "worker", "echo did my best");
	repo.workflow("fix", [{ id: "fix", role: "worker", extra: { verify: "echo 'still broken' && exit 3" } }]);
	const outcome = await runWorkflow(repo, { workflow: "fix", retries: 1 });
	expect(outcome.status).toBe("failed");
	const task = outcome.tasks.get("fix");
	expect(task).toMatchObject({ status: "failed", attempts: 2 });
	expect(task?.error).toMatch(/^the check `echo 'still broken' && exit 3` failed/);
	const evidence = join(repo.dir, ".crew", "runs", outcome.runId, "tasks", "fix", "check", "attempt-2.output.txt");
	expect(existsSync(evidence) && readFileSync(evidence, "utf8")).toBe("still broken\n");
});

test("the check's output reaches the next attempt even when another runner makes it", async () => {
	const repo = new TestRepo();
	withAgent(
		repo,
		"fixer",
		'cat > "prompt-$CREW_ATTEMPT.txt"; if [ "$CREW_ATTEMPT" -ge 2 ]; then echo ok > fixed.txt; fi; echo done',
	);
	repo.workflow("fix", [
		{ id: "fix", role: "fixer", extra: { verify: 'test -f fixed.txt || { echo "still missing"; exit 1; }' } },
	]);
	// A long backoff, so the first runner is stopped before it makes the retry itself.
	const first = testCrew(repo, { retryPolicy: { baseMs: 60_000, factor: 2, maxMs: 60_000, jitter: 0 } });
	const runId = first.create(await first.plan({ goal: "g", workflow: "fix" }));
	const controller = new AbortController();
	const running = first.execute(runId, { signal: controller.signal });
	await waitFor("the first check to fail", () =>
		first.events(runId).some((e) => e.type === "task.queued" && e.taskId === "fix"),
	);
	controller.abort(new Error("stop"));
	expect(await running).toBe("cancelled");
	first.close();

	const second = testCrew(repo);
	try {
		expect(await second.execute(runId)).toBe("completed");
	} finally {
		second.close();
	}
	expect(readFileSync(join(repo.dir, "prompt-2.txt"), "utf8")).toContain("still missing");
});

test("a verify command reads the agent's answer on its standard input", async () => {
	const repo = new TestRepo();
	withAgent(repo, "reporter", "echo 'STATUS: DONE'");
	withAgent(repo, "vague", "echo 'still working on it'");
	repo.workflow("answers", [
		{ id: "done", role: "reporter", extra: { verify: "grep -q 'STATUS: DONE'", retries: "0" } },
		{ id: "open", role: "vague", extra: { verify: "grep -q 'STATUS: DONE'", retries: "0" } },
	]);
	const outcome = await runWorkflow(repo, { workflow: "answers", failure: "continue" });
	expect(outcome.tasks.get("done")).toMatchObject({ status: "completed", attempts: 1 });
	expect(outcome.tasks.get("open")).toMatchObject({ status: "failed", attempts: 1 });
});
