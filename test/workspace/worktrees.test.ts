// @slow: ten runs in real git worktrees: merges, prune, kill -9 and setup hooks
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { projectAt } from "../../src/config/project.js";
import { Crew } from "../../src/engine/crew.js";
import { Worktrees } from "../../src/workspace/worktrees.js";
import { runWorkflow } from "../engine/engine-helpers.js";
import { crew, gitRepo, isAlive, TestRepo, waitFor } from "../helpers.js";

/** A command agent that runs `command` in its task's workspace. */
function agent(repo: TestRepo, name: string, command: string): void {
	repo.writeFile(`.crew/agents/${name}.md`, `---\nname: ${name}\nruntime: command\ncommand: ${command}\n---\n`);
}

/** The file `path` as branch `branch` holds it, or undefined. */
function show(repo: TestRepo, branch: string, path: string): string | undefined {
	try {
		return execFileSync("git", ["show", `${branch}:${path}`], { cwd: repo.dir, encoding: "utf8", stdio: "pipe" });
	} catch {
		return undefined;
	}
}

test("parallel tasks editing the same file in worktrees both keep their changes; dependents see them", async () => {
	const repo = gitRepo();
	agent(repo, "writer-a", "echo from-a >> notes.txt");
	agent(repo, "writer-b", "echo from-b >> notes.txt");
	agent(repo, "reader", "cat notes.txt > seen.txt; pwd > where.txt; echo $CREW_WORKSPACE >> where.txt");
	repo.workflow("pair", [
		{ id: "a", role: "writer-a" },
		{ id: "b", role: "writer-b" },
		{ id: "c", role: "reader", dependsOn: ["a"] },
	]);
	const outcome = await runWorkflow(repo, { workflow: "pair", workspace: "worktree", integration: "manual" });
	expect(outcome.tasks.get("b")?.status).toBe("completed");
	const branch = (task: string) => `crew-tasks/${outcome.runId}/${task}`;
	expect(show(repo, branch("a"), "notes.txt")).toBe("from-a\n");
	expect(show(repo, branch("b"), "notes.txt")).toBe("from-b\n");
	expect(show(repo, branch("c"), "seen.txt")).toBe("from-a\n");
	const where = join(repo.dir, ".crew", "worktrees", outcome.runId, "c");
	expect(show(repo, branch("c"), "where.txt")).toBe(`${where}\n${where}\n`);
	// The leader's checkout and branch are untouched.
	expect(existsSync(join(repo.dir, "notes.txt"))).toBe(false);
	expect(execFileSync("git", ["branch", "--show-current"], { cwd: repo.dir, encoding: "utf8" }).trim()).toMatch(
		/^(master|main)$/,
	);
	// Both wrote notes.txt: integrating b after a conflicts, and the event names the file; c, after
	// a only, is merged all the same.
	const conflict = outcome.events.find((e) => e.type === "integration.conflict");
	expect(conflict?.taskId).toBe("b");
	expect(conflict?.data).toMatchObject({
		branch: `crew/${outcome.runId}`,
		conflicts: [{ task: "b", files: ["notes.txt"] }],
		merged: ["a", "c"],
	});
	const commit = outcome.events.find((e) => e.type === "worker.commit" && e.taskId === "a");
	expect(commit?.data).toMatchObject({ branch: branch("a"), commit: expect.stringMatching(/^[0-9a-f]{40}$/) });
	const dir = join(repo.dir, ".crew", "runs", outcome.runId, "tasks", "a");
	expect(readFileSync(join(dir, "attempt-1.patch"), "utf8")).toContain("+from-a");
	expect(readFileSync(join(dir, "attempt-1.stat.txt"), "utf8")).toMatch(/notes\.txt \| 1 \+/);
});

test("a retried attempt starts from a clean worktree; the failed attempt's work is kept on a branch of its own", async () => {
	const repo = gitRepo();
	agent(repo, "flaky", 'if [ "$CREW_ATTEMPT" -lt 2 ]; then echo junk > junk.txt; exit 75; fi; echo good > good.txt');
	repo.workflow("one", [{ id: "t", role: "flaky" }]);
	const outcome = await runWorkflow(repo, { workflow: "one", workspace: "worktree" });
	expect(outcome.status).toBe("completed");
	expect(outcome.tasks.get("t")?.attempts).toBe(2);
	const task = `crew-tasks/${outcome.runId}/t`;
	expect(show(repo, task, "good.txt")).toBe("good\n");
	expect(show(repo, task, "junk.txt")).toBeUndefined();
	expect(show(repo, `crew-attempts/${outcome.runId}/t/1`, "junk.txt")).toBe("junk\n");
});

