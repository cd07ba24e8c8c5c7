// @module-tag redis
// @slow: a Redis queue and remote workers with checkouts of their own, a dead coordinator among them
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "vitest";
import { TrustStore } from "../../../src/config/trust.js";
import {
	crew,
	crewProcess,
	exitOf,
	failingHooks,
	gitRepo,
	isAlive,
	read,
	strictGitUser,
	type TestRepo,
	waitFor,
} from "../../helpers.js";
import { remoteFixture } from "./remote-fixture.js";

const remote = remoteFixture();

const git = (repo: TestRepo, ...args: string[]) =>
	execFileSync("git", args, { cwd: repo.dir, encoding: "utf8", stdio: "pipe" });

/**
 * A committed repository whose `deps/` is ignored, with command agents by name, unconfined: some
 * leave marks outside their checkout.
 */
function repository(agents: Record<string, string>): TestRepo {
	const repo = gitRepo();
	remote.keep(repo);
	repo.writeFile(".gitignore", "deps/\nwork-*/\n");
	git(repo, "add", ".gitignore");
	git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "ignore deps");
	for (const [name, command] of Object.entries(agents)) {
		repo.writeFile(
			`.crew/agents/${name}.md`,
			`---\nname: ${name}\nruntime: command\ncommand: ${command}\nsandbox: off\n---\n`,
		);
	}
	return repo;
}

/** The environment of a user whose config sets a worktree setup hook, and who trusts `repo`. */
function userWithSetup(repo: TestRepo, hook: string): NodeJS.ProcessEnv {
	const env = { ...process.env, XDG_CONFIG_HOME: mkdtempSync(join(tmpdir(), "crew-user-")) };
	mkdirSync(join(env.XDG_CONFIG_HOME, "crew"), { recursive: true });
	writeFileSync(join(env.XDG_CONFIG_HOME, "crew", "config.json"), JSON.stringify({ worktree: { setup: hook } }));
	new TrustStore(env).trust(repo.dir);
	return env;
}

test("a repository's tasks work in checkouts on the workers: setup, agent and check there, dependencies' work in, changes back as branches", async () => {
	const repo = repository({
		wa: "test -f deps/ok && echo from-a > a.txt && echo more >> README.md",
		wb: String.raw`mkdir -p sub && printf 'x\000y' > sub/b.bin`,
		wc: "cat a.txt > seen.txt && od -An -c sub/b.bin >> seen.txt && pwd > where.txt && rm README.md",
	});
	repo.workflow("tree", [
		{ id: "a", role: "wa" },
		{ id: "b", role: "wb" },
		{ id: "c", role: "wc", dependsOn: ["a", "b"], extra: { verify: "grep -q from-a seen.txt && test -f deps/ok" } },
	]);
	const env = userWithSetup(repo, "mkdir -p deps && echo installed > deps/ok");
	await remote.worker("A", repo.dir);
	await remote.worker("B", repo.dir);
	const run = await crew(repo.dir, ["run", "g", "--workflow", "tree", "--queue", remote.url, "--json"], 60_000, env);
	expect(run.code, run.stdout + run.stderr).toBe(0);
	const { runId } = JSON.parse(run.stdout.trim().split("\n").at(-1) as string) as { runId: string };
	const { tasks } = read(repo.dir, (r) => r.status(runId));
	expect(tasks.map((t) => [t.id, t.status, t.attempts])).toEqual([
		["a", "completed", 1],
		["b", "completed", 1],
		["c", "completed", 1],
	]);

	const show = (ref: string, file: string) => git(repo, "show", `${ref}:${file}`);
	const branch = (task: string) => `crew-tasks/${runId}/${task}`;
	expect(show(branch("a"), "a.txt")).toBe("from-a\n");
	expect(show(branch("a"), "README.md")).toBe("a sample\nmore\n");
	expect(execFileSync("git", ["show", `${branch("b")}:sub/b.bin`], { cwd: repo.dir })).toEqual(
		Buffer.from("x\0y", "binary"),
	);
	// c started from a's and b's work, merged: a's file and b's binary file; its deletion came back too.
	expect(show(branch("c"), "seen.txt")).toMatch(/^from-a\n\s+x\s+\\0\s+y\n$/);
	expect(git(repo, "ls-tree", "--name-only", "-r", branch("c")).split("\n")).not.toContain("README.md");
	// It worked on a worker, in that worker's own folder, not in the coordinator's worktree.
	expect(show(branch("c"), "where.txt")).toMatch(new RegExp(`^${repo.dir}/work-[AB]/attempts/\\d+/`));
	// The setup hook's ignored files stayed on the worker; the check ran there and its output came back.
	expect(git(repo, "ls-tree", "-r", "--name-only", `crew/${runId}`).split("\n").filter(Boolean).sort()).toEqual([
		".gitignore",
		"a.txt",
		"seen.txt",
		"sub/b.bin",
		"where.txt",
	]);
	const files = join(repo.dir, ".crew", "runs", runId, "tasks");
	expect(existsSync(join(files, "c", "check", "attempt-1.output.txt"))).toBe(true);
	expect(readFileSync(join(files, "a", "attempt-1.patch"), "utf8")).toContain("+from-a");
	// The user's checkout is untouched, and the workers left no attempt folders or worktrees behind.
	expect(existsSync(join(repo.dir, "a.txt"))).toBe(false);
	for (const name of ["A", "B"]) {
		const attempts = join(repo.dir, `work-${name}`, "attempts");
		for (const pid of readdirSync(attempts)) expect(readdirSync(join(attempts, pid))).toEqual([]);
		const copies = join(repo.dir, `work-${name}`, "repositories");
		for (const copy of readdirSync(copies)) {
			const trees = execFileSync("git", ["worktree", "list", "--porcelain"], { cwd: join(copies, copy) });
			expect(trees.toString().match(/^worktree /gm)).toHaveLength(1);
		}
	}
});

