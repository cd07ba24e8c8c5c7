import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "vitest";
import { CLI, cancelLiveRuns, crew, exitOf, gitRepo, waitFor } from "../helpers.js";

test("crew merge refuses a run killed while it integrated, naming crew resume, and merges once the run has recorded its integration", async () => {
	const repo = gitRepo();
	// The user's git checks out *.slow files through a filter of theirs, slow enough to be caught
	// merging: its first call means the run is integrating.
	const started = join(mkdtempSync(join(tmpdir(), "crew-merge-")), "integrating");
	const gitconfig = join(repo.dir, "..", `${repo.dir.split("/").at(-1)}.gitconfig`);
	writeFileSync(gitconfig, `[filter "slow"]\n\tsmudge = touch ${started} && sleep 1 && cat\n\tclean = cat\n`);
	const env = { ...process.env, GIT_CONFIG_GLOBAL: gitconfig };
	repo.writeFile(".gitattributes", "*.slow filter=slow\n");
	const git = (...args: string[]) => execFileSync("git", args, { cwd: repo.dir, env, encoding: "utf8" }).trim();
	git("add", ".gitattributes");
	git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "attributes");
	repo.commandAgent("a-writer", "echo a > a.slow").commandAgent("b-writer", "echo b > b.slow");
	repo.workflow("pair", [
		{ id: "a", role: "a-writer" },
		{ id: "b", role: "b-writer" },
	]);

	// The runner in a process group of its own, all of which is killed, as a machine's crash would:
	// its git too, mid-merge (the agents had their own groups, and have ended).
	const runner = spawn(process.execPath, [CLI, "run", "goal", "--workflow", "pair", "--workspace", "worktree"], {
		cwd: repo.dir,
		env,
		stdio: "ignore",
		detached: true,
	});
	try {
		await waitFor("the run integrating", () => existsSync(started));
		process.kill(-(runner.pid as number), "SIGKILL");
		await exitOf(runner);
		const [run] = JSON.parse((await crew(repo.dir, ["runs", "--json"], 60_000, env)).stdout) as { id: string }[];
		const runId = run?.id as string;

		const merge = await crew(repo.dir, ["merge", runId], 60_000, env);
		expect(merge.code).not.toBe(0);
		expect(merge.stderr).toContain(`crew resume ${runId}`);
		expect(git("log", "--format=%s", "-1")).toBe("attributes");

		const resumed = await crew(repo.dir, ["resume", runId], 120_000, env);
		expect(resumed.code, resumed.stdout + resumed.stderr).toBe(0);
		const merged = await crew(repo.dir, ["merge", runId], 60_000, env);
		expect(merged.code, merged.stderr).toBe(0);
		expect(git("show", "HEAD:a.slow")).toBe("a");
		expect(git("show", "HEAD:b.slow")).toBe("b");
	} finally {
		if (runner.exitCode === null && runner.signalCode === null) process.kill(-(runner.pid as number), "SIGKILL");
		await cancelLiveRuns(repo.dir);
	}
});

test("crew merge refuses an integration branch moved since the run recorded it", async () => {
	const repo = gitRepo();
	repo.commandAgent("a-writer", "echo a > a.txt").commandAgent("b-writer", "echo b > b.txt");
	repo.workflow("pair", [
		{ id: "a", role: "a-writer" },
		{ id: "b", role: "b-writer" },
	]);
	const run = await crew(repo.dir, ["run", "goal", "--workflow", "pair", "--workspace", "worktree", "--json"]);
	const { runId } = JSON.parse(run.stdout.trim().split("\n").at(-1) as string) as { runId: string };
	const git = (...args: string[]) => execFileSync("git", args, { cwd: repo.dir, encoding: "utf8" }).trim();
	const recorded = git("rev-parse", `crew/${runId}`);
	const moved = git(
		"-c",
		"user.name=t",
		"-c",
		"user.email=t@t",
		"commit-tree",
		`${recorded}^{tree}`,
		"-p",
		recorded,
		"-m",
		"later",
	);
	git("update-ref", `refs/heads/crew/${runId}`, moved);

	const merge = await crew(repo.dir, ["merge", runId]);
	expect(merge.code).not.toBe(0);
	expect(merge.stderr).toContain(`crew/${runId} is at ${moved.slice(0, 12)}, not at ${recorded.slice(0, 12)}`);
	expect(git("log", "--format=%s", "-1")).toBe("start");
});