test("worktree mode needs a repository with a commit, and says so", async () => {
	const repo = new TestRepo();
	agent(repo, "w", "true");
	repo.workflow("one", [{ id: "t", role: "w" }]);
	await expect(runWorkflow(repo, { workflow: "one", workspace: "worktree" })).rejects.toThrow(
		/worktree mode needs a git repository with at least one commit/,
	);
});

test("the run's integration branch holds every completed task's change; crew merge brings it in only on a clean tree", async () => {
	const repo = gitRepo();
	agent(repo, "maker", 'echo "$CREW_TASK_ID" > "$CREW_TASK_ID.txt"');
	repo.workflow("three", [
		{ id: "a", role: "maker" },
		{ id: "b", role: "maker" },
		{ id: "c", role: "maker", dependsOn: ["a"] },
	]);
	const outcome = await runWorkflow(repo, { workflow: "three", workspace: "worktree" });
	expect(outcome.status).toBe("completed");
	const done = outcome.events.find((e) => e.type === "integration.merged");
	expect(done?.data).toMatchObject({ branch: `crew/${outcome.runId}`, merged: ["a", "b", "c"] });
	for (const task of ["a", "b", "c"]) expect(show(repo, `crew/${outcome.runId}`, `${task}.txt`)).toBe(`${task}\n`);
	expect(existsSync(join(repo.dir, "a.txt"))).toBe(false);

	repo.writeFile("README.md", "edited\n");
	const dirty = await crew(repo.dir, ["merge", outcome.runId]);
	expect(dirty.code).toBe(1);
	expect(dirty.stderr).toMatch(/your work tree has changes \(README\.md\)/);
	execFileSync("git", ["checkout", "--", "README.md"], { cwd: repo.dir });
	const merged = await crew(repo.dir, ["merge", outcome.runId]);
	expect(merged.code).toBe(0);
	expect(merged.stdout).toMatch(new RegExp(`^merged crew/${outcome.runId} into (master|main)`));
	for (const task of ["a", "b", "c"]) expect(readFileSync(join(repo.dir, `${task}.txt`), "utf8")).toBe(`${task}\n`);
	expect((await crew(repo.dir, ["merge", "nope"])).stderr).toMatch(/no run 'nope'/);
});

test("cleanup and prune remove worktrees only after committing what they hold; a dirty repository is refused", async () => {
	const repo = gitRepo();
	agent(repo, "maker", 'echo "$CREW_TASK_ID" > "$CREW_TASK_ID.txt"');
	repo.workflow("two", [
		{ id: "a", role: "maker" },
		{ id: "b", role: "maker" },
	]);

	repo.writeFile("README.md", "changed but not committed\n");
	await expect(runWorkflow(repo, { workflow: "two", workspace: "worktree" })).rejects.toThrow(
		/these tracked files have changes it would not see: README\.md; commit or stash them, or pass --allow-dirty/,
	);
	const outcome = await runWorkflow(repo, { workflow: "two", workspace: "worktree", allowDirty: true });
	expect(outcome.status).toBe("completed");
	execFileSync("git", ["checkout", "--", "README.md"], { cwd: repo.dir });

	// Work left in a worktree after the run, by an agent or a person.
	const tree = join(repo.dir, ".crew", "worktrees", outcome.runId, "a");
	repo.writeFile(`.crew/worktrees/${outcome.runId}/a/left-behind.txt`, "do not lose me\n");
	const listed = JSON.parse((await crew(repo.dir, ["worktrees", outcome.runId, "--json"])).stdout);
	expect(listed.map((t: { taskId: string; dirty: boolean }) => [t.taskId, t.dirty])).toEqual([
		["a", true],
		["b", false],
	]);
	const cleaned = await crew(repo.dir, ["cleanup", outcome.runId]);
	expect(cleaned.code).toBe(0);
	expect(cleaned.stdout).toContain(`${outcome.runId}: 2 worktrees removed`);
	expect(existsSync(tree)).toBe(false);
	expect(show(repo, `crew-tasks/${outcome.runId}/a`, "left-behind.txt")).toBe("do not lose me\n");
	expect((await crew(repo.dir, ["worktrees", "--json"])).stdout.trim()).toBe("[]");

	const second = await runWorkflow(repo, { workflow: "two", workspace: "worktree" });
	expect((await crew(repo.dir, ["prune", "--older-than", "1d"])).stdout).toMatch(/no ended run older than 1d/);
	const pruned = await crew(repo.dir, ["prune", "--older-than", "0m"]);
	expect(pruned.stdout).toContain(`${second.runId}: 2 worktrees removed`);
	expect((await crew(repo.dir, ["prune", "--older-than", "soon"])).stderr).toMatch(/invalid age 'soon'/);
});

