// @module-tag agent-cli
// @slow: eight crew agent runs of real pi agents on the scripted model, in CLI processes
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, expect, test } from "vitest";
import { scriptedCliSetup } from "../../../src/scripted-model/cli-setup.js";
import { actThenReport } from "../../../src/scripted-model/turns.js";
import {
	cancelLiveRuns,
	crew,
	crewProcess,
	exitOf,
	gitRepo,
	spenderProgram,
	TestRepo,
	waitFor,
} from "../../helpers.js";
import { serverStarter } from "../../scripted-model/servers.js";

const startServer = serverStarter();
const repos: TestRepo[] = [];
afterEach(async () => {
	for (const repo of repos.splice(0)) await cancelLiveRuns(repo.dir);
});

interface StatusJson {
	run: { id: string; status: string; goal: string; team: string | null; workflow: string };
	tasks: { id: string; role: string; status: string; attempts: number }[];
}

async function statusOf(dir: string, runId: string, env: NodeJS.ProcessEnv = process.env): Promise<StatusJson> {
	const shown = await crew(dir, ["status", runId, "--json"], 60_000, env);
	expect(shown.code, shown.stderr).toBe(0);
	return JSON.parse(shown.stdout) as StatusJson;
}

async function untilEnded(dir: string, runId: string): Promise<StatusJson> {
	for (const until = Date.now() + 30_000; Date.now() < until; await sleep(100)) {
		const status = await statusOf(dir, runId);
		if (["completed", "failed", "cancelled", "interrupted"].includes(status.run.status)) return status;
	}
	throw new Error(`run ${runId} did not end`);
}

test("crew agent runs one agent on the task in the foreground and prints its result; status and result show the run", async () => {
	const repo = new TestRepo().agent("worker", "--answer");
	repos.push(repo);
	const done = await crew(repo.dir, ["agent", "write the notes", "--agent", "worker"]);
	expect(done).toEqual({ code: 0, stdout: "answer: write the notes\n", stderr: "" });

	const runs = JSON.parse((await crew(repo.dir, ["runs", "--json"])).stdout) as { id: string }[];
	expect(runs).toHaveLength(1);
	const runId = runs[0]?.id as string;
	const status = await statusOf(repo.dir, runId);
	expect(status.run).toMatchObject({
		status: "completed",
		goal: "write the notes",
		team: null,
		workflow: "agent:worker",
	});
	expect(status.tasks).toEqual([
		expect.objectContaining({ id: "worker", role: "worker", status: "completed", attempts: 1 }),
	]);
	const byTask = await crew(repo.dir, ["result", runId, "worker"]);
	expect(byTask).toEqual({ code: 0, stdout: "answer: write the notes\n", stderr: "" });
	// A one-task run's result is its task's: no task needs naming.
	const alone = await crew(repo.dir, ["result", runId]);
	expect(alone).toEqual({ code: 0, stdout: "answer: write the notes\n", stderr: "" });

	const json = await crew(repo.dir, ["agent", "again", "--agent", "worker", "--json"]);
	expect(json.code, json.stderr).toBe(0);
	expect(JSON.parse(json.stdout)).toMatchObject({
		taskId: "worker",
		agent: "worker",
		status: "completed",
		result: "answer: again\n",
	});
});

test("crew agent exits with its run's exit code: a failed agent exits 1 and says why, a spent budget exits 4", async () => {
	const repo = new TestRepo().agent("broken", "--exit 3");
	repos.push(repo);
	const failed = await crew(repo.dir, ["agent", "try", "--agent", "broken"]);
	expect(failed.code).toBe(1);
	expect(failed.stdout).toBe("");
	expect(failed.stderr).toMatch(/run \S+ failed: .*exit(ed)? .*3/);

	repo.writeFile(".crew/agents/spender.md", "---\nname: spender\nruntime: pi\n---\n");
	const env = { ...process.env, CREW_PI: spenderProgram("pi", 600, 1) };
	const spent = await crew(repo.dir, ["agent", "spend", "--agent", "spender", "--budget-tokens", "500"], 60_000, env);
	expect(spent.code, spent.stderr).toBe(4);
	expect(spent.stderr).toMatch(/budget/);
});

