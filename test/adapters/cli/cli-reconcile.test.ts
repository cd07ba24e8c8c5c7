// @slow: a run of 31 worktrees is made so that a fork can be killed -9 while it copies them
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { cancelLiveRuns, crew, crewProcess, gitRepo, isAlive, TestRepo, waitFor } from "../../helpers.js";

function lastJson(stdout: string): { runId: string; status: string } {
	return JSON.parse(stdout.trim().split("\n").at(-1) ?? "{}");
}

test("crew reconcile finds a run whose runner was killed and its orphaned worker; --fix ends it and keeps the work", async () => {
	const repo = gitRepo();
	const gates = join(repo.dir, "gates");
	mkdirSync(gates);
	repo.agent("quick").agent("slow", `--gate ${gates}`);
	repo.workflow("pair", [
		{ id: "first", role: "quick" },
		{ id: "long", role: "slow", dependsOn: ["first"] },
	]);
	const runner = crewProcess(repo.dir, ["run", "goal", "--workflow", "pair"]);
	try {
		const worker = await waitFor("the slow worker", () => repo.starts("long")[0]?.pid);
		runner.kill("SIGKILL");
		await waitFor("the runner gone", () => runner.exitCode !== null || runner.signalCode !== null);
		expect(isAlive(worker)).toBe(true);
		const runId = (JSON.parse((await crew(repo.dir, ["runs", "--json"])).stdout) as { id: string }[])[0]?.id;

		const check = await crew(repo.dir, ["reconcile"]);
		expect(check.code).toBe(1);
		expect(check.stdout).toMatch(
			new RegExp(`orphaned run ${runId}: recorded running, its runner \\(pid \\d+ on \\S+\\) is gone\\n`),
		);
		const orphans = new RegExp(`orphaned workers of run ${runId} \\(running\\): process group (\\d+)`);
		expect(check.stdout).toMatch(orphans);
		const group = Number(orphans.exec(check.stdout)?.[1]);
		expect(group).toBeGreaterThan(1);
		// Looking changes nothing.
		expect(isAlive(worker)).toBe(true);
		const json = JSON.parse((await crew(repo.dir, ["reconcile", "--json"])).stdout);
		expect(json.orphanedRuns).toEqual([expect.objectContaining({ runId, status: "running", fixed: false })]);
		expect(json.orphanedProcesses).toEqual([{ runId, pgid: group, runStatus: "running", fixed: false, proven: true }]);

		const fixed = await crew(repo.dir, ["reconcile", "--fix"]);
		expect(fixed.code).toBe(0);
		expect(fixed.stdout).toContain(`orphaned run ${runId}`);
		expect(fixed.stdout).toContain("→ fixed");
		await waitFor("the orphaned worker gone", () => !isAlive(worker));
		const status = JSON.parse((await crew(repo.dir, ["status", runId as string, "--json"])).stdout);
		expect(status.run.status).toBe("interrupted");
		expect(status.tasks.map((t: { id: string; status: string }) => `${t.id}:${t.status}`)).toEqual([
			"first:completed",
			"long:interrupted",
		]);
		const again = await crew(repo.dir, ["reconcile"]);
		expect(again).toMatchObject({ code: 0, stdout: "runs, runners, workers, worktrees and branches agree\n" });

		// The work is kept: resume runs only what had not completed.
		writeFileSync(join(gates, "long"), "");
		const resumed = await crew(repo.dir, ["resume", runId as string, "--json"]);
		expect(lastJson(resumed.stdout).status).toBe("completed");
		expect(repo.starts("first")).toHaveLength(1);
		expect(repo.starts("long")).toHaveLength(2);
	} finally {
		runner.kill("SIGKILL");
		await cancelLiveRuns(repo.dir);
	}
});

