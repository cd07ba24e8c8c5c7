// @module-tag agent-cli
// @slow: records real pi runs, then replays them, live where they diverge
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, test } from "vitest";
import { scriptedCliSetup } from "../../../src/scripted-model/cli-setup.js";
import { ScriptedModelServer } from "../../../src/scripted-model/scripted-model-server.js";
import type { ModelRequest } from "../../../src/scripted-model/turns.js";
import { completedRun, crew, gitRepo, read, type TestRepo } from "../../helpers.js";

const servers: ScriptedModelServer[] = [];
afterEach(async () => {
	for (const server of servers.splice(0)) await server.close();
});

const STEPS = ["s1", "s2", "s3"];

function stepOf(request: ModelRequest): string {
	const text = request.messages.map((m) => m.text).join("\n");
	return STEPS.find((s) => text.includes(`STEP-${s}`)) ?? "?";
}

function runIdOf(stdout: string): { runId: string; status: string } {
	return JSON.parse(stdout.trim().split("\n").at(-1) as string) as { runId: string; status: string };
}

/** Three steps in worktree mode, each a pi agent on the scripted model that writes its file, then answers. */
async function replaySetup() {
	const server = await ScriptedModelServer.start((request) => {
		const step = stepOf(request);
		if (request.afterToolResult) return { kind: "text", text: `answer of ${step}` };
		return { kind: "write", path: `${step}.txt`, content: `work of ${step}\n` };
	});
	servers.push(server);
	const repo = gitRepo();
	const scripted = scriptedCliSetup("pi", server.url, mkdtempSync(join(tmpdir(), "crew-pi-")));
	repo.writeFile(".crew/agents/worker.md", "---\nname: worker\nruntime: pi\nsandbox: off\n---\nYou work.\n");
	const steps = (second: string) =>
		STEPS.map((id, i) => ({
			id,
			text: id === "s2" ? second : `STEP-${id}: work on {goal}`,
			...(i > 0 ? { dependsOn: [STEPS[i - 1] as string] } : {}),
		}));
	repo.workflow("chain3", steps("STEP-s2: work on {goal}"));
	const env = { ...process.env, ...scripted.env };
	const args = [
		"run",
		"the goal",
		"--workflow",
		"chain3",
		"--workspace",
		"worktree",
		"--model",
		scripted.model,
		"--json",
	];
	const first = await crew(repo.dir, args, 180_000, env);
	expect(first.code, first.stderr).toBe(0);
	expect(server.requests.map(stepOf)).toEqual(["s1", "s1", "s2", "s2", "s3", "s3"]);
	return {
		server,
		repo,
		env,
		runId: runIdOf(first.stdout).runId,
		editSecond: (text: string) => repo.workflow("chain3", steps(text)),
	};
}

function resultOf(repo: TestRepo, runId: string, task: string): string {
	return readFileSync(join(repo.dir, ".crew", "runs", runId, "tasks", task, "result.md"), "utf8");
}

const treeOf = (repo: TestRepo, runId: string) =>
	execFileSync("git", ["rev-parse", `crew/${runId}^{tree}`], { cwd: repo.dir, encoding: "utf8" }).trim();

test("a replay of an unchanged run makes no model request, reproduces every result and the same integration tree", async () => {
	const { server, repo, env, runId } = await replaySetup();
	const before = server.requests.length;
	const replayed = await crew(repo.dir, ["replay", runId, "--json"], 180_000, env);
	expect(replayed.code, replayed.stderr).toBe(0);
	const { runId: replayId, status } = runIdOf(replayed.stdout);
	expect(status).toBe("completed");
	expect(server.requests.length).toBe(before);
	for (const task of STEPS) expect(resultOf(repo, replayId, task)).toBe(resultOf(repo, runId, task));
	expect(treeOf(repo, replayId)).toBe(treeOf(repo, runId));
	const files = execFileSync("git", ["ls-tree", "-r", "--name-only", `crew/${replayId}`], {
		cwd: repo.dir,
		encoding: "utf8",
	});
	expect(files.split("\n").filter((f) => f.endsWith(".txt"))).toEqual(["s1.txt", "s2.txt", "s3.txt"]);
	const { tasks } = read(repo.dir, (r) => r.view(replayId));
	expect(tasks.every((t) => t.usage.input === 0 && t.usage.output === 0)).toBe(true);
}, 300_000);

test("a replay after a step's prompt changed reports that task as diverged with the diff of the prompts; --live-on-divergence runs it for real", async () => {
	const { server, repo, env, runId, editSecond } = await replaySetup();
	editSecond("STEP-s2: work on {goal}, and test it");
	const before = server.requests.length;
	const replayed = await crew(repo.dir, ["replay", runId, "--json"], 180_000, env);
	expect(replayed.code).toBe(1);
	const { runId: replayId, status } = runIdOf(replayed.stdout);
	expect(status).toBe("failed");
	expect(server.requests.length).toBe(before);
	const { tasks } = read(repo.dir, (r) => r.view(replayId));
	expect(tasks.map((t) => [t.id, t.status])).toEqual([
		["s1", "completed"],
		["s2", "failed"],
		["s3", "skipped"],
	]);
	const error = tasks[1]?.error ?? "";
	expect(error).toContain(`diverged from run ${runId}: its prompt differs from the recorded one:`);
	expect(error).toContain("-STEP-s2: work on the goal\n+STEP-s2: work on the goal, and test it");
	const diff = readFileSync(join(repo.dir, ".crew", "runs", replayId, "tasks", "s2", "replay.diff"), "utf8");
	expect(diff).toContain("+STEP-s2: work on the goal, and test it");

	const live = await crew(repo.dir, ["replay", runId, "--live-on-divergence", "--json"], 180_000, env);
	expect(live.code, live.stderr).toBe(0);
	// s2 runs for real; s3's prompt, with s2's same answer, is the recorded one: replayed.
	expect(server.requests.slice(before).map(stepOf)).toEqual(["s2", "s2"]);
}, 300_000);

test("a replay answers a task that took two attempts (a failed check, then a pass) from its record", async () => {
	const repo = gitRepo();
	repo.commandAgent("flaky", "if [ -f tried ]; then echo ok; else touch tried; echo no; fi");
	repo.workflow("checked", [{ id: "try", role: "flaky", extra: { verify: "grep -q ok" } }]);
	const runId = await completedRun(repo, ["run", "g", "--workflow", "checked"]);
	expect(read(repo.dir, (r) => r.view(runId)).tasks[0]?.attempts).toBe(2);
	rmSync(join(repo.dir, "tried"));
	const replayId = await completedRun(repo, ["replay", runId]);
	expect(resultOf(repo, replayId, "try")).toBe("ok\n");
	expect(existsSync(join(repo.dir, "tried"))).toBe(false);
}, 120_000);
