import { afterEach, expect, test } from "vitest";
import { cancelLiveRuns, crew, spenderProgram, TestRepo } from "../../helpers.js";

const repos: TestRepo[] = [];
afterEach(async () => {
	for (const repo of repos.splice(0)) await cancelLiveRuns(repo.dir);
});

function lastJson(stdout: string): { runId: string; status: string } {
	return JSON.parse(stdout.trim().split("\n").at(-1) ?? "{}");
}

async function inbox(dir: string): Promise<{ kind: string; runId: string; what: string; command: string }[]> {
	const listed = await crew(dir, ["inbox", "--json"]);
	expect(listed.code, listed.stderr).toBe(0);
	return JSON.parse(listed.stdout).items;
}

test("crew inbox lists an approval, a failed run and a budget stop, oldest first, each with its command; a budget raised on resume lets the run go on", async () => {
	const repo = new TestRepo().agent("worker");
	repos.push(repo);
	expect((await crew(repo.dir, ["inbox"])).stdout).toBe("nothing waits for you\n");
	repo.writeFile(
		".crew/agents/failer.md",
		"---\nname: failer\nruntime: command\ncommand: echo broken >&2; exit 3\n---\n",
	);
	repo.writeFile(".crew/agents/spender.md", "---\nname: spender\nruntime: pi\n---\n");
	repo.workflow("gated", [{ id: "gate", extra: { approval: "true" } }]);
	repo.workflow("bad", [{ id: "a", role: "failer" }]);
	repo.workflow("spend", [{ id: "s", role: "spender", text: "spend" }]);

	const gated = await crew(repo.dir, ["run", "g", "--workflow", "gated", "--json"]);
	expect(gated.code).toBe(4);
	const waiting = lastJson(gated.stdout).runId;
	const bad = await crew(repo.dir, ["run", "g", "--workflow", "bad", "--retries", "0", "--json"]);
	expect(bad.code).toBe(1);
	const failed = lastJson(bad.stdout).runId;
	const env = { ...process.env, CREW_PI: spenderProgram("pi", 600, 1) };
	const spendArgs = ["--budget-tokens", "500", "--failure", "abort", "--timeout", "2s", "--retries", "0", "--json"];
	const spent = await crew(repo.dir, ["run", "g", "--workflow", "spend", ...spendArgs], 60_000, env);
	expect(spent.code).toBe(4);
	const stopped = lastJson(spent.stdout).runId;

	const items = await inbox(repo.dir);
	expect(items.map((i) => [i.kind, i.runId, i.command])).toEqual([
		["approval", waiting, `crew approve ${waiting}`],
		["failed", failed, `crew retry ${failed} a`],
		["budget", stopped, `crew resume ${stopped} --budget-tokens <more>`],
	]);
	expect(items[0]?.what).toBe("gate waits for approval");
	expect(items[1]?.what).toBe("a failed: exit code 3: broken");
	expect(items[2]?.what).toMatch(/^budget: \d+ of 500 tokens/);
	const text = (await crew(repo.dir, ["inbox"])).stdout;
	for (const command of items.map((i) => i.command)) expect(text).toContain(command);

	// A raised budget lets the run start its task again; the change is an event.
	const resumed = await crew(repo.dir, ["resume", stopped, "--budget-tokens", "100000", "--json"], 60_000, env);
	expect(lastJson(resumed.stdout).status).toBe("failed");
	const events = (await crew(repo.dir, ["events", stopped, "--json"])).stdout
		.trim()
		.split("\n")
		.map((l) => JSON.parse(l));
	expect(events.find((e) => e.type === "run.budget-changed")?.data).toEqual({
		from: { tokens: 500 },
		to: { tokens: 100000 },
	});
	const after = await inbox(repo.dir);
	expect(after.find((i) => i.runId === stopped)).toMatchObject({
		kind: "failed",
		what: expect.stringMatching(/timed out/),
	});
	const bad2 = await crew(repo.dir, ["resume", stopped, "--budget-tokens", "-3"]);
	expect(bad2.code).toBe(2);
	await crew(repo.dir, ["approve", waiting]);
});