test("crew reconcile reports worktrees of ended runs and branches of runs it does not know, and keeps both", async () => {
	const repo = gitRepo();
	repo.writeFile(
		".crew/agents/scribbler.md",
		"---\nname: scribbler\nruntime: command\ncommand: echo hi > out.txt\n---\n",
	);
	repo.workflow("one", [{ id: "write", role: "scribbler" }]);
	const run = await crew(repo.dir, ["run", "goal", "--workflow", "one", "--workspace", "worktree", "--json"]);
	expect(lastJson(run.stdout).status).toBe("completed");
	const { runId } = lastJson(run.stdout);
	execFileSync("git", ["branch", "crew-tasks/20990101-000000-abcdef/ghost"], { cwd: repo.dir });

	const check = await crew(repo.dir, ["reconcile", "--fix"]);
	expect(check.code).toBe(0);
	expect(check.stdout).toContain(
		`leftover worktree ${repo.dir}/.crew/worktrees/${runId}/write (clean): its run is completed`,
	);
	expect(check.stdout).toContain(
		"branch crew-tasks/20990101-000000-abcdef/ghost: its run 20990101-000000-abcdef is not in this store (kept)",
	);
	const branches = execFileSync("git", ["branch", "--list", "crew-tasks/*"], { cwd: repo.dir, encoding: "utf8" });
	expect(branches).toContain("crew-tasks/20990101-000000-abcdef/ghost");
	expect(branches).toContain(`crew-tasks/${runId}/write`);
});

test("crew reconcile in a repository without runs or git says so plainly", async () => {
	const repo = new TestRepo();
	const check = await crew(repo.dir, ["reconcile"]);
	expect(check.code).toBe(0);
	expect(check.stdout).toMatch(
		/^runs, runners, workers, worktrees and branches agree\nnote: worktrees and branches not checked: /,
	);
});

// Thirty-one worktrees made, committed and merged, then copied by the fork: slow on a loaded machine.
test("a crew fork killed -9 while it is made leaves nothing unnamed: reconcile names what it left, --fix removes it and nothing else", async () => {
	const repo = gitRepo();
	repo.writeFile(
		".crew/agents/scribbler.md",
		"---\nname: scribbler\nruntime: command\ncommand: echo hi > out.txt\n---\n",
	);
	const parts = Array.from({ length: 30 }, (_, i) => ({ id: `p${i}`, role: "scribbler" }));
	repo.workflow("parts", [...parts, { id: "z", role: "scribbler", dependsOn: parts.map((p) => p.id) }]);
	const run = await crew(repo.dir, ["run", "goal", "--workflow", "parts", "--workspace", "worktree", "--json"]);
	const { runId } = lastJson(run.stdout);
	expect(lastJson(run.stdout).status).toBe("completed");
	const branches = () =>
		execFileSync("git", ["for-each-ref", "--format=%(refname:short)", "refs/heads/crew-tasks/"], {
			cwd: repo.dir,
			encoding: "utf8",
		})
			.split("\n")
			.filter(Boolean);
	const before = branches();

	// Killed once the fork has made its first branch, before the store records it.
	const fork = crewProcess(repo.dir, ["fork", runId, "--from", "z"]);
	const forkId = await waitFor(
		"the fork's first branch",
		() =>
			branches()
				.find((b) => !b.startsWith(`crew-tasks/${runId}/`))
				?.split("/")[1],
	);
	fork.kill("SIGKILL");
	await waitFor("crew fork gone", () => fork.exitCode !== null || fork.signalCode !== null);
	const runs = JSON.parse((await crew(repo.dir, ["runs", "--json"])).stdout) as { id: string }[];
	expect(runs.map((r) => r.id)).toEqual([runId]);
	const left = branches().filter((b) => b.startsWith(`crew-tasks/${forkId}/`));
	expect(left.length).toBeGreaterThan(0);

	const check = await crew(repo.dir, ["reconcile"]);
	expect(check.code).toBe(1);
	expect(check.stdout).toContain(
		`unfinished fork ${forkId}: its making stopped before it was recorded, leaving its folder and ${left.length} branch`,
	);
	expect(check.stdout).toContain(`copies of run ${runId}'s; crew reconcile --fix removes them`);
	expect(check.stdout).not.toContain(`branch crew-tasks/${forkId}/`);

	const fixed = await crew(repo.dir, ["reconcile", "--fix"]);
	expect(fixed.code).toBe(0);
	expect(fixed.stdout).toContain(`unfinished fork ${forkId}`);
	expect(fixed.stdout).toContain("→ removed");
	expect(branches()).toEqual(before);
	expect(existsSync(join(repo.dir, ".crew", "runs", forkId as string))).toBe(false);
	expect(existsSync(join(repo.dir, ".crew", "runs", runId))).toBe(true);
}, 180_000);
