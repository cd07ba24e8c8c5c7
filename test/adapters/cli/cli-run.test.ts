// @slow: eleven runs through the CLI, each in processes of its own: cancel, Ctrl-C, kill -9 and resume, a reader polling throughout
import { execFileSync, spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { crew, crewProcess, isAlive, ROOT, read, TestRepo, waitFor } from "../../helpers.js";

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

function lastJson(stdout: string): { runId: string; status: string } {
	const lines = stdout.trim().split("\n");
	return JSON.parse(lines[lines.length - 1] ?? "{}");
}

test("crew run shows progress and a summary; --json ends with {runId, status}; status --json has the documented shape", async () => {
	const repo = new TestRepo().agent("worker", "--sleep 50");
	repo.workflow("pair", [{ id: "a" }, { id: "b", dependsOn: ["a"] }]);
	const human = await crew(repo.dir, ["run", "ship it", "--workflow", "pair"]);
	expect(human.code).toBe(0);
	expect(human.stdout).toMatch(/a\s+worker\s+running/);
	expect(human.stdout).toMatch(/run \S+ completed in .*: 2 completed/);

	const json = await crew(repo.dir, ["run", "ship it", "--workflow", "pair", "--json"]);
	expect(json.code).toBe(0);
	const { runId, status } = lastJson(json.stdout);
	expect(status).toBe("completed");

	const shown = await crew(repo.dir, ["status", "--json"]);
	const parsed = JSON.parse(shown.stdout);
	expect(Object.keys(parsed.run).sort()).toEqual([
		"createdAt",
		"error",
		"finishedAt",
		"goal",
		"id",
		"integration",
		"status",
		"team",
		"updatedAt",
		"usage",
		"usageByModel",
		"usageByRole",
		"workflow",
	]);
	expect([parsed.run.error, parsed.run.integration]).toEqual([null, null]);
	const noUsage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0 };
	expect(parsed.run.usage).toEqual(noUsage);
	// Command agents have no model: their attempts count under the runtime's name.
	expect(parsed.run.usageByRole).toEqual({ worker: noUsage });
	expect(parsed.run.usageByModel).toEqual({ command: noUsage });
	expect(parsed.run).toMatchObject({ id: runId, status: "completed", goal: "ship it", team: null, workflow: "pair" });
	expect(parsed.run.createdAt).toMatch(ISO);
	expect(parsed.tasks).toHaveLength(2);
	for (const task of parsed.tasks) {
		expect(Object.keys(task).sort()).toEqual([
			"attempts",
			"error",
			"finishedAt",
			"id",
			"inherited",
			"role",
			"sandbox",
			"session",
			"setAside",
			"startedAt",
			"status",
			"stepId",
			"usage",
		]);
		expect(task.usage).toEqual(noUsage);
		expect(task).toMatchObject({ status: "completed", attempts: 1, error: null, role: "worker" });
		expect(task.sandbox).toEqual({ level: "off", readOnly: false });
		expect(task.inherited).toBeNull();
		// A first attempt continued nothing, and started over nothing.
		expect(task.session).toBeNull();
		expect(task.setAside).toEqual([]);
		expect(task.startedAt).toMatch(ISO);
		expect(task.finishedAt).toMatch(ISO);
	}

	const events = await crew(repo.dir, ["events", runId, "--json"]);
	const lines = events.stdout
		.trim()
		.split("\n")
		.map((l) => JSON.parse(l));
	expect(lines.map((e) => e.seq)).toEqual(lines.map((_, i) => i + 1));
	expect(lines[0]).toMatchObject({ type: "run.created", data: { goal: "ship it" } });
	expect(lines.find((e) => e.type === "task.completed")).toMatchObject({ taskId: "a" });

	const result = await crew(repo.dir, ["result", runId, "b"]);
	expect(result.stdout).toBe("done b\n");
	const runs = await crew(repo.dir, ["runs", "--json"]);
	expect(JSON.parse(runs.stdout).map((r: { id: string }) => r.id)).toContain(runId);
});