test("after kill -9 of the runner mid-task, resume keeps the task's partial work and starts it again clean", async () => {
	const repo = gitRepo();
	agent(
		repo,
		"slow",
		'echo partial > partial.txt; if [ "$CREW_ATTEMPT" -lt 2 ]; then sleep 30; fi; echo done > done.txt',
	);
	repo.workflow("one", [{ id: "t", role: "slow" }]);
	const started = await crew(repo.dir, [
		"run",
		"g",
		"--workflow",
		"one",
		"--workspace",
		"worktree",
		"--detach",
		"--json",
	]);
	const { runId } = JSON.parse(started.stdout.trim().split("\n").pop() ?? "{}");
	const partial = join(repo.dir, ".crew", "worktrees", runId, "t", "partial.txt");
	await waitFor("the task's partial work", () => existsSync(partial));
	const reader = new Crew({ project: projectAt(repo.dir) });
	const pid = reader.run(runId).lease?.pid ?? 0;
	reader.close();
	process.kill(pid, "SIGKILL");
	await waitFor("the runner to die", () => !isAlive(pid));

	const resumed = await crew(repo.dir, ["resume", runId]);
	expect(resumed.code).toBe(0);
	expect(show(repo, `crew-attempts/${runId}/t/1`, "partial.txt")).toBe("partial\n");
	expect(show(repo, `crew-tasks/${runId}/t`, "done.txt")).toBe("done\n");
	const recovered = join(repo.dir, ".crew", "runs", runId, "tasks", "t", "attempt-2.recovered.patch");
	expect(readFileSync(recovered, "utf8")).toContain("+partial");
});

test("the user's setup hook runs in each new worktree before the agent; a failing or slow hook fails the task and removes the worktree", async () => {
	const repo = gitRepo();
	repo.writeFile(".gitignore", "deps/\n");
	execFileSync("git", ["add", ".gitignore"], { cwd: repo.dir });
	execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "ignore deps"], { cwd: repo.dir });
	agent(repo, "user", "cat deps/ok > seen.txt");
	repo.workflow("one", [{ id: "t", role: "user" }]);
	const setup = (command: string, timeoutMs = 60_000) => ({ command, timeoutMs });

	const ok = await runWorkflow(repo, {
		workflow: "one",
		workspace: "worktree",
		setup: setup("mkdir -p deps && echo installed > deps/ok"),
	});
	expect(ok.status).toBe("completed");
	expect(show(repo, `crew-tasks/${ok.runId}/t`, "seen.txt")).toBe("installed\n");
	expect(show(repo, `crew-tasks/${ok.runId}/t`, "deps/ok")).toBeUndefined();

	const broken = await runWorkflow(repo, {
		workflow: "one",
		workspace: "worktree",
		retries: 0,
		setup: setup('echo "cannot install"; exit 3'),
	});
	expect(broken.status).toBe("failed");
	expect(broken.tasks.get("t")?.error).toMatch(
		/^the setup hook `echo "cannot install"; exit 3` failed: .*\ncannot install$/s,
	);
	expect(existsSync(join(repo.dir, ".crew", "worktrees", broken.runId, "t"))).toBe(false);

	const slow = await runWorkflow(repo, {
		workflow: "one",
		workspace: "worktree",
		retries: 0,
		setup: setup("sleep 5", 300),
	});
	expect(slow.tasks.get("t")?.error).toBe("the setup hook `sleep 5` timed out after 300ms");
});

