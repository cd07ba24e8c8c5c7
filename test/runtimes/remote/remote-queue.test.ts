// @module-tag redis
// @slow: a Redis queue and workers in processes of their own, killed and restarted
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { crew, crewProcess, exitOf, isAlive, read, spenderProgram, TestRepo, waitFor } from "../../helpers.js";
import { remoteFixture } from "./remote-fixture.js";

const remote = remoteFixture();

/** A repository of a workflow `gated` whose tasks wait at their gates until `open(task)`. */
function gatedRepo(ids: readonly string[]): { repo: TestRepo; open: (id: string) => void } {
	const gates = join(new TestRepo().dir, "gates");
	mkdirSync(gates);
	const repo = repoWith(`--gate ${gates}`);
	repo.workflow(
		"gated",
		ids.map((id) => ({ id, role: "w" })),
	);
	return { repo, open: (id) => writeFileSync(join(gates, id), "") };
}

const GATED_RUN = ["run", "g", "--workflow", "gated", "--queue"];

function repoWith(flags: string): TestRepo {
	const repo = new TestRepo();
	remote.keep(repo);
	repo.agent("w", `--answer ${flags}`);
	return repo;
}

test("a DAG runs across two workers, each task once, with its result back in the store", async () => {
	const repo = repoWith("--sleep 300");
	repo.workflow("fan", [
		{ id: "a", role: "w" },
		{ id: "b1", role: "w", dependsOn: ["a"] },
		{ id: "b2", role: "w", dependsOn: ["a"] },
		{ id: "b3", role: "w", dependsOn: ["a"] },
		{ id: "b4", role: "w", dependsOn: ["a"] },
		{ id: "c", role: "w", dependsOn: ["b1", "b2", "b3", "b4"] },
	]);
	await remote.worker("A", repo.dir);
	await remote.worker("B", repo.dir);
	const run = await crew(repo.dir, ["run", "g", "--workflow", "fan", "--queue", remote.url, "--json"]);
	expect(run.code, run.stderr).toBe(0);
	const { runId } = JSON.parse(run.stdout.trim().split("\n").at(-1) as string) as { runId: string };

	const ends = repo.ends();
	expect(ends.map((e) => e.task).sort()).toEqual(["a", "b1", "b2", "b3", "b4", "c"]);
	expect(new Set(ends.map((e) => (e as { worker?: string }).worker))).toEqual(new Set(["A", "B"]));
	const { tasks } = read(repo.dir, (r) => r.status(runId));
	expect(tasks.every((t) => t.status === "completed" && t.attempts === 1)).toBe(true);
	const result = await crew(repo.dir, ["result", runId, "c"]);
	expect(result.stdout).toMatch(/^answer: Do c for g/);
	// The agent's own files came back with its result.
	expect(read(repo.dir, (r) => r.files.read(runId, "tasks/c/prompt.md"))).toContain("Do c for g");
});

test("kill -9 of a worker mid-task ends its agent; the attempt runs again on the other worker and completes once", async () => {
	const { repo, open } = gatedRepo(["only"]);
	const a = await remote.worker("A", repo.dir);
	const b = await remote.worker("B", repo.dir);
	const runner = crewProcess(repo.dir, [...GATED_RUN, remote.url]);
	const first = await waitFor("the task started on a worker", () => repo.starts("only")[0]);
	const [victim, survivor] = (first as { worker?: string }).worker === "A" ? [a, "B"] : [b, "A"];
	victim.kill("SIGKILL");
	await waitFor("the killed worker's agent ended", () => !isAlive(first.pid), 10_000);
	const second = await waitFor(
		"the attempt taken over",
		() => repo.starts("only").find((s) => (s as { worker?: string }).worker === survivor),
		20_000,
	);
	open("only");
	await exitOf(runner);
	expect(runner.exitCode).toBe(0);

	expect(repo.ends("only")).toHaveLength(1);
	expect((repo.ends("only")[0] as { worker?: string }).worker).toBe(survivor);
	const { tasks } = read(repo.dir, (r) => r.status());
	expect(tasks.map((t) => [t.id, t.status, t.attempts])).toEqual([["only", "completed", 1]]);
	expect(isAlive(second.pid)).toBe(false);
});