test("cancel from another process leaves no process of the run alive", async () => {
	const repo = new TestRepo().agent("worker", "--hang --grandchild --ignore-term");
	repo.workflow("stuck", [{ id: "a" }, { id: "b" }, { id: "c" }, { id: "after", dependsOn: ["a", "b"] }]);
	const runner = crewProcess(repo.dir, ["run", "stuck forever", "--workflow", "stuck", "--concurrency", "3"]);
	const exited = new Promise<number | null>((resolve) => runner.once("exit", resolve));
	await waitFor("three workers", () => repo.starts().length === 3);
	const id = JSON.parse((await crew(repo.dir, ["status", "--json"])).stdout).run.id as string;
	const cancel = await crew(repo.dir, ["cancel", id]);
	expect(cancel.stdout).toBe(`run ${id} cancelled\n`);
	expect(cancel.code).toBe(0);
	expect(await exited).toBe(1);
	for (const entry of repo.starts()) {
		expect(isAlive(entry.pid)).toBe(false);
		expect(isAlive(entry.grandchild ?? 0)).toBe(false);
	}
	const status = JSON.parse((await crew(repo.dir, ["status", id, "--json"])).stdout);
	expect(status.run.status).toBe("cancelled");
	expect(status.tasks.map((t: { status: string }) => t.status)).toEqual([
		"cancelled",
		"cancelled",
		"cancelled",
		"cancelled",
	]);
});

test("Ctrl-C on a foreground run cancels it cleanly", async () => {
	const repo = new TestRepo().agent("worker", "--hang --grandchild");
	repo.workflow("stuck", [{ id: "a" }, { id: "b" }]);
	const runner = crewProcess(repo.dir, ["run", "stuck", "--workflow", "stuck"]);
	const exited = new Promise<number | null>((resolve) => runner.once("exit", resolve));
	await waitFor("two workers", () => repo.starts().length === 2);
	runner.kill("SIGINT");
	expect(await exited).toBe(130);
	for (const entry of repo.starts()) expect(isAlive(entry.pid) || isAlive(entry.grandchild ?? 0)).toBe(false);
	const status = JSON.parse((await crew(repo.dir, ["status", "--json"])).stdout);
	expect(status.run.status).toBe("cancelled");
	expect(status.tasks[0].error).toBe("cancelled by SIGINT");
});

test("kill -9 of the runner mid-run, then crew resume completes the run without redoing finished tasks", async () => {
	const repo = new TestRepo().agent("worker", "--sleep 100").agent("long", "--sleep 1500");
	repo.workflow("relay", [
		{ id: "a" },
		{ id: "b", dependsOn: ["a"] },
		{ id: "c", role: "long", dependsOn: ["b"] },
		{ id: "side", dependsOn: ["a"] },
		{ id: "d", dependsOn: ["c"] },
	]);
	const runner = crewProcess(repo.dir, ["run", "survive", "--workflow", "relay"]);
	const exited = new Promise<unknown>((resolve) => runner.once("exit", resolve));
	const orphan = await waitFor("c to start", () => repo.starts("c")[0]);
	runner.kill("SIGKILL");
	await exited;
	expect(isAlive(orphan.pid)).toBe(true);

	const before = JSON.parse((await crew(repo.dir, ["status", "--json"])).stdout);
	expect(before.run.status).toBe("interrupted");
	expect(before.tasks.find((t: { id: string }) => t.id === "c").status).toBe("interrupted");
	const completedBefore: string[] = before.tasks
		.filter((t: { status: string }) => t.status === "completed")
		.map((t: { id: string }) => t.id);
	expect(completedBefore).toEqual(expect.arrayContaining(["a", "b"]));

	const resumed = await crew(repo.dir, ["resume", before.run.id, "--json"]);
	expect(resumed.code).toBe(0);
	expect(lastJson(resumed.stdout)).toEqual({ runId: before.run.id, status: "completed" });
	expect(isAlive(orphan.pid)).toBe(false);
	for (const task of completedBefore) expect(repo.starts(task), task).toHaveLength(1);
	expect(repo.starts("c")).toHaveLength(2);
	const after = JSON.parse((await crew(repo.dir, ["status", "--json"])).stdout);
	expect(after.tasks.map((t: { status: string }) => t.status)).toEqual(Array(5).fill("completed"));
	expect(after.tasks.find((t: { id: string }) => t.id === "c").attempts).toBe(2);
	const types = (await crew(repo.dir, ["events", before.run.id, "--json"])).stdout;
	expect(types).toContain('"type":"run.interrupted"');
	expect(types).toContain('"type":"task.interrupted"');
});

