// @module-tag agent-cli
// @slow: estimates are checked against earlier runs made for real by pi agents
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterEach, expect, test } from "vitest";
import { scriptedCliSetup } from "../../src/scripted-model/cli-setup.js";
import { actThenReport } from "../../src/scripted-model/turns.js";
import { cancelLiveRuns, crew, mcpClient, PI_1, read, TestRepo, waitFor } from "../helpers.js";
import { serverStarter } from "../scripted-model/servers.js";
import { plannerRepo, scriptRepo, untilRepo } from "./growing-runs.js";

const startServer = serverStarter();
const clients: Client[] = [];
const dirs: string[] = [];
afterEach(async () => {
	for (const client of clients.splice(0)) await client.close();
	for (const dir of dirs.splice(0)) await cancelLiveRuns(dir);
});

/** A client of a `crew mcp` started in `dir`. */
async function connect(dir: string, env: NodeJS.ProcessEnv = process.env): Promise<Client> {
	dirs.push(dir);
	const { client } = await mcpClient(dir, env);
	clients.push(client);
	return client;
}

interface EstimateJson {
	tasks: number;
	tokens: number;
	costUsd: number;
	durationMs: number;
	atLeast: boolean;
	openEnds: string[];
	pastRuns: number;
	basis: string;
	line: string;
	perTask: { id: string; from: string; samples: number }[];
}

interface StatusJson {
	run: { status: string; createdAt: string; finishedAt: string; usage: Record<string, number> };
}

function totalTokens(usage: Record<string, number>): number {
	return (
		(usage.inputTokens ?? 0) + (usage.outputTokens ?? 0) + (usage.cacheReadTokens ?? 0) + (usage.cacheWriteTokens ?? 0)
	);
}

/** A program that runs pi 1.x from the npm registry on Node 22, to give as `CREW_PI`. */
function pi1Program(): string {
	const program = join(mkdtempSync(join(tmpdir(), "crew-pi1-")), "pi");
	writeFileSync(program, `#!/bin/sh\nexec ${PI_1.map((p) => `"${p}"`).join(" ")} "$@"\n`, { mode: 0o755 });
	return program;
}

test("a plan in a repository without runs is estimated from the builtin defaults, and says so", async () => {
	const repo = new TestRepo();
	repo.writeFile(".crew/agents/worker.md", "---\nname: worker\nruntime: pi\n---\nYou work.\n");
	repo.workflow("pair", [{ id: "draft" }, { id: "polish", dependsOn: ["draft"] }]);
	const text = await crew(repo.dir, ["plan", "write it", "--workflow", "pair"]);
	expect(text.code, text.stderr).toBe(0);
	expect(text.stdout).toContain(
		"estimate: about 2 tasks, ~16k tokens (~$0.10), ~2 min; a direct call to one agent ~8k tokens (builtin defaults, no history here)",
	);
	const json = await crew(repo.dir, ["plan", "write it", "--workflow", "pair", "--json"]);
	const estimate = (JSON.parse(json.stdout) as { estimate: EstimateJson }).estimate;
	expect(estimate).toMatchObject({ tasks: 2, tokens: 16_000, pastRuns: 0, basis: "builtin defaults, no history here" });
	expect(estimate.perTask.map((t) => t.from)).toEqual(["default", "default"]);
});

test("a planner's tasks make the first estimate a lower bound; past runs of its workflow count what it added", async () => {
	const { repo, args } = plannerRepo();
	const planOf = async () => {
		const plan = await crew(repo.dir, ["plan", "look", ...args, "--json"]);
		expect(plan.code, plan.stderr).toBe(0);
		return (JSON.parse(plan.stdout) as { estimate: EstimateJson }).estimate;
	};
	const before = await planOf();
	expect(before).toMatchObject({ tasks: 2, atLeast: true, openEnds: ["what its planner adds"] });
	expect(before.line).toMatch(
		/^at least 2 tasks, .*, and what its planner adds \(builtin defaults, no history here\)$/,
	);
	const run = await crew(repo.dir, ["run", "look", ...args]);
	expect(run.code, run.stdout + run.stderr).toBe(0);
	const after = await planOf();
	// assess and report, and the three tasks assess's plan added.
	expect(after).toMatchObject({ tasks: 5, atLeast: false, openEnds: [], basis: "from 1 past run" });

	// An agent's run is answered with the same line, read before the run joins the history.
	const client = await connect(repo.dir);
	const started = await client.callTool({ name: "crew_run", arguments: { goal: "look", workflow: "adaptive" } });
	const answer = started.structuredContent as { runId: string; estimate: string };
	expect(answer.estimate).toBe(after.line);
	await waitFor("the run completed", () => read(repo.dir, (r) => r.status(answer.runId).run.status === "completed"));
});