test("a user's git config that signs with a failing program and fails every hook breaks no git work of crew's, on either side of the queue", async () => {
	const repo = repository({ wa: "echo one > one.txt", wd: "echo two > two.txt", we: "cat one.txt two.txt > both.txt" });
	repo.workflow("join", [
		{ id: "a", role: "wa" },
		{ id: "d", role: "wd" },
		{ id: "e", role: "we", dependsOn: ["a", "d"] },
	]);
	const hooks = mkdtempSync(join(tmpdir(), "crew-hooks-"));
	failingHooks(hooks, join(hooks, "ran.log"));
	const env = strictGitUser(hooks);
	await remote.worker("A", repo.dir, env);
	const run = await crew(repo.dir, ["run", "g", "--workflow", "join", "--queue", remote.url, "--json"], 60_000, env);
	expect(run.code, run.stdout + run.stderr).toBe(0);
	const { runId } = JSON.parse(run.stdout.trim().split("\n").at(-1) as string) as { runId: string };
	expect(git(repo, "show", `crew-tasks/${runId}/e:both.txt`)).toBe("one\ntwo\n");
	expect(git(repo, "show", `crew/${runId}:both.txt`)).toBe("one\ntwo\n");
	expect(existsSync(join(hooks, "ran.log"))).toBe(false);
});

test("resume follows a dead coordinator's attempt in the worktree it made: the attempt before keeps its work, the followed one's is the task's", async () => {
	const marks = mkdtempSync(join(tmpdir(), "crew-marks-"));
	const second = [
		`touch ${marks}/started-2`,
		`while [ ! -f ${marks}/go ]; do sleep 0.1; done`,
		"echo second > second.txt",
	];
	const repo = repository({
		flaky: `if [ "$CREW_ATTEMPT" -lt 2 ]; then echo first > first.txt; exit 75; fi; ${second.join("; ")}`,
	});
	repo.workflow("one", [{ id: "t", role: "flaky" }]);
	await remote.worker("A", repo.dir);
	const runner = crewProcess(repo.dir, ["run", "g", "--workflow", "one", "--queue", remote.url, "--retries", "1"]);
	await waitFor("attempt 2 running on the worker", () => existsSync(join(marks, "started-2")), 30_000);
	const runId = read(repo.dir, (r) => r.repo.runs()[0]?.id) as string;
	const kept = `crew-attempts/${runId}/t/1`;
	const first = git(repo, "rev-parse", kept).trim();
	expect(git(repo, "show", `${kept}:first.txt`)).toBe("first\n");
	runner.kill("SIGKILL");
	await exitOf(runner);

	const resumed = crew(repo.dir, ["resume", runId], 60_000);
	await waitFor("the resumed runner", () => read(repo.dir, (r) => r.status(runId).run.lease?.pid !== runner.pid));
	writeFileSync(join(marks, "go"), "");
	const done = await resumed;
	expect(done.code, done.stdout + done.stderr).toBe(0);
	const attempts = read(repo.dir, (r) => r.attempts(runId));
	expect(attempts.map((a) => [a.number, a.status])).toEqual([
		[1, "failed"],
		[2, "completed"],
	]);
	expect(git(repo, "rev-parse", kept).trim()).toBe(first);
	expect(git(repo, "for-each-ref", "--format=%(refname:short)", `refs/heads/crew-attempts/${runId}`).trim()).toBe(kept);
	const task = `crew-tasks/${runId}/t`;
	expect(git(repo, "show", `${task}:second.txt`)).toBe("second\n");
	expect(git(repo, "ls-tree", "--name-only", task).split("\n")).not.toContain("first.txt");
	expect(git(repo, "show", `crew/${runId}:second.txt`)).toBe("second\n");
});

