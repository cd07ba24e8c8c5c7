// @slow: each exit code is shown by a real run in a crew process: failure, SIGINT, incomplete integration
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, test } from "vitest";
import {
	cancelLiveRuns,
	conflictingWorktrees,
	crew,
	crewProcess,
	gitRepo,
	servedApp,
	spenderProgram,
	TestRepo,
	waitFor,
} from "../../helpers.js";

const repos: TestRepo[] = [];
afterEach(async () => {
	for (const repo of repos.splice(0)) await cancelLiveRuns(repo.dir);
});

function lastJson(stdout: string): { runId: string; status: string } {
	return JSON.parse(stdout.trim().split("\n").at(-1) ?? "{}");
}

test("bad input exits 2: an unknown option or workflow, a bad value, a run or task that does not exist", async () => {
	const repo = new TestRepo().agent("worker");
	repo.workflow("one", [{ id: "a" }]);
	const cases = [
		["run", "g", "--workflow", "one", "--no-such-flag"],
		["run", "g", "--workflow", "nowhere"],
		["run", "g", "--workflow", "one", "--concurrency", "zero"],
		["run", "g", "--workflow", "one", "--runtime", "telepathy"],
		["status", "20990101-000000-abcdef"],
		["resume", "not an id"],
		["plan", "g", "--workflow", "one", "--team", "nobody"],
	];
	const codes = [];
	for (const args of cases) codes.push((await crew(repo.dir, args)).code);
	expect(codes).toEqual(cases.map(() => 2));
	const done = await crew(repo.dir, ["run", "g", "--workflow", "one", "--json"]);
	expect((await crew(repo.dir, ["result", lastJson(done.stdout).runId, "zz"])).code).toBe(2);
});

test("a failed run exits 1; a completed one 0, with no next command", async () => {
	const repo = new TestRepo().agent("worker").agent("broken", "--exit 3");
	repo.workflow("one", [{ id: "a" }]);
	repo.workflow("bad", [{ id: "a", role: "broken" }]);
	const ok = await crew(repo.dir, ["run", "g", "--workflow", "one"]);
	expect(ok.code).toBe(0);
	expect(ok.stdout).not.toContain("next:");
	const failed = await crew(repo.dir, ["run", "g", "--workflow", "bad"]);
	expect(failed.code).toBe(1);
	expect(failed.stdout).toMatch(/run \S+ failed in/);
});

test("SIGINT on a foreground run exits 130, the summary says crew resume, and the run resumes to completion", async () => {
	const repo = new TestRepo();
	repos.push(repo);
	const gates = mkdtempSync(join(tmpdir(), "crew-gates-"));
	repo.agent("worker", `--gate ${gates}`);
	repo.workflow("pair", [{ id: "a" }, { id: "b", dependsOn: ["a"] }]);
	const runner = crewProcess(repo.dir, ["run", "g", "--workflow", "pair"]);
	let stdout = "";
	runner.stdout?.on("data", (chunk) => {
		stdout += chunk;
	});
	const exited = new Promise<number | null>((resolve) => runner.once("exit", resolve));
	await waitFor("a to start", () => repo.starts("a")[0]);
	runner.kill("SIGINT");
	expect(await exited).toBe(130);
	const runId = /run (\S+):/.exec(stdout)?.[1] as string;
	expect(stdout.trim().split("\n").at(-1)).toBe(`next: crew resume ${runId}`);

	writeFileSync(join(gates, "a"), "");
	writeFileSync(join(gates, "b"), "");
	const resumed = await crew(repo.dir, ["resume", runId]);
	expect(resumed.code, resumed.stderr).toBe(0);
	const status = JSON.parse((await crew(repo.dir, ["status", runId, "--json"])).stdout);
	expect(status.run.status).toBe("completed");
	expect(status.tasks.map((t: { status: string }) => t.status)).toEqual(["completed", "completed"]);
});

test("a run whose tasks completed but whose integration is incomplete exits 3 and says crew resume", async () => {
	const repo = conflictingWorktrees();
	const run = await crew(repo.dir, [
		"run",
		"g",
		"--workflow",
		"pair",
		"--workspace",
		"worktree",
		"--integration",
		"manual",
	]);
	expect(run.code, run.stderr).toBe(3);
	const runId = /run (\S+):/.exec(run.stdout)?.[1] as string;
	expect(run.stdout).toMatch(/integration incomplete/);
	expect(run.stdout.trim().split("\n").at(-1)).toBe(`next: crew resume ${runId}`);
	const watched = await crew(repo.dir, ["watch", runId]);
	expect(watched.code).toBe(3);
});