test("a reader process polling status during a run never errors or sees a half-written state", async () => {
	const repo = new TestRepo().agent("worker", "--sleep 20");
	// t10..t59 each depend on the task ten before them, so order is checkable from any snapshot.
	repo.workflow(
		"grid",
		Array.from({ length: 60 }, (_, i) => ({ id: `t${i}`, dependsOn: i >= 10 ? [`t${i - 10}`] : [] })),
	);
	const run = await crew(repo.dir, ["run", "grid", "--workflow", "grid", "--runtime", "dry-run", "--json"]);
	expect(run.code).toBe(0);
	const runner = crewProcess(repo.dir, ["run", "grid", "--workflow", "grid", "--concurrency", "4", "--json"]);
	const out: Buffer[] = [];
	runner.stdout?.on("data", (chunk: Buffer) => out.push(chunk));
	const runnerDone = new Promise((resolve) => runner.once("exit", resolve));
	const runId = await waitFor("the second run", () => {
		const runs = read(repo.dir, (reader) => reader.repo.runs());
		return runs.length === 2 ? runs[0]?.id : undefined;
	});
	const poller = spawn(process.execPath, [join(ROOT, "test", "fixtures", "status-poller.mjs"), repo.dir, runId, "4"]);
	const report: Buffer[] = [];
	poller.stdout.on("data", (chunk: Buffer) => report.push(chunk));
	await new Promise((resolve) => poller.once("exit", resolve));
	await runnerDone;
	const { reads, violations } = JSON.parse(Buffer.concat(report).toString());
	expect(violations).toEqual([]);
	expect(reads).toBeGreaterThan(50);
	expect(lastJson(Buffer.concat(out).toString()).status).toBe("completed");
});

test("--detach starts a background runner and returns at once; a second runner cannot take the run", async () => {
	// Each task lasts long enough that the second crew, however slowly this machine starts it, finds the run still held.
	const repo = new TestRepo().agent("worker", "--sleep 3000");
	repo.workflow("bg", [{ id: "a" }, { id: "b", dependsOn: ["a"] }]);
	const started = await crew(repo.dir, ["run", "in the background", "--workflow", "bg", "--detach", "--json"]);
	expect(started.code).toBe(0);
	const { runId, status } = lastJson(started.stdout);
	expect(status).toBe("running");
	const second = await crew(repo.dir, ["resume", runId]);
	expect(second.code).toBe(1);
	expect(second.stderr).toMatch(new RegExp(`^crew: run ${runId} is already being run by pid \\d+ on `));
	const followed = await crew(repo.dir, ["events", runId, "--follow", "--json"]);
	const types = followed.stdout
		.trim()
		.split("\n")
		.map((line) => JSON.parse(line).type);
	expect(types[0]).toBe("run.created");
	expect(types[types.length - 1]).toBe("run.completed");
	expect(types.filter((t) => t === "task.completed")).toHaveLength(2);
	expect(existsSync(join(repo.dir, ".crew", "runs", runId, "runner.log"))).toBe(true);
	const again = await crew(repo.dir, ["resume", runId]);
	expect(again).toMatchObject({ code: 0, stdout: `run ${runId} is completed; nothing to resume\n` });
});

test("crew --version and -V print the package version, alone or among other options", async () => {
	const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
	for (const args of [["--version"], ["-V"], ["--debug", "--version"]]) {
		expect(await crew(ROOT, args)).toMatchObject({ code: 0, stdout: `${pkg.version}\n`, stderr: "" });
	}
});

test("crew retry re-queues a failed task with the dependents it skipped, and nothing else runs again", async () => {
	const repo = new TestRepo().agent("worker");
	repo.writeFile(
		".crew/agents/picky.md",
		`---\nruntime: command\ncommand: echo picky >> ${repo.log}.picky; test -f ready || exit 1; echo fixed\n---\n`,
	);
	repo.workflow("fix", [
		{ id: "a" },
		{ id: "fragile", role: "picky", dependsOn: ["a"] },
		{ id: "after", dependsOn: ["fragile"] },
	]);
	const first = await crew(repo.dir, ["run", "fix it", "--workflow", "fix", "--json"]);
	expect(first.code).toBe(1);
	const { runId, status } = lastJson(first.stdout);
	expect(status).toBe("failed");
	repo.writeFile("ready", "");
	const retried = await crew(repo.dir, ["retry", runId, "fragile", "--json"]);
	expect(retried.code).toBe(0);
	expect(lastJson(retried.stdout).status).toBe("completed");
	expect(repo.starts("a")).toHaveLength(1);
	expect(repo.starts("after")).toHaveLength(1);
	expect(readFileSync(`${repo.log}.picky`, "utf8")).toBe("picky\npicky\n");
	const refused = await crew(repo.dir, ["retry", runId, "a"]);
	expect(refused.code).toBe(1);
	expect(refused.stderr).toBe(
		`crew: task a of run ${runId} is completed; only failed, cancelled, skipped or needs_attention tasks can be retried\n`,
	);
});