test("a check that fails on the worker is retried with its output; a failing setup hook fails the attempt", async () => {
	const marks = mkdtempSync(join(tmpdir(), "crew-marks-"));
	const repo = repository({ fixer: "echo fixed >> fixes.txt" });
	const check = `test -f ${marks}/checked || { touch ${marks}/checked; echo not yet; exit 1; }`;
	repo.workflow("fix", [{ id: "fix", role: "fixer", extra: { verify: check } }]);
	await remote.worker("A", repo.dir);
	const run = await crew(repo.dir, ["run", "g", "--workflow", "fix", "--queue", remote.url, "--json"], 60_000);
	expect(run.code, run.stdout + run.stderr).toBe(0);
	const { runId } = JSON.parse(run.stdout.trim().split("\n").at(-1) as string) as { runId: string };
	const attempts = read(repo.dir, (r) => r.attempts(runId));
	expect(attempts.map((a) => a.status)).toEqual(["failed", "completed"]);
	expect(attempts[0]?.error).toMatch(/^the check `test -f .*` failed/);
	const evidence = join(repo.dir, ".crew", "runs", runId, "tasks", "fix", "check", "attempt-1.output.txt");
	expect(readFileSync(evidence, "utf8")).toBe("not yet\n");
	// Each attempt's work is on a branch: the failed one's kept, the completed one's the task's.
	expect(git(repo, "show", `crew-attempts/${runId}/fix/1:fixes.txt`)).toBe("fixed\n");
	expect(git(repo, "show", `crew-tasks/${runId}/fix:fixes.txt`)).toBe("fixed\n");

	const broken = userWithSetup(repo, "echo cannot install; exit 3");
	const failed = await crew(repo.dir, ["run", "g", "--workflow", "fix", "--queue", remote.url], 60_000, broken);
	expect(failed.code).not.toBe(0);
	const second = read(repo.dir, (r) => r.repo.runs().find((other) => other.id !== runId)?.id) as string;
	const [task] = read(repo.dir, (r) => r.status(second).tasks);
	expect(task?.status).toBe("failed");
	expect(task?.error).toMatch(/^the setup hook `echo cannot install; exit 3` failed: .*\ncannot install$/s);
});

test("a base commit the workers cannot fetch fails the attempt, naming the commit and where it was looked for", async () => {
	const repo = repository({ w: "echo ok" });
	repo.workflow("one", [{ id: "one", role: "w" }]);
	await remote.worker("A", repo.dir);
	const nowhere = join(repo.dir, "no-such-repository");
	const args = ["run", "g", "--workflow", "one", "--queue", remote.url, "--repository", nowhere, "--retries", "0"];
	const run = await crew(repo.dir, args);
	expect(run.code).not.toBe(0);
	const base = git(repo, "rev-parse", "HEAD").trim();
	const [task] = read(repo.dir, (r) => r.status().tasks);
	expect(task?.error).toContain(`cannot fetch the run's base commit ${base} from ${nowhere}`);
});