test("crew agent refuses an unknown agent, naming it and the near names", async () => {
	const repo = new TestRepo().agent("worker");
	const unknown = await crew(repo.dir, ["agent", "x", "--agent", "exector"]);
	expect(unknown.code).toBe(2);
	expect(unknown.stderr).toMatch(/no agent 'exector'.*did you mean `executor`\?/);
	expect(unknown.stderr).toMatch(/worker/);
	expect(JSON.parse((await crew(repo.dir, ["runs", "--json"])).stdout)).toEqual([]);
	const path = await crew(repo.dir, ["agent", "x", "--agent", "../worker"]);
	expect(path.code).toBe(2);
	expect(path.stderr).toMatch(/invalid agent "..\/worker": expected an agent's name/);
	// The workflow crew agent runs is one crew run and crew plan take by name too, without a team.
	const plan = await crew(repo.dir, ["plan", "x", "--workflow", "agent:worker", "--json"]);
	expect(plan.code, plan.stderr).toBe(0);
	expect(JSON.parse(plan.stdout)).toMatchObject({ workflow: "agent:worker", order: ["worker"] });
	const teamed = await crew(repo.dir, ["run", "x", "--workflow", "agent:worker", "--team", "default"]);
	expect(teamed.code).toBe(2);
	expect(teamed.stderr).toContain("workflow agent:worker runs that one agent: it takes no team (got 'default')");
});

test("crew agent without --agent runs crew's executor, on the model asked for", async () => {
	const server = await startServer(actThenReport(() => ({ kind: "shell", command: "ls" }), "listed the files"));
	const pi = scriptedCliSetup("pi", server.url, mkdtempSync(join(tmpdir(), "crew-pi-")));
	const repo = new TestRepo();
	repos.push(repo);
	const env = { ...process.env, ...pi.env };
	const done = await crew(repo.dir, ["agent", "list the files", "--model", pi.model], 120_000, env);
	expect(done.code, done.stderr).toBe(0);
	expect(done.stdout).toBe("listed the files\n");
	const runId = (JSON.parse((await crew(repo.dir, ["runs", "--json"], 60_000, env)).stdout) as { id: string }[])[0]
		?.id as string;
	const status = await statusOf(repo.dir, runId, env);
	expect(status.run.workflow).toBe("agent:executor");
	expect(status.tasks.map((t) => `${t.id}:${t.role}:${t.status}`)).toEqual(["executor:executor:completed"]);
	expect(server.requests.map((r) => r.model)).toEqual(["scripted-1", "scripted-1"]);
	expect(server.requests[0]?.messages.map((m) => m.text).join("\n")).toContain("list the files");
});

test("crew agent --background prints the run id at once; the run can be cancelled, resumed and read", async () => {
	const repo = new TestRepo();
	repos.push(repo);
	const gates = join(repo.dir, "gates");
	mkdirSync(gates);
	repo.agent("waiter", `--gate ${gates}`);
	const started = await crew(repo.dir, ["agent", "wait for it", "--agent", "waiter", "--background"]);
	expect(started.code, started.stderr).toBe(0);
	const runId = started.stdout.trim();
	expect(runId).toMatch(/^\d{8}-\d{6}-[0-9a-z]+$/);
	await waitFor("the waiter started", () => repo.starts("waiter").length === 1);

	const cancelled = await crew(repo.dir, ["cancel", runId]);
	expect(cancelled.code, cancelled.stderr).toBe(0);
	expect((await statusOf(repo.dir, runId)).run.status).toBe("cancelled");

	writeFileSync(join(gates, "waiter"), "");
	const resumed = await crew(repo.dir, ["resume", runId]);
	expect(resumed.code, resumed.stdout + resumed.stderr).toBe(0);
	const status = await statusOf(repo.dir, runId);
	expect(status.run.status).toBe("completed");
	expect(status.tasks).toEqual([expect.objectContaining({ id: "waiter", status: "completed", attempts: 2 })]);
	const result = await crew(repo.dir, ["result", runId]);
	expect(result.stdout).toBe("waiting for gate waiter\ngate waiter opened\ndone waiter\n");

	const json = await crew(repo.dir, ["agent", "again", "--agent", "waiter", "--background", "--json"]);
	expect(json.code, json.stderr).toBe(0);
	const answer = JSON.parse(json.stdout) as { runId: string; status: string; taskId: string; agent: string };
	expect(answer).toMatchObject({ taskId: "waiter", agent: "waiter" });
	expect(["queued", "running", "completed"]).toContain(answer.status);
	await untilEnded(repo.dir, answer.runId);
	expect((await crew(repo.dir, ["result", answer.runId])).stdout).toBe(
		"waiting for gate waiter\ngate waiter opened\ndone waiter\n",
	);
});

test("Ctrl-C stops a foreground crew agent: it exits 130 naming crew resume, which finishes the task", async () => {
	const repo = new TestRepo();
	repos.push(repo);
	const gates = join(repo.dir, "gates");
	mkdirSync(gates);
	repo.agent("waiter", `--gate ${gates}`);
	const child = crewProcess(repo.dir, ["agent", "wait for it", "--agent", "waiter"]);
	let stdout = "";
	let stderr = "";
	child.stdout?.on("data", (chunk) => {
		stdout += chunk;
	});
	child.stderr?.on("data", (chunk) => {
		stderr += chunk;
	});
	await waitFor("the waiter started", () => repo.starts("waiter").length === 1);
	child.kill("SIGINT");
	await exitOf(child);
	expect(child.exitCode, stderr).toBe(130);
	expect(stdout).toBe("");
	const runId = /next: crew resume (\S+)/.exec(stderr)?.[1] as string;
	expect(runId, stderr).toBeDefined();
	writeFileSync(join(gates, "waiter"), "");
	const resumed = await crew(repo.dir, ["resume", runId]);
	expect(resumed.code, resumed.stdout + resumed.stderr).toBe(0);
	expect((await crew(repo.dir, ["result", runId])).stdout).toBe(
		"waiting for gate waiter\ngate waiter opened\ndone waiter\n",
	);
});

test("crew agent --workspace worktree works in a worktree of its own and leaves its work on the run's branch", async () => {
	const repo = gitRepo();
	repos.push(repo);
	repo.writeFile(
		".crew/agents/maker.md",
		'---\nname: maker\nruntime: command\ncommand: echo made > made.txt && echo "made it"\n---\n',
	);
	const done = await crew(repo.dir, [
		"agent",
		"make it",
		"--agent",
		"maker",
		"--workspace",
		"worktree",
		"--allow-dirty",
	]);
	expect(done, done.stderr).toMatchObject({ code: 0, stdout: "made it\n" });
	expect(repo.exists("made.txt")).toBe(false);
	const runId = (JSON.parse((await crew(repo.dir, ["runs", "--json"])).stdout) as { id: string }[])[0]?.id as string;
	const shown = execFileSync("git", ["show", `crew/${runId}:made.txt`], { cwd: repo.dir, encoding: "utf8" });
	expect(shown).toBe("made\n");
});

test("a crew agent run exported elsewhere reruns there as the same one-agent run, with that repository's agent", async () => {
	const source = new TestRepo().agent("worker", "--answer");
	const done = await crew(source.dir, ["agent", "write the notes", "--agent", "worker"]);
	expect(done.code, done.stderr).toBe(0);
	const runId = (JSON.parse((await crew(source.dir, ["runs", "--json"])).stdout) as { id: string }[])[0]?.id as string;
	const file = join(source.dir, "agent-run.json");
	expect((await crew(source.dir, ["export", runId, "--output", file])).code).toBe(0);

	const target = new TestRepo().agent("worker", "--say elsewhere");
	const rerun = await crew(target.dir, ["import", "--rerun", file, "--json"]);
	expect(rerun.code, rerun.stderr).toBe(0);
	const again = JSON.parse(rerun.stdout.trim().split("\n").at(-1) ?? "{}") as { runId: string; status: string };
	expect(again.status).toBe("completed");
	const status = await statusOf(target.dir, again.runId);
	expect(status.run).toMatchObject({ goal: "write the notes", workflow: "agent:worker", team: null });
	expect((await crew(target.dir, ["result", again.runId])).stdout).toBe("elsewhere\n");
});
