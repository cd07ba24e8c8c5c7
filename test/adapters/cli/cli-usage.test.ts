import { afterEach, expect, test } from "vitest";
import type { StatusJson } from "../../../src/engine/views/json.js";
import {
	cancelLiveRuns,
	crew,
	crewProcess,
	exitOf,
	read,
	servedApp,
	spenderProgram,
	TestRepo,
	waitFor,
} from "../../helpers.js";

const repos: TestRepo[] = [];
afterEach(async () => {
	for (const repo of repos.splice(0)) await cancelLiveRuns(repo.dir);
});

/**
 * A repository whose one task is done by `cli` played by the spender fixture: `reports` reports of
 * 600 tokens (500 in, 100 out, $0.01 each on pi), then silence; and the environment that makes crew
 * start the fixture as that CLI.
 */
function spenderRepo(cli: "pi" | "claude", reports = 1): { repo: TestRepo; env: NodeJS.ProcessEnv } {
	const repo = new TestRepo();
	repos.push(repo);
	repo.writeFile(".crew/agents/spender.md", `---\nname: spender\nruntime: ${cli}\n---\n`);
	repo.workflow("one", [{ id: "a", role: "spender", text: "spend" }]);
	return { repo, env: { ...process.env, [`CREW_${cli.toUpperCase()}`]: spenderProgram(cli, 600, reports) } };
}

async function statusJson(dir: string, runId: string): Promise<StatusJson> {
	const status = await crew(dir, ["status", runId, "--json"]);
	expect(status.code, status.stderr).toBe(0);
	return JSON.parse(status.stdout) as StatusJson;
}

function lastJson(stdout: string): { runId: string; status: string } {
	return JSON.parse(stdout.trim().split("\n").at(-1) ?? "{}");
}

test("an agent that reports usage and then hangs: each attempt's tokens count, and the budget stops the run", async () => {
	const { repo, env } = spenderRepo("pi");
	const args = ["--budget-tokens", "1000", "--timeout", "2s", "--retries", "3", "--json"];
	const run = await crew(repo.dir, ["run", "g", "--workflow", "one", ...args], 60_000, env);
	expect(run.code).toBe(4);
	const { runId } = lastJson(run.stdout);

	// The first timed-out attempt's 600 tokens count: the second one's reach the cap, no third starts.
	const status = await statusJson(repo.dir, runId);
	const spent = { inputTokens: 1000, outputTokens: 200, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0.02 };
	expect(status.run.status).toBe("failed");
	expect(status.tasks[0]).toMatchObject({ status: "failed", attempts: 2, usage: spent });
	expect(status.run.usage).toEqual(spent);
	expect(status.run.usageByRole).toEqual({ spender: spent });
	expect(Object.values(status.run.usageByModel)).toEqual([spent]);
	const text = await crew(repo.dir, ["status", runId]);
	expect(text.stdout).toContain("error: budget: 1200 of 1000 tokens");
	expect(text.stdout).toContain("usage: 1.0k in, 200 out tokens, $0.0200");

	const made = servedApp(repo.dir);
	try {
		const metrics = await (await made.request("/metrics")).text();
		expect(metrics).toContain('crew_tokens{kind="input"} 1000');
		expect(metrics).toContain('crew_tokens{kind="output"} 200');
		expect(metrics).toContain('crew_attempts{status="timed-out"} 2');
		const detail = (await (await made.request(`/api/runs/${runId}/tasks/a`)).json()) as {
			attempts: { status: string; usage: object }[];
		};
		const each = { inputTokens: 500, outputTokens: 100, costUsd: 0.01 };
		expect(detail.attempts).toEqual([
			expect.objectContaining({ status: "timed-out", usage: expect.objectContaining(each) }),
			expect.objectContaining({ status: "timed-out", usage: expect.objectContaining(each) }),
		]);
		const view = (await (await made.request(`/api/runs/${runId}`)).json()) as { run: { usage: object } };
		expect(view.run.usage).toEqual(spent);
	} finally {
		made.close();
	}
});

test("kill -9 of the runner keeps the tokens its attempt reported: status shows them, resume counts them", async () => {
	const { repo, env } = spenderRepo("pi");
	const args = ["--budget-tokens", "1000", "--timeout", "60s", "--retries", "0", "--failure", "abort"];
	const runner = crewProcess(repo.dir, ["run", "g", "--workflow", "one", ...args], env);
	const runId = await waitFor("the run recorded", () => read(repo.dir, (r) => r.repo.runs()[0]?.id));
	await waitFor("usage recorded", () =>
		read(repo.dir, (r) => (r.status(runId).tasks[0]?.usage.input ?? 0) > 0 || undefined),
	);
	runner.kill("SIGKILL");
	await exitOf(runner);

	const lost = await statusJson(repo.dir, runId);
	expect(lost.run.status).toBe("interrupted");
	expect(lost.tasks[0]?.usage).toMatchObject({ inputTokens: 500, outputTokens: 100, costUsd: 0.01 });
	expect(lost.run.usage).toMatchObject({ inputTokens: 500, outputTokens: 100, costUsd: 0.01 });

	// The resumed run starts from the 600 on record: its attempt's 600 more reach the cap.
	const resumed = await crew(repo.dir, ["resume", runId], 60_000, env);
	expect(resumed.code).toBe(4);
	const status = await statusJson(repo.dir, runId);
	expect(status.tasks[0]).toMatchObject({ attempts: 2, usage: { inputTokens: 1000, outputTokens: 200 } });
	expect((await crew(repo.dir, ["status", runId])).stdout).toContain("error: budget: 1200 of 1000 tokens");
});

test("a cut Claude Code attempt shows the tokens it reported as a lower bound", async () => {
	const { repo, env } = spenderRepo("claude", 2);
	const run = await crew(
		repo.dir,
		["run", "g", "--workflow", "one", "--timeout", "2s", "--retries", "0", "--json"],
		60_000,
		env,
	);
	expect(run.code).toBe(1);
	const { runId } = lastJson(run.stdout);
	const status = await statusJson(repo.dir, runId);
	const reported = {
		inputTokens: 1000,
		outputTokens: 2,
		cacheReadTokens: 0,
		cacheWriteTokens: 0,
		costUsd: 0,
		partial: true,
	};
	expect(status.tasks[0]?.usage).toEqual(reported);
	expect(status.run.usage).toEqual(reported);
	expect(status.run.usageByRole).toEqual({ spender: reported });
	const text = (await crew(repo.dir, ["status", runId])).stdout;
	expect(text).toContain("usage: ≥ 1.0k in, 2 out tokens, $0.0000");
	expect(text).toMatch(/ a +spender +failed .*attempt 1 {2}≥ 1\.0k in, 2 out tokens/);
});