test("a completed worktree run's summary ends with crew merge", async () => {
	const repo = gitRepo().agent("worker");
	repo.workflow("one", [{ id: "a" }]);
	const run = await crew(repo.dir, ["run", "g", "--workflow", "one", "--workspace", "worktree", "--allow-dirty"]);
	expect(run.code, run.stderr).toBe(0);
	const runId = /run (\S+):/.exec(run.stdout)?.[1] as string;
	expect(run.stdout.trim().split("\n").at(-1)).toBe(`next: crew merge ${runId}`);
});

test("a run stopped by its budget needs a person: it exits 4", async () => {
	const repo = new TestRepo();
	repos.push(repo);
	repo.writeFile(".crew/agents/spender.md", "---\nname: spender\nruntime: pi\n---\n");
	repo.workflow("one", [{ id: "a", role: "spender", text: "spend" }]);
	const env = { ...process.env, CREW_PI: spenderProgram("pi", 600, 1) };
	const args = ["run", "g", "--workflow", "one", "--budget-tokens", "500", "--failure", "abort"];
	const run = await crew(repo.dir, args, 60_000, env);
	expect(run.code, run.stdout + run.stderr).toBe(4);
	expect(run.stdout).toMatch(/run \S+ failed in .*\n.*budget: /);
	const json = await crew(repo.dir, [...args, "--json"], 60_000, env);
	expect(json.code).toBe(4);
	expect(lastJson(json.stdout).status).toBe("failed");
});

test("a foreground run left waiting only for approval stops: it exits 4, says crew approve, and approve finishes it", async () => {
	const repo = new TestRepo().agent("worker");
	repos.push(repo);
	repo.workflow("gated", [{ id: "a" }, { id: "side" }, { id: "gate", dependsOn: ["a"], extra: { approval: "true" } }]);
	const run = await crew(repo.dir, ["run", "g", "--workflow", "gated"]);
	expect(run.code, run.stdout + run.stderr).toBe(4);
	const runId = /run (\S+):/.exec(run.stdout)?.[1] as string;
	expect(run.stdout.trim().split("\n").at(-1)).toBe(`next: crew approve ${runId}`);
	const waiting = JSON.parse((await crew(repo.dir, ["status", runId, "--json"])).stdout);
	expect(waiting.run.status).toBe("waiting");
	expect(waiting.tasks.map((t: { id: string; status: string }) => `${t.id}:${t.status}`)).toEqual([
		"a:completed",
		"side:completed",
		"gate:waiting",
	]);
	const approved = await crew(repo.dir, ["approve", runId]);
	expect(approved.code, approved.stderr).toBe(0);
	expect(approved.stdout).toMatch(/in the background/);
	expect((await crew(repo.dir, ["watch", runId])).code).toBe(0);
	expect(repo.starts("gate")).toHaveLength(1);
	expect(repo.starts("a")).toHaveLength(1);
});

test("the CLI's JSON and the HTTP API's show a run alike: crew runs --json as GET /api/runs, crew status --json as GET /api/runs/<id>", async () => {
	const repo = new TestRepo().agent("worker");
	repo.workflow("one", [{ id: "a" }]);
	const run = await crew(repo.dir, ["run", "g", "--workflow", "one", "--json"]);
	const { runId } = lastJson(run.stdout);
	const cliRuns = JSON.parse((await crew(repo.dir, ["runs", "--json"])).stdout) as Record<string, unknown>[];
	const cliStatus = JSON.parse((await crew(repo.dir, ["status", runId, "--json"])).stdout) as {
		run: Record<string, unknown>;
	};
	const made = servedApp(repo.dir);
	try {
		const httpRuns = (await (await made.request("/api/runs")).json()) as { runs: Record<string, unknown>[] };
		expect(httpRuns.runs).toEqual(cliRuns);
		const httpRun = ((await (await made.request(`/api/runs/${runId}`)).json()) as { run: Record<string, unknown> }).run;
		for (const key of Object.keys(httpRun)) expect(cliStatus.run[key], key).toEqual(httpRun[key]);
		expect(cliStatus.run.finishedAt).toEqual(expect.any(String));
	} finally {
		made.close();
	}
});
