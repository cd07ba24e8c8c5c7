// @module-tag agent-cli
// @slow: crew mcp starts, retries and merges runs of real agents in the background
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, test } from "vitest";
import { TrustStore } from "../../../src/config/trust.js";
import { crew, gitRepo, read, TestRepo } from "../../helpers.js";
import { call, McpClients, ok, untilEnded } from "./mcp-client.js";

const clients = new McpClients();
afterEach(() => clients.close());

/** A run's stored options and tasks, without what differs between two runs of the same request. */
function recorded(dir: string, runId: string): object {
	return read(dir, (reader) => {
		const { cwd: _cwd, caller: _caller, ...options } = reader.run(runId).options;
		const tasks = reader
			.view(runId)
			.tasks.map((t) => ({ id: t.id, agent: t.agent, model: t.model, deps: t.dependsOn }));
		return { options, tasks };
	});
}

function lastJson(stdout: string): { runId: string; status: string } {
	return JSON.parse(stdout.trim().split("\n").at(-1) as string);
}

test("crew_run takes every option crew run has and records the run as crew run with those flags does", async () => {
	const repo = gitRepo().agent("worker");
	repo.workflow("pair", [{ id: "draft" }, { id: "polish", dependsOn: ["draft"] }]);
	const client = await clients.connect(repo.dir);
	const viaMcp = await ok(client, "crew_run", {
		goal: "g",
		workflow: "pair",
		model: "scripted/model-a",
		workspace: "worktree",
		allowDirty: true,
		integration: "manual",
		failure: "abort",
		budgetTokens: 50_000,
		budgetUsd: 2.5,
		reserveTokens: 100,
		until: "test -f README.md",
		maxIterations: 2,
		approvePlan: true,
		concurrency: 2,
		retries: 1,
		timeout: "10m",
		stallTimeout: "0",
	});
	const mcpRun = String(viaMcp.runId);
	const flags = ["--model", "scripted/model-a", "--workspace", "worktree", "--allow-dirty", "--integration", "manual"];
	flags.push("--failure", "abort", "--budget-tokens", "50000", "--budget-usd", "2.5", "--reserve-tokens", "100");
	flags.push("--until", "test -f README.md", "--max-iterations", "2", "--approve-plan", "--concurrency", "2");
	flags.push("--retries", "1", "--timeout", "10m", "--stall-timeout", "0");
	const cli = await crew(repo.dir, ["run", "g", "--workflow", "pair", ...flags, "--json"]);
	expect(cli.code, cli.stderr).toBe(0);
	const cliRun = lastJson(cli.stdout).runId;

	const ended = await untilEnded(client, mcpRun);
	expect(ended.run.status).toBe("completed");
	expect(ended.tasks.map((t) => `${t.id}:${t.status}`)).toEqual([
		"draft:completed",
		"polish:completed",
		"until.1:completed",
	]);
	const mine = recorded(repo.dir, mcpRun);
	expect(mine).toEqual(recorded(repo.dir, cliRun));
	expect(mine).toMatchObject({
		options: {
			workspace: "worktree",
			approvePlan: true,
			failure: "abort",
			concurrency: 2,
			retries: 1,
			timeoutMs: 600_000,
			stallTimeoutMs: 0,
			budget: { tokens: 50_000, usd: 2.5, reserveTokens: 100 },
			integration: { mode: "manual" },
		},
	});
	const worktrees = await ok(client, "crew_worktrees", { runId: mcpRun });
	const cliWorktrees = await crew(repo.dir, ["worktrees", mcpRun, "--json"]);
	expect(worktrees).toEqual({ worktrees: JSON.parse(cliWorktrees.stdout) });
	expect((worktrees.worktrees as { taskId: string }[]).map((w) => w.taskId)).toContain("draft");
});