test("a workflow script's run is not known before its first run, then estimated from its past runs", async () => {
	const { repo, args } = scriptRepo();
	const before = await crew(repo.dir, ["plan", "check", ...args]);
	expect(before.code, before.stderr).toBe(0);
	expect(before.stdout).toContain(
		"estimate: not known before it runs: the tasks its script makes (no past runs of this workflow here)\n",
	);
	const run = await crew(repo.dir, ["run", "check", ...args]);
	expect(run.code, run.stdout + run.stderr).toBe(0);
	const after = await crew(repo.dir, ["plan", "check", ...args, "--json"]);
	const estimate = (JSON.parse(after.stdout) as { estimate: EstimateJson }).estimate;
	// Two reviews and a test.
	expect(estimate).toMatchObject({ tasks: 3, tokens: 0, atLeast: false, basis: "from 1 past run" });
	expect(estimate.line).toMatch(/^about 3 tasks, no tokens counted, ~\d+ s \(from 1 past run\)$/);
});

test("the line before an --until run says that more passes may follow", async () => {
	const { repo, args } = untilRepo();
	const run = await crew(repo.dir, ["run", "loop it", ...args]);
	expect(run.code, run.stdout + run.stderr).toBe(0);
	expect(run.stdout.split("\n")[1]).toBe(
		"estimate: at least 3 tasks, no tokens counted, its time not known before its commands have run here, and up to 2 more passes of the --until check (builtin defaults, no history here)",
	);
});

test("after five runs of a workflow by real pi 1.x, crew plan estimates the sixth run's tokens within 25%", async () => {
	const server = await startServer(
		actThenReport(() => ({ kind: "shell", command: "ls README.md" }), "README.md is there"),
	);
	const scripted = scriptedCliSetup("pi", server.url, mkdtempSync(join(tmpdir(), "crew-pi-")));
	const env = { ...process.env, ...scripted.env, CREW_PI: pi1Program() };
	const repo = new TestRepo();
	repo.writeFile("README.md", "# here\n");
	repo.writeFile(
		".crew/agents/scout.md",
		`---\nname: scout\nruntime: pi\nmodel: ${scripted.model}\n---\nYou look around and say what you find.\n`,
	);
	repo.writeFile(
		".crew/agents/writer.md",
		`---\nname: writer\nruntime: pi\nmodel: ${scripted.fallbackModel}\n---\nYou write a short report of what the scouts found, in a few plain sentences.\n`,
	);
	repo.workflow("survey", [
		{ id: "files", role: "scout", text: "List the files of {goal}" },
		{ id: "docs", role: "scout", text: "Read the documentation of {goal}" },
		{ id: "report", role: "writer", dependsOn: ["files", "docs"], text: "Report on {goal}" },
	]);
	// Goals of different lengths, so runs differ as real ones do.
	const survey = (n: number, ...more: string[]) =>
		crew(repo.dir, [...more, `the project, pass ${n}${", with care".repeat(n)}`, "--workflow", "survey"], 180_000, env);

	for (let n = 1; n <= 5; n++) {
		const run = await survey(n, "run");
		expect(run.code, run.stdout + run.stderr).toBe(0);
	}

	const plan = await survey(6, "plan", "--json");
	expect(plan.code, plan.stderr).toBe(0);
	const estimate = (JSON.parse(plan.stdout) as { estimate: EstimateJson }).estimate;
	expect(estimate).toMatchObject({ tasks: 3, pastRuns: 5, basis: "from 5 past runs", atLeast: false });
	expect(estimate.perTask.map((t) => [t.id, t.from, t.samples])).toEqual([
		["files", "step", 5],
		["docs", "step", 5],
		["report", "step", 5],
	]);
	const text = await survey(6, "plan");
	expect(text.stdout).toContain(`estimate: ${estimate.line}`);

	const sixth = await survey(6, "run");
	expect(sixth.code, sixth.stdout + sixth.stderr).toBe(0);
	// The line before the run starts is the plan's.
	expect(sixth.stdout.split("\n").slice(0, 2)).toEqual([
		expect.stringMatching(/^run \S+: 3 tasks, workflow survey$/),
		`estimate: ${estimate.line}`,
	]);
	const status = await crew(repo.dir, ["status", "--json"], 60_000, env);
	const { run } = JSON.parse(status.stdout) as StatusJson;
	const actual = totalTokens(run.usage);
	expect(actual).toBeGreaterThan(0);
	const off = Math.abs(estimate.tokens - actual) / actual;
	const took = Date.parse(run.finishedAt) - Date.parse(run.createdAt);
	process.stdout.write(
		`${estimate.line}\nestimate ${estimate.tokens} tokens vs actual ${actual} (${(off * 100).toFixed(1)}% off); ${estimate.durationMs} ms vs ${took} ms\n`,
	);
	expect(off).toBeLessThanOrEqual(0.25);

	// The agent-facing plan carries the same estimate, from the history as it now is.
	const client = await connect(repo.dir, env);
	const answer = await client.callTool({
		name: "crew_plan",
		arguments: { goal: "the project, pass 7", workflow: "survey" },
	});
	const viaMcp = (answer.structuredContent as { estimate: EstimateJson }).estimate;
	const viaCli = (JSON.parse((await survey(7, "plan", "--json")).stdout) as { estimate: EstimateJson }).estimate;
	expect(viaMcp).toEqual(viaCli);
	expect(viaMcp.basis).toBe("from 6 past runs");
}, 600_000);
