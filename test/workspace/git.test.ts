import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "vitest";
import { CrewError, ErrorCode } from "../../src/core/errors.js";
import { Worktrees } from "../../src/workspace/worktrees.js";
import { crew, failingHooks, gitRepo, strictGitUser, type TestRepo } from "../helpers.js";

const git = (repo: TestRepo, ...args: string[]) =>
	execFileSync("git", args, { cwd: repo.dir, encoding: "utf8", stdio: "pipe" });

test("crew's own commits and merges ignore the user's signing, hooks and merge settings; the work lands", async () => {
	const repo = gitRepo();
	const hooks = join(mkdtempSync(join(tmpdir(), "crew-hooks-")), "ran.log");
	failingHooks(join(repo.dir, ".git", "hooks"), hooks);
	for (const [name, command] of Object.entries({
		first: "echo one > one.txt",
		second: "echo two > two.txt",
		third: "cat one.txt two.txt > three.txt",
	})) {
		repo.writeFile(`.crew/agents/${name}.md`, `---\nname: ${name}\nruntime: command\ncommand: ${command}\n---\n`);
	}
	repo.workflow("relay", [
		{ id: "a", role: "first" },
		{ id: "b", role: "second", dependsOn: ["a"] },
		{ id: "c", role: "third", dependsOn: ["a", "b"] },
		{ id: "d", role: "second" },
		{ id: "e", role: "third", dependsOn: ["a", "d"] },
	]);
	const env = strictGitUser();
	const run = await crew(
		repo.dir,
		["run", "g", "--workflow", "relay", "--workspace", "worktree", "--json"],
		60_000,
		env,
	);
	expect(run.code, run.stdout + run.stderr).toBe(0);
	const { runId } = JSON.parse(run.stdout.trim().split("\n").at(-1) as string) as { runId: string };

	const show = (ref: string, file: string) => git(repo, "show", `${ref}:${file}`);
	const branch = (task: string) => `crew-tasks/${runId}/${task}`;
	expect(show(branch("a"), "one.txt")).toBe("one\n");
	expect(show(branch("b"), "two.txt")).toBe("two\n");
	expect(show(branch("c"), "three.txt")).toBe("one\ntwo\n");
	// e started from a's and d's work, merged on crew's account.
	expect(show(branch("e"), "three.txt")).toBe("one\ntwo\n");
	const merges = git(repo, "log", "--merges", "--format=%an %G?", branch("e")).trim();
	expect(merges).toBe("crew N");
	for (const task of ["a", "b", "c", "d", "e"]) {
		expect(git(repo, "log", "-1", "--format=%an <%ae> %G?", branch(task)).trim()).toBe("crew <crew@localhost> N");
	}
	const integrated = git(repo, "ls-tree", "-r", "--name-only", `crew/${runId}`).split("\n").filter(Boolean);
	expect(integrated.sort()).toEqual(["README.md", "one.txt", "three.txt", "two.txt"]);
	// The task's patch is a patch git applies as it is.
	const patch = readFileSync(join(repo.dir, ".crew", "runs", runId, "tasks", "a", "attempt-1.patch"), "utf8");
	expect(patch).toContain("+++ b/one.txt");
	expect(existsSync(hooks)).toBe(false);

	// `crew merge` is the user's own merge, made with their settings and hooks: their git refuses
	// crew's unsigned commits, in its own words; with signatures unchecked it merges.
	const refused = await crew(repo.dir, ["merge", runId], 60_000, env);
	expect(refused.code).toBe(1);
	expect(refused.stderr).toMatch(/^crew: git merge --no-edit crew\/\S+ failed in .*does not have a GPG signature/m);
	expect(git(repo, "status", "--porcelain", "--untracked-files=no")).toBe("");
	const merged = await crew(repo.dir, ["merge", runId]);
	expect(merged.code, merged.stderr).toBe(0);
	expect(readFileSync(join(repo.dir, "three.txt"), "utf8")).toBe("one\ntwo\n");
	expect(readFileSync(hooks, "utf8")).toBe("post-merge\n");
});

test("a dependency merge that fails without conflicting files fails in git's own words, not as a conflict", async () => {
	const repo = gitRepo();
	// A dependency's branch that shares no history with the run's base: git refuses to merge it.
	const empty = git(repo, "hash-object", "-t", "tree", "-w", "/dev/null").trim();
	const elsewhere = git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit-tree", empty, "-m", "elsewhere");
	git(repo, "branch", "crew-tasks/r1/dep", elsewhere.trim());
	const base = git(repo, "rev-parse", "HEAD").trim();
	const trees = new Worktrees(repo.dir, join(repo.dir, ".crew"));
	const failure = await trees.prepare("r1", "t", 1, base, ["dep"]).catch((error: unknown) => error);
	expect(failure).toBeInstanceOf(CrewError);
	expect((failure as CrewError).code).toBe(ErrorCode.Runtime);
	expect((failure as CrewError).message).toMatch(
		/^git merge --no-edit --quiet crew-tasks\/r1\/dep failed in .*: fatal: refusing to merge unrelated histories$/,
	);
});
