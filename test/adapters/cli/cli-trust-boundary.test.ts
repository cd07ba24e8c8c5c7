import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "vitest";
import { crew, maxOverlap, ROOT, TestRepo } from "../../helpers.js";

/** A user config folder holding `config`, and the environment that uses it. */
function userConfig(config: object): NodeJS.ProcessEnv {
	const home = mkdtempSync(join(tmpdir(), "crew-home-"));
	mkdirSync(join(home, "crew"), { recursive: true });
	writeFileSync(join(home, "crew", "config.json"), JSON.stringify(config));
	return { ...process.env, XDG_CONFIG_HOME: home, USER_PASSED: "from-the-user", LEAK_ME: "not-for-agents" };
}

/**
 * A stand-in pi program: it writes its environment to `envFile` and answers like pi. `marker`
 * is created when it runs at all.
 */
function fakePi(dir: string, name: string): { program: string; envFile: string } {
	const program = join(dir, `${name}.sh`);
	const envFile = join(dir, `${name}.env`);
	const output = join(ROOT, "test", "fixtures", "fake-cli-output.mjs");
	writeFileSync(program, `#!/bin/sh\nenv > ${envFile}\nexec ${process.execPath} ${output} pi\n`);
	chmodSync(program, 0o755);
	return { program, envFile };
}

test("a project's config.json cannot set agent programs, extra environment, setup hooks, the concurrency cap, a queue or the sandbox: each is ignored, with a warning", async () => {
	const repo = new TestRepo();
	const outside = mkdtempSync(join(tmpdir(), "crew-programs-"));
	const mine = fakePi(outside, "users-pi");
	const theirs = fakePi(outside, "projects-pi");
	repo.writeFile(".crew/agents/thinker.md", "---\nname: thinker\nruntime: pi\nmodel: any/model\n---\nYou think.\n");
	repo.workflow("one", [{ id: "a", role: "thinker" }]);
	repo.writeFile(
		".crew/config.json",
		JSON.stringify({
			runtimes: { pi: theirs.program },
			passEnv: ["LEAK_ME"],
			worktree: { setup: "touch hooked.txt" },
			maxConcurrency: 999,
			queue: { url: "redis://127.0.0.1:1" },
			sandbox: "strict",
		}),
	);
	// Unconfined, by the user's config: the programs write their environment beside themselves.
	const env = userConfig({ runtimes: { pi: mine.program }, passEnv: ["USER_PASSED"], sandbox: "off" });
	expect((await crew(repo.dir, ["trust"], 60_000, env)).code).toBe(0);

	const run = await crew(repo.dir, ["run", "g", "--workflow", "one", "--json"], 60_000, env);
	expect(run.code).toBe(0);
	for (const key of ["runtimes", "passEnv", "worktree", "maxConcurrency", "queue", "sandbox"]) {
		expect(run.stderr).toMatch(
			new RegExp(`crew: warning: .*\\.crew/config\\.json: "${key}" is ignored: only your user config may set it\\n`),
		);
	}
	// The user's program ran, the project's never did.
	expect(existsSync(mine.envFile)).toBe(true);
	expect(existsSync(theirs.envFile)).toBe(false);
	const seen = readFileSync(mine.envFile, "utf8");
	expect(seen).toContain("USER_PASSED=from-the-user\n");
	expect(seen).not.toContain("LEAK_ME");
	expect(repo.exists("hooked.txt")).toBe(false);
});

test("a project's team asking for 500 tasks at once is held to the user's cap, with a warning", async () => {
	const repo = new TestRepo().agent("worker", "--sleep 400");
	repo.writeFile(".crew/teams/swarm.md", "---\nname: swarm\nmaxConcurrency: 500\n---\n- worker: agent=worker\n");
	repo.workflow(
		"wide",
		["a", "b", "c", "d", "e"].map((id) => ({ id })),
	);
	const env = userConfig({ maxConcurrency: 2 });
	expect((await crew(repo.dir, ["trust"], 60_000, env)).code).toBe(0);

	const run = await crew(repo.dir, ["run", "g", "--workflow", "wide", "--team", "swarm", "--json"], 60_000, env);
	expect(run.code).toBe(0);
	expect(run.stderr).toMatch(
		/crew: warning: .*swarm\.md: maxConcurrency 500 is held to 2, the most your user config \(maxConcurrency\) lets a project ask for/,
	);
	expect(maxOverlap(repo.entries())).toBe(2);

	// The user's own flag is the user's choice: it is not held.
	const flagged = await crew(
		repo.dir,
		["run", "g", "--workflow", "wide", "--team", "swarm", "--concurrency", "5", "--json"],
		60_000,
		env,
	);
	expect(flagged.code).toBe(0);
	expect(flagged.stderr).not.toContain("is held to");
});

test("a bad user-only setting is refused with the file and value named", async () => {
	const repo = new TestRepo().agent("worker");
	repo.workflow("one", [{ id: "a" }]);
	for (const [config, message] of [
		[
			{ runtimes: { gemini: "/bin/true" } },
			/config\.json: runtimes\.gemini "\/bin\/true": expected a program path for pi, claude or codex/,
		],
		[{ passEnv: ["OK", "not ok"] }, /config\.json: "passEnv" \["OK","not ok"\]: expected a list of variable names/],
		[{ maxConcurrency: 0 }, /config\.json: maxConcurrency 0: expected an integer >= 1/],
		[
			{ nesting: { maxDepth: 0 } },
			/config\.json: "nesting" \{"maxDepth":0\}: expected \{"maxDepth": N\} with N from 1 to 8/,
		],
	] as const) {
		const env = userConfig(config);
		const run = await crew(repo.dir, ["run", "g", "--workflow", "one"], 60_000, env);
		expect(run.code).toBe(2);
		expect(run.stderr).toMatch(message);
	}
	expect(repo.starts()).toHaveLength(0);
});