test("a project's config.json cannot set a setup hook: it is ignored, with a warning", async () => {
	const repo = gitRepo();
	agent(repo, "w", "ls > seen.txt");
	repo.workflow("one", [{ id: "t", role: "w" }]);
	repo.writeFile(".crew/config.json", '{"worktree": {"setup": "touch hooked.txt"}}');
	const run = await crew(repo.dir, ["run", "g", "--workflow", "one", "--workspace", "worktree", "--json"]);
	expect(run.code).toBe(0);
	expect(run.stderr).toMatch(/config\.json: "worktree" is ignored: only your user config may set it/);
	const { runId } = JSON.parse(run.stdout.trim().split("\n").at(-1) ?? "{}");
	expect(show(repo, `crew-tasks/${runId}/t`, "seen.txt")).not.toContain("hooked.txt");
});

test("worktree paths and branch names are built only from valid ids", () => {
	const trees = new Worktrees("/repo", "/repo/.crew");
	expect(trees.branchOf("r1", "t.2")).toBe("crew-tasks/r1/t.2");
	expect(() => trees.branchOf("../r", "t")).toThrow(/invalid run id/);
	expect(() => trees.pathOf("r", "a/b")).toThrow(/invalid task id/);
	expect(() => trees.pathOf("r", "..")).toThrow(/invalid task id/);
});

test("a worktree asked for again for the same attempt is given back as it is; a kept attempt's branch is never overwritten", async () => {
	const repo = gitRepo();
	const git = (...args: string[]) => execFileSync("git", args, { cwd: repo.dir, encoding: "utf8", stdio: "pipe" });
	const base = git("rev-parse", "HEAD").trim();
	const trees = new Worktrees(repo.dir, join(repo.dir, ".crew"));
	const first = await trees.prepare("r1", "t", 1, base, []);
	repo.writeFile(".crew/worktrees/r1/t/one.txt", "attempt 1\n");
	await trees.commit(first, "attempt 1");
	const kept = git("rev-parse", "crew-tasks/r1/t").trim();

	// Attempt 2's worktree, asked for twice: the second time it is the same, its work untouched.
	const second = await trees.prepare("r1", "t", 2, base, []);
	expect(second.start).toBe(base);
	expect(git("rev-parse", "crew-attempts/r1/t/1").trim()).toBe(kept);
	repo.writeFile(".crew/worktrees/r1/t/two.txt", "attempt 2\n");
	const again = await trees.prepare("r1", "t", 2, base, []);
	expect(again).toEqual({ path: second.path, branch: second.branch, start: base });
	expect(readFileSync(join(second.path, "two.txt"), "utf8")).toBe("attempt 2\n");
	expect(git("rev-parse", "crew-attempts/r1/t/1").trim()).toBe(kept);

	// A branch by the name attempt 2's work would be kept under: the work goes beside it.
	git("branch", "crew-attempts/r1/t/2", base);
	const third = await trees.prepare("r1", "t", 3, base, []);
	expect(third.recovered?.branch).toBe("crew-attempts/r1/t/2.2");
	expect(git("rev-parse", "crew-attempts/r1/t/2").trim()).toBe(base);
	expect(show(repo, "crew-attempts/r1/t/2.2", "two.txt")).toBe("attempt 2\n");
	expect(git("rev-parse", "crew-attempts/r1/t/1").trim()).toBe(kept);

	// A worktree gone (removed by hand, or after a failed setup hook): its branch is kept as the attempt before.
	await trees.discard("r1", "t");
	await trees.prepare("r1", "t", 4, base, []);
	expect(git("for-each-ref", "--format=%(refname:short)", "refs/heads/crew-attempts/r1/t").trim().split("\n")).toEqual([
		"crew-attempts/r1/t/1",
		"crew-attempts/r1/t/2",
		"crew-attempts/r1/t/2.2",
		"crew-attempts/r1/t/3",
	]);
	expect(git("rev-parse", "crew-attempts/r1/t/1").trim()).toBe(kept);
});
