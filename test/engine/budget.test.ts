import { join } from "node:path";
import { expect, test } from "vitest";
import { projectAt } from "../../src/config/project.js";
import { Crew } from "../../src/engine/crew.js";
import type { PlanInput } from "../../src/engine/planning/plan-input.js";
import { RuntimeRegistry } from "../../src/runtimes/runtime-registry.js";
import { ROOT, TestRepo } from "../helpers.js";

/** A pi agent played by a fixture that answers after 300 ms, reporting 15 tokens and $0.001. */
function budgetRepo(agentFields = ""): { repo: TestRepo; crew: Crew } {
	const repo = new TestRepo();
	repo.writeFile(".crew/agents/spender.md", `---\nname: spender\nruntime: pi\n${agentFields}---\n`);
	repo.workflow(
		"eight",
		Array.from({ length: 8 }, (_, k) => ({ id: `t${k}`, role: "spender", text: "spend" })),
	);
	const fake = [process.execPath, join(ROOT, "test", "fixtures", "fake-cli-output.mjs"), "pi", "300"];
	const crew = new Crew({
		project: projectAt(repo.dir),
		runtimes: RuntimeRegistry.standard({ pi: { command: fake } }),
		pollMs: 20,
	});
	return { repo, crew };
}

async function run(crew: Crew, input: Omit<PlanInput, "goal" | "workflow">) {
	const runId = crew.create(await crew.plan({ goal: "g", workflow: "eight", concurrency: 4, ...input }));
	const status = await crew.execute(runId);
	const snapshot = crew.snapshot(runId);
	const spent = snapshot.tasks.reduce((n, t) => n + t.usage.input + t.usage.output, 0);
	const cost = snapshot.tasks.reduce((n, t) => n + t.usage.cost, 0);
	const count = (s: string) => snapshot.tasks.filter((t) => t.status === s).length;
	const events = crew.events(runId).map((e) => e.type);
	return { runId, status, run: snapshot.run, spent, cost, count, events };
}

test("a token cap: tasks start only while their reservations fit, and spend never passes the cap", async () => {
	const { crew } = budgetRepo("maxTokens: 15\n");
	try {
		const r = await run(crew, { budget: { tokens: 50 } });
		expect(r.status).toBe("failed");
		// 15 tokens reserved each: three fit under 50 at once, a fourth would not.
		expect(r.count("completed")).toBe(3);
		expect(r.count("skipped")).toBe(5);
		expect(r.spent).toBe(45);
		expect(r.run.error).toBe("budget: 45 of 50 tokens");
		expect(r.events).toContain("budget.warning");
		expect(r.events).toContain("budget.exhausted");
	} finally {
		crew.close();
	}
});

test("a dollar cap with a per-task reservation", async () => {
	const { crew } = budgetRepo();
	try {
		const r = await run(crew, { budget: { usd: 0.0025, reserveUsd: 0.001 } });
		expect(r.status).toBe("failed");
		expect(r.count("completed")).toBe(2);
		expect(r.cost).toBeCloseTo(0.002, 10);
		expect(r.run.error).toBe("budget: $0.0020 of $0.0025");
	} finally {
		crew.close();
	}
});

test("a cap large enough changes nothing; resuming a run stopped by its budget spends nothing more", async () => {
	const { crew } = budgetRepo("maxTokens: 15\n");
	try {
		const roomy = await run(crew, { budget: { tokens: 1000 } });
		expect(roomy.status).toBe("completed");
		expect(roomy.spent).toBe(120);
		const tight = await run(crew, { budget: { tokens: 30 } });
		expect(tight.count("completed")).toBe(2);
		expect(await crew.execute(tight.runId)).toBe("failed");
		expect(crew.snapshot(tight.runId).tasks.filter((t) => t.status === "completed")).toHaveLength(2);
	} finally {
		crew.close();
	}
});

test("a bad budget is refused with the value named; a cap of 0 is a bad budget, a reservation of 0 is none", async () => {
	const { crew } = budgetRepo();
	try {
		await expect(crew.plan({ goal: "g", workflow: "eight", budget: { tokens: -1 } })).rejects.toThrow(
			/invalid budget tokens -1: expected a number > 0/,
		);
		await expect(crew.plan({ goal: "g", workflow: "eight", budget: { usd: 0 } })).rejects.toThrow(
			/invalid budget usd 0: expected a number > 0/,
		);
		await expect(crew.plan({ goal: "g", workflow: "eight", budget: { tokens: 0 } })).rejects.toThrow(
			/invalid budget tokens 0: expected a number > 0/,
		);
		await expect(crew.plan({ goal: "g", workflow: "eight", budget: { reserveUsd: -0.5 } })).rejects.toThrow(
			/invalid budget reserveUsd -0.5: expected a number >= 0/,
		);
		const plan = await crew.plan({ goal: "g", workflow: "eight", budget: { tokens: 10, reserveTokens: 0 } });
		expect(plan.options.budget).toEqual({ tokens: 10, reserveTokens: 0 });
	} finally {
		crew.close();
	}
});

test("the budget's stop quotes what the run spent in the end, with what running tasks spent past the cap", async () => {
	const repo = new TestRepo();
	repo.writeFile(".crew/agents/spender.md", "---\nname: spender\nruntime: pi\n---\n");
	repo.workflow("pair", [
		{ id: "a", role: "spender", text: "spend" },
		{ id: "b", role: "spender", text: "spend" },
	]);
	// Each task reports 600 tokens twice, 300 ms apart, then hangs until its timeout.
	const fake = [process.execPath, join(ROOT, "test", "fixtures", "fake-spender.mjs"), "pi", "600", "2", "300"];
	const crew = new Crew({
		project: projectAt(repo.dir),
		runtimes: RuntimeRegistry.standard({ pi: { command: fake } }),
		pollMs: 20,
	});
	try {
		const plan = await crew.plan({
			goal: "g",
			workflow: "pair",
			concurrency: 2,
			retries: 0,
			timeoutMs: 3000,
			budget: { tokens: 1000 },
		});
		const runId = crew.create(plan);
		expect(await crew.execute(runId)).toBe("failed");
		const { run, tasks } = crew.snapshot(runId);
		expect(tasks.map((t) => t.usage.input + t.usage.output)).toEqual([1200, 1200]);
		expect(run.error).toBe("budget: 2400 of 1000 tokens");
		// The event marks the moment the cap was crossed, before the running tasks' second reports.
		const exhausted = crew.events(runId).find((e) => e.type === "budget.exhausted");
		expect(exhausted?.data.spent).toMatch(/^(1200|1800) of 1000 tokens$/);
	} finally {
		crew.close();
	}
});