test("cancel mid-run stops the remote agents", async () => {
	const repo = repoWith(`--gate ${join(new TestRepo().dir, "never")}`);
	repo.workflow("pair", [
		{ id: "left", role: "w" },
		{ id: "right", role: "w" },
	]);
	await remote.worker("A", repo.dir);
	await remote.worker("B", repo.dir);
	const runner = crewProcess(repo.dir, ["run", "g", "--workflow", "pair", "--queue", remote.url]);
	await waitFor("both tasks running remotely", () => repo.starts().length === 2);
	const runId = read(repo.dir, (r) => r.repo.runs()[0]?.id) as string;
	const cancelled = await crew(repo.dir, ["cancel", runId]);
	expect(cancelled.code, cancelled.stderr).toBe(0);
	await exitOf(runner);

	expect(read(repo.dir, (r) => r.status(runId).run.status)).toBe("cancelled");
	for (const start of repo.starts()) await waitFor(`agent ${start.task} ended`, () => !isAlive(start.pid), 5_000);
});

test("kill -9 of the coordinator, then resume: it follows its attempts on the workers again, never running them twice", async () => {
	const { repo, open } = gatedRepo(["running", "finished"]);
	await remote.worker("A", repo.dir);
	const runner = crewProcess(repo.dir, [...GATED_RUN, remote.url]);
	await waitFor("both tasks started on the worker", () => repo.starts().length === 2);
	runner.kill("SIGKILL");
	await exitOf(runner);
	// While no coordinator runs, one attempt ends on its worker; the other goes on.
	open("finished");
	await waitFor("the finished attempt ended", () => repo.ends("finished").length === 1);
	const runId = read(repo.dir, (r) => r.repo.runs()[0]?.id) as string;
	const resumed = crewProcess(repo.dir, ["resume", runId]);
	await waitFor("the ended attempt recorded", () =>
		read(repo.dir, (r) => r.status(runId).tasks.some((t) => t.id === "finished" && t.status === "completed")),
	);
	const running = repo.starts("running")[0];
	expect(running && isAlive(running.pid)).toBe(true);
	open("running");
	await exitOf(resumed);
	expect(resumed.exitCode).toBe(0);
	// One start and one end each, and one attempt each in the store, its result kept.
	for (const id of ["running", "finished"]) {
		expect(repo.starts(id).map((e) => e.attempt)).toEqual([1]);
		expect(repo.ends(id).map((e) => e.attempt)).toEqual([1]);
	}
	const { tasks } = read(repo.dir, (r) => r.status(runId));
	expect(tasks.map((t) => [t.id, t.status, t.attempts])).toEqual([
		["running", "completed", 1],
		["finished", "completed", 1],
	]);
	expect((await crew(repo.dir, ["result", runId, "finished"])).stdout).toMatch(/^answer: Do finished for g/m);
});

test("a worker stopped with SIGTERM ends its agent, and the task is retried on another worker", async () => {
	const { repo, open } = gatedRepo(["only"]);
	const a = await remote.worker("A", repo.dir);
	const runner = crewProcess(repo.dir, [...GATED_RUN, remote.url]);
	const first = await waitFor("the task started on A", () => repo.starts("only")[0]);
	a.kill("SIGTERM");
	await exitOf(a);
	expect(isAlive(first.pid)).toBe(false);
	await remote.worker("B", repo.dir);
	await waitFor("the retry started on B", () => repo.starts("only").find((s) => s.attempt === 2), 20_000);
	open("only");
	await exitOf(runner);
	expect(runner.exitCode).toBe(0);
	const attempts = read(repo.dir, (r) => r.attempts(read(repo.dir, (q) => q.repo.runs()[0]?.id) as string));
	expect(attempts.map((t) => [t.number, t.status])).toEqual([
		[1, "failed"],
		[2, "completed"],
	]);
	expect(attempts[0]?.error).toMatch(/the worker is shutting down; retry 1 of 2/);
});

test("a remote agent's usage is on record as its worker reports it, and a timed-out attempt's counts against the budget", async () => {
	const repo = remote.keep(new TestRepo());
	repo.writeFile(".crew/agents/spender.md", "---\nname: spender\nruntime: pi\n---\n");
	repo.workflow("one", [{ id: "a", role: "spender", text: "spend" }]);
	// The worker's pi reports 600 tokens, then hangs until the attempt's timeout.
	await remote.worker("A", repo.dir, { ...process.env, CREW_PI: spenderProgram("pi", 600, 1) });
	const args = ["--queue", remote.url, "--budget-tokens", "1000", "--timeout", "3s", "--retries", "3", "--json"];
	const run = await crew(repo.dir, ["run", "g", "--workflow", "one", ...args]);
	expect(run.code, run.stderr).toBe(4);
	const { runId } = JSON.parse(run.stdout.trim().split("\n").at(-1) as string) as { runId: string };

	const { run: ended, tasks } = read(repo.dir, (r) => r.status(runId));
	const spent = { input: 1000, output: 200, cost: 0.02 };
	expect(tasks[0]).toMatchObject({ status: "failed", attempts: 2, error: "timed out after 3.0s", usage: spent });
	expect(ended.error).toBe("budget: 1200 of 1000 tokens");
});