test("crew_retry runs a failed task again in the background, and crew_merge and crew_export take the run as the CLI does", async () => {
	const repo = gitRepo();
	const fixed = join(repo.dir, "fixed");
	repo.writeFile(
		".crew/agents/fixer.md",
		`---\nname: fixer\nruntime: command\ncommand: test -f ${fixed} && echo fixed > fix.txt\n---\n`,
	);
	repo.workflow("fix", [{ id: "fix", role: "fixer" }]);
	const client = await clients.connect(repo.dir);
	const started = await ok(client, "crew_run", {
		goal: "g",
		workflow: "fix",
		workspace: "worktree",
		allowDirty: true,
		retries: 0,
	});
	const runId = String(started.runId);
	expect((await untilEnded(client, runId)).run.status).toBe("failed");

	const early = await call(client, "crew_merge", { runId });
	expect(early.isError).toBe(true);
	const cliEarly = await crew(repo.dir, ["merge", runId]);
	expect(cliEarly.code).not.toBe(0);
	expect(early.text).toContain(cliEarly.stderr.replace(/^crew: /, "").trim());

	writeFileSync(fixed, "");
	const retried = await ok(client, "crew_retry", { runId, task: "fix" });
	expect(retried).toMatchObject({ runId, task: "fix" });
	expect(["running", "completed"]).toContain(retried.status);
	expect((await untilEnded(client, runId)).tasks).toEqual([
		expect.objectContaining({ id: "fix", status: "completed" }),
	]);

	const merged = await ok(client, "crew_merge", { runId });
	expect(merged).toMatchObject({ runId, branch: `crew/${runId}`, merged: true, missing: [] });
	expect(readFileSync(join(repo.dir, "fix.txt"), "utf8")).toBe("fixed\n");
	expect(await ok(client, "crew_merge", { runId })).toMatchObject({ merged: false, alreadyMerged: true });

	const exported = await ok(client, "crew_export", { runId, file: "out/run.json" });
	expect(exported).toEqual({ runId, file: join(repo.dir, "out", "run.json"), tasks: 1, files: expect.any(Number) });
	const bundle = JSON.parse(readFileSync(join(repo.dir, "out", "run.json"), "utf8"));
	expect([bundle.format, bundle.runId]).toEqual(["crew-run", runId]);
	// An agent writes through crew only inside the repository, as it works there.
	for (const file of ["../escape.json", join(tmpdir(), "escape.json")]) {
		const outside = await call(client, "crew_export", { runId, file });
		expect(outside.isError, file).toBe(true);
		expect(outside.text).toContain(`invalid file ${JSON.stringify(file)}: expected a path inside the repository`);
	}
	expect(existsSync(join(repo.dir, "..", "escape.json"))).toBe(false);
	const byDefault = await ok(client, "crew_export", { runId });
	expect(byDefault.file).toBe(join(repo.dir, `${runId}.crew-run.json`));
	expect(existsSync(String(byDefault.file))).toBe(true);

	const again = await call(client, "crew_retry", { runId, task: "fix" });
	expect(again.isError).toBe(true);
	expect(again.text).toContain("task fix of run");
	expect(again.text).toContain("only failed, cancelled, skipped or needs_attention tasks can be retried");
});

test("crew_recommend, crew_validate and crew_doctor answer what crew recommend, validate and doctor --json say", async () => {
	const repo = new TestRepo().agent("worker");
	repo.workflow("pair", [{ id: "draft" }, { id: "fix", role: "nobody" }]);
	repo.writeFile(
		".crew/teams/fixers.team.md",
		"---\nname: fixers\ndefaultWorkflow: pair\ntriggers: zanzibar, quokka\nuseWhen: the quokka module is broken\n---\n\n- worker: agent=worker\n",
	);
	const client = await clients.connect(repo.dir);

	const recommended = await ok(client, "crew_recommend", { goal: "mend the zanzibar quokka" });
	const cliRecommend = await crew(repo.dir, ["recommend", "mend the zanzibar quokka", "--json"]);
	expect(recommended).toEqual(JSON.parse(cliRecommend.stdout));
	expect(recommended).toMatchObject({ team: "fixers", workflow: "pair" });

	const validated = await ok(client, "crew_validate", {});
	const cliValidate = await crew(repo.dir, ["validate", "--json"]);
	expect(validated).toEqual(JSON.parse(cliValidate.stdout));
	expect(validated.errors).toBeGreaterThan(0);
	expect(JSON.stringify(validated.diagnostics)).toContain("nobody");

	const doctor = await ok(client, "crew_doctor", {});
	const cliDoctor = JSON.parse((await crew(repo.dir, ["doctor", "--json"])).stdout) as { checks: { name: string }[] };
	const names = (doctor.checks as { name: string; ok: boolean }[]).map((c) => c.name);
	expect(names).toEqual(cliDoctor.checks.map((c) => c.name));
	expect(names).toContain("store");
	expect(names.some((name) => name.endsWith("smoke"))).toBe(false);
	expect(typeof doctor.ok).toBe("boolean");
});

