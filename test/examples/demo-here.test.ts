// @module-tag agent-cli
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { crew, gitRepo } from "../helpers.js";

test("crew demo --here runs the sample team on the current repository with the scripted model, changing none of its files", async () => {
	const repo = gitRepo();
	repo.writeFile("src/main.js", "export const answer = 42;\n");
	const git = (...args: string[]) => execFileSync("git", args, { cwd: repo.dir }).toString();
	git("add", "src/main.js");
	git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "add the answer");
	repo.writeFile("README.md", "a sample, being edited\n");
	const before = { status: git("status", "--porcelain"), diff: git("diff") };

	const demo = await crew(repo.dir, ["demo", "--here"]);

	expect(demo.code, demo.stderr).toBe(0);
	expect(demo.stdout).toContain(`your repository: ${repo.dir}`);
	expect(demo.stdout).toMatch(/run \S+ completed in .*: 3 completed/);
	// The report is made of what the agents' real commands returned.
	expect(demo.stdout).toMatch(
		/map:\n2 tracked files; the largest folders and files at the top:\n1 README\.md\n1 src\//,
	);
	expect(demo.stdout).toMatch(
		/history:\nthe latest commits:\n\w+ \d{4}-\d{2}-\d{2} add the answer\n\w+ \d{4}-\d{2}-\d{2} start/,
	);
	expect(demo.stdout).toContain("tracked files with uncommitted changes: 1");
	expect(demo.stdout).toContain("the model answered 6 requests from pi");
	expect(demo.stdout).toContain("to run crew here on a real model");
	// The repository's files are as they were, and crew's record of the run is ignored by the
	// repository's own exclude file: git lists no file of crew's.
	expect(git("diff")).toBe(before.diff);
	expect(git("status", "--porcelain")).toBe(before.status);
	expect(existsSync(join(repo.dir, ".crew", "crew.db"))).toBe(true);
	expect(JSON.parse((await crew(repo.dir, ["status", "--json"])).stdout).run.status).toBe("completed");
});

test("crew demo --here outside a git repository says so", async () => {
	const repo = gitRepo();
	execFileSync("rm", ["-rf", ".git"], { cwd: repo.dir });
	const demo = await crew(repo.dir, ["demo", "--here"]);
	expect(demo.code).toBe(2);
	expect(demo.stderr).toBe(`demo: --here looks around a git repository, and ${repo.dir} is not in one\n`);
});