test("crew retry --detach refuses a task it cannot retry before any runner starts, and retries a failed one in the background", async () => {
	const repo = new TestRepo().agent("worker");
	repo.writeFile(".crew/agents/picky.md", "---\nruntime: command\ncommand: test -f ready && echo fixed\n---\n");
	repo.workflow("fix", [{ id: "a" }, { id: "fragile", role: "picky", dependsOn: ["a"] }]);
	const first = await crew(repo.dir, ["run", "fix it", "--workflow", "fix", "--retries", "0", "--json"]);
	const { runId } = lastJson(first.stdout);
	const refused = await crew(repo.dir, ["retry", runId, "a", "--detach"]);
	expect([refused.code, refused.stderr]).toEqual([
		1,
		`crew: task a of run ${runId} is completed; only failed, cancelled, skipped or needs_attention tasks can be retried\n`,
	]);
	expect(existsSync(join(repo.dir, ".crew", "runs", runId, "runner.log"))).toBe(false);
	repo.writeFile("ready", "");
	const detached = await crew(repo.dir, ["retry", runId, "fragile", "--detach", "--json"]);
	expect(detached.code, detached.stderr).toBe(0);
	expect(["running", "completed"]).toContain(lastJson(detached.stdout).status);
	const watched = await crew(repo.dir, ["watch", runId]);
	expect(watched.code).toBe(0);
	expect(repo.starts("a")).toHaveLength(1);
});

test("crew init ignores crew's state in git and keeps resources tracked", async () => {
	const repo = new TestRepo();
	execFileSync("rm", ["-rf", join(repo.dir, ".git")]);
	execFileSync("git", ["init", "-q"], { cwd: repo.dir });
	const init = await crew(repo.dir, ["init"]);
	expect(init.code).toBe(0);
	repo.agent("worker");
	repo.workflow("one", [{ id: "a" }]);
	expect((await crew(repo.dir, ["run", "g", "--workflow", "one"])).code).toBe(0);
	const untracked = execFileSync("git", ["status", "--porcelain", "--untracked-files=all"], {
		cwd: repo.dir,
		encoding: "utf8",
	});
	expect(untracked).toContain(".crew/agents/worker.md");
	expect(untracked).toContain(".crew/workflows/one.workflow.md");
	expect(untracked).not.toMatch(/crew\.db|\.crew\/runs\//);
});

test("cancel of a run whose runner died ends the workers it left behind", async () => {
	// Silent workers: one that writes to the dead runner's pipes would die of SIGPIPE by itself.
	const repo = new TestRepo().agent("worker", "--sleep 60000 --grandchild");
	repo.workflow("stuck", [{ id: "a" }, { id: "b" }]);
	const runner = crewProcess(repo.dir, ["run", "stuck", "--workflow", "stuck"]);
	const exited = new Promise((resolve) => runner.once("exit", resolve));
	await waitFor("two workers", () => repo.starts().length === 2);
	runner.kill("SIGKILL");
	await exited;
	const before = JSON.parse((await crew(repo.dir, ["status", "--json"])).stdout);
	expect(before.run.status).toBe("interrupted");
	for (const entry of repo.starts()) expect(isAlive(entry.pid)).toBe(true);
	const cancel = await crew(repo.dir, ["cancel", before.run.id]);
	expect(cancel).toMatchObject({ code: 0, stdout: `run ${before.run.id} cancelled\n` });
	for (const entry of repo.starts()) {
		expect(isAlive(entry.pid)).toBe(false);
		expect(isAlive(entry.grandchild ?? 0)).toBe(false);
	}
	const after = JSON.parse((await crew(repo.dir, ["status", "--json"])).stdout);
	expect(after.run.status).toBe("cancelled");
	expect(after.tasks.map((t: { status: string }) => t.status)).toEqual(["cancelled", "cancelled"]);
	const retry = await crew(repo.dir, ["cancel", before.run.id]);
	expect(retry).toMatchObject({ code: 0, stdout: `run ${before.run.id} had already ended: cancelled\n` });
});