test("crew mcp refuses bad run options and bad ids with an error naming the value, and starts nothing", async () => {
	const repo = new TestRepo().agent("worker");
	repo.workflow("pair", [{ id: "draft" }]);
	const client = await clients.connect(repo.dir);
	const refused = async (name: string, args: Record<string, unknown>, expected: string | RegExp) => {
		const answer = await call(client, name, args);
		expect(answer.isError, `${name} ${JSON.stringify(args)}`).toBe(true);
		if (typeof expected === "string") expect(answer.text).toContain(expected);
		else expect(answer.text).toMatch(expected);
	};
	await refused("crew_run", { goal: "x", workflow: "nope" }, "nope");
	await refused("crew_run", { goal: "x", workflow: "pair", budgetTokens: 0 }, "invalid budget tokens 0");
	await refused("crew_run", { goal: "x", workflow: "pair", budgetUsd: -1 }, "invalid budget usd -1");
	await refused("crew_run", { goal: "x", workflow: "pair", timeout: "soon" }, 'invalid timeout "soon"');
	await refused("crew_run", { goal: "x", workflow: "pair", until: " " }, "--until needs a command line");
	await refused("crew_run", { goal: "x", workflow: "pair", maxIterations: 0 }, "invalid max iterations 0");
	await refused("crew_run", { goal: "x", workflow: "pair", workspace: "elsewhere" }, /workspace/);
	await refused("crew_run", { goal: "x", workflow: "pair", session: "has space" }, 'invalid session "has space"');
	await refused("crew_retry", { task: "draft" }, /runId/);
	await refused("crew_retry", { runId: "../x", task: "draft" }, 'invalid run id "../x"');
	await refused("crew_merge", {}, /runId/);
	await refused("crew_worktrees", { runId: "nope" }, "no run 'nope'");
	await refused("crew_export", { runId: "nope" }, "no run 'nope'");
	await refused("crew_recommend", { goal: " " }, "the goal is empty");
	expect(repo.starts()).toHaveLength(0);
	expect(read(repo.dir, (reader) => reader.repo.runs())).toHaveLength(0);
});

test("in a repository the user does not trust, an until check given through MCP is refused as the repository's own commands are, and nothing is recorded", async () => {
	const repo = new TestRepo({ trusted: false });
	repo.workflow("solo", [{ id: "only", role: "reviewer" }]);
	const client = await clients.connect(repo.dir);
	const refused = await call(client, "crew_run", {
		goal: "g",
		workflow: "solo",
		until: "touch pwned",
	});
	expect(refused.isError).toBe(true);
	expect(refused.text).toContain(`${repo.dir} is not trusted`);
	expect(refused.text).toContain("touch pwned");
	expect(refused.text).toContain("crew trust");
	expect(read(repo.dir, (reader) => reader.repo.runs())).toHaveLength(0);
	// Without the command, the same request runs (dry, so that no agent CLI is needed).
	const dry = await ok(client, "crew_run", { goal: "g", workflow: "solo", runtime: "dry-run" });
	expect((await untilEnded(client, String(dry.runId))).run.status).toBe("completed");
	expect(repo.exists("pwned")).toBe(false);
});