test("a queue that does not answer stops the run from starting, at once and saying so", async () => {
	const repo = repository({ w: "echo ok" });
	repo.workflow("one", [{ id: "one", role: "w" }]);
	const down = "redis://127.0.0.1:9";
	const started = Date.now();
	const run = await crew(repo.dir, ["run", "g", "--workflow", "one", "--queue", down]);
	expect(Date.now() - started).toBeLessThan(30_000);
	expect(run.code).not.toBe(0);
	const refused = "connect ECONNREFUSED 127.0.0.1:9";
	expect(run.stderr).toContain(`the queue at ${down} does not answer (${refused}); is Redis running?`);
	// Nothing started; the run can be resumed once the queue answers.
	const status = read(repo.dir, (r) => r.status());
	expect(status.run.status).toBe("failed");
	expect(status.tasks.map((t) => [t.status, t.attempts])).toEqual([["cancelled", 0]]);
});

test("cancelling a queue run whose coordinator died ends its agents on a worker restarted on its work folder", async () => {
	const gates = mkdtempSync(join(tmpdir(), "crew-gates-"));
	const repo = repository({ quick: "echo done" });
	repo.agent("w", `--answer --gate ${gates}`);
	repo.workflow("one", [{ id: "one", role: "quick" }]);
	repo.workflow("pair", [
		{ id: "left", role: "w" },
		{ id: "right", role: "w" },
	]);
	// A worker that ran an attempt and stopped leaves a copy of the repository in its work folder.
	const first = await remote.worker("A", repo.dir);
	expect((await crew(repo.dir, ["run", "g", "--workflow", "one", "--queue", remote.url])).code).toBe(0);
	first.kill("SIGTERM");
	await exitOf(first);
	await remote.worker("A", repo.dir);
	const runner = crewProcess(repo.dir, ["run", "g", "--workflow", "pair", "--queue", remote.url]);
	await waitFor("both tasks running on the worker", () => repo.starts().length === 2);
	runner.kill("SIGKILL");
	await exitOf(runner);
	const runId = read(repo.dir, (r) => r.repo.runs().find((run) => run.workflow === "pair")?.id) as string;
	const cancelled = await crew(repo.dir, ["cancel", runId]);
	expect(cancelled.code, cancelled.stderr).toBe(0);
	expect(read(repo.dir, (r) => r.status(runId).run.status)).toBe("cancelled");
	for (const start of repo.starts()) await waitFor(`agent ${start.task} ended`, () => !isAlive(start.pid), 10_000);
	expect(repo.ends()).toEqual([]);
});

test("a worker runs no command of a repository its own host does not trust, whatever the coordinator trusts; trusted there, or named with --trust, it does", async () => {
	const repo = repository({ wa: "echo from-a > a.txt" });
	repo.workflow("one", [{ id: "a", role: "wa", extra: { verify: "test -f a.txt" } }]);
	// The worker's host: a user of its own, who trusts nothing yet.
	const host = { ...process.env, XDG_CONFIG_HOME: mkdtempSync(join(tmpdir(), "crew-host-")) };
	const untrusting = await remote.worker("A", repo.dir, host, []);
	const refused = await crew(repo.dir, ["run", "g", "--workflow", "one", "--queue", remote.url, "--json"], 60_000);
	expect(refused.code).toBe(1);
	const runId = JSON.parse(refused.stdout.trim().split("\n").at(-1) as string).runId as string;
	const [task] = read(repo.dir, (r) => r.status(runId)).tasks;
	expect(task?.status).toBe("failed");
	expect(task?.error).toContain(`this worker does not trust the repository ${repo.dir}`);
	expect(task?.error).toContain("agent 'wa': echo from-a > a.txt");
	expect(task?.error).toContain("the check: test -f a.txt");
	expect(task?.error).toContain(`--trust ${repo.dir}`);
	expect(git(repo, "ls-tree", "--name-only", "-r", `crew-tasks/${runId}/a`)).not.toContain("a.txt");
	untrusting.kill("SIGTERM");
	await exitOf(untrusting);

	const naming = await remote.worker("B", repo.dir, host, ["--trust", repo.dir]);
	const named = await crew(repo.dir, ["run", "g", "--workflow", "one", "--queue", remote.url], 60_000);
	expect(named.code, named.stdout + named.stderr).toBe(0);
	naming.kill("SIGTERM");
	await exitOf(naming);

	new TrustStore(host).trust(repo.dir);
	await remote.worker("C", repo.dir, host, []);
	const recorded = await crew(repo.dir, ["run", "g", "--workflow", "one", "--queue", remote.url], 60_000);
	expect(recorded.code, recorded.stdout + recorded.stderr).toBe(0);
});