test("an until check given through MCP is recorded as the agent's: once the user revokes trust, no path runs it again, while crew run's own --until still runs", async () => {
	// The user's own command agent needs no trust, so the until check is all that does.
	const env = { ...process.env, XDG_CONFIG_HOME: mkdtempSync(join(tmpdir(), "crew-xdg-")) };
	const userAgents = join(env.XDG_CONFIG_HOME, "crew", "agents");
	mkdirSync(userAgents, { recursive: true });
	writeFileSync(join(userAgents, "helper.md"), "---\nname: helper\nruntime: command\ncommand: echo helped\n---\n");
	const repo = new TestRepo({ trusted: false });
	repo.workflow("pair", [{ id: "draft", role: "helper" }]);
	const trust = new TrustStore(env);
	trust.trust(repo.dir);
	const client = await clients.connect(repo.dir, env);
	const started = await ok(client, "crew_run", {
		goal: "g",
		workflow: "pair",
		until: "test -f passed",
		maxIterations: 1,
		retries: 0,
	});
	const runId = String(started.runId);
	expect((await untilEnded(client, runId)).tasks.map((t) => `${t.id}:${t.status}`)).toEqual([
		"draft:completed",
		"until.1:failed",
	]);
	trust.revoke(repo.dir);
	repo.writeFile("passed", "");
	const viaMcp = await call(client, "crew_retry", { runId, task: "until.1" });
	expect(viaMcp.isError).toBe(true);
	expect(viaMcp.text).toContain(`${repo.dir} is not trusted`);
	expect(viaMcp.text).toContain("test -f passed");
	const viaCli = await crew(repo.dir, ["retry", runId, "until.1"], 60_000, env);
	expect(viaCli.code).toBe(1);
	expect(viaCli.stderr).toContain("test -f passed");
	expect(read(repo.dir, (reader) => reader.status(runId).tasks.map((t) => t.status))).toEqual(["completed", "failed"]);

	const own = await crew(
		repo.dir,
		["run", "g", "--workflow", "pair", "--until", "test -f passed", "--json"],
		60_000,
		env,
	);
	expect(own.code, own.stderr).toBe(0);
	expect(lastJson(own.stdout).status).toBe("completed");
});

test("crew_runs lists the runs of one session with their status, end and a summary to report", async () => {
	const repo = new TestRepo().agent("worker");
	repo.workflow("pair", [{ id: "draft" }, { id: "polish", dependsOn: ["draft"] }]);
	const client = await clients.connect(repo.dir);
	const start = async (session?: string) => {
		const run = await ok(client, "crew_run", { goal: "g", workflow: "pair", ...(session ? { session } : {}) });
		await untilEnded(client, String(run.runId));
		return String(run.runId);
	};
	const first = await start("pi-session-1");
	const other = await start("pi-session-2");
	const none = await start();
	const second = await start("pi-session-1");

	const mine = await ok(client, "crew_runs", { session: "pi-session-1" });
	const runs = mine.runs as {
		id: string;
		status: string;
		finishedAt: string | null;
		session: string;
		summary: string;
	}[];
	expect(runs.map((r) => r.id)).toEqual([second, first]);
	for (const run of runs) {
		expect(run).toMatchObject({
			runId: run.id,
			status: "completed",
			session: "pi-session-1",
			workflow: "pair",
			goal: "g",
		});
		expect(run.finishedAt).toEqual(expect.any(String));
		expect(run.summary).toContain(`run ${run.id} completed`);
		expect(run.summary).toContain("- polish (worker) completed");
	}
	const all = await ok(client, "crew_runs", {});
	expect((all.runs as { id: string }[]).map((r) => r.id)).toEqual([second, none, other, first]);
	expect(read(repo.dir, (reader) => reader.run(first).options.caller)).toEqual({ session: "pi-session-1" });
	expect(await ok(client, "crew_runs", { session: "never" })).toEqual({ runs: [] });
	const cli = await crew(repo.dir, ["runs", "--session", "pi-session-1", "--json"]);
	expect(cli.code, cli.stderr).toBe(0);
	expect((JSON.parse(cli.stdout) as { id: string }[]).map((r) => r.id)).toEqual([second, first]);
});
