import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { gitRepo, TestRepo, waitFor } from "../helpers.js";
import { runWorkflow, testCrew } from "./engine-helpers.js";

const phases = (...sizes: number[]) => ({
	phases: sizes.map((n, p) => ({
		name: `phase ${p + 1}`,
		tasks: Array.from({ length: n }, (_, k) => ({ role: "worker", title: `part ${p + 1}.${k + 1}`, task: "do it" })),
	})),
});

/**
 * A planner that prints `plans[attempt - 1]` (the last one for later attempts) between the markers,
 * keeping each prompt it gets; `worker` runs the fake agent.
 */
function plannerRepo(plans: readonly unknown[], workerFlags = ""): TestRepo {
	const repo = new TestRepo().agent("worker", workerFlags);
	repo.writeFile(
		"plan.mjs",
		`import { readFileSync, writeFileSync } from "node:fs";
const plans = ${JSON.stringify(plans)};
const attempt = Number(process.env.CREW_ATTEMPT);
writeFileSync("planner-prompt-" + attempt + ".txt", readFileSync(0, "utf8"));
const plan = plans[Math.min(attempt, plans.length) - 1];
console.log("Here is the plan.\\nADAPTIVE_PLAN_JSON_START\\n" + JSON.stringify(plan) + "\\nADAPTIVE_PLAN_JSON_END");
`,
	);
	repo.writeFile(".crew/agents/plotter.md", "---\nname: plotter\nruntime: command\ncommand: node plan.mjs\n---\n");
	repo.workflow("adaptive", [
		{ id: "assess", role: "plotter", extra: { output: "adaptive-plan.json" } },
		{ id: "report", role: "worker", dependsOn: ["assess"] },
	]);
	return repo;
}

test("a planner's phases join the run: each phase after the last, the planner's dependents after all", async () => {
	const repo = plannerRepo([phases(2, 1)]);
	const outcome = await runWorkflow(repo, { workflow: "adaptive" });
	expect(outcome.status).toBe("completed");
	expect([...outcome.tasks.keys()]).toEqual(["assess", "report", "assess.1.1", "assess.1.2", "assess.2.1"]);
	const end = (id: string) => Math.max(...repo.ends(id).map((e) => e.time));
	const start = (id: string) => Math.min(...repo.starts(id).map((e) => e.time));
	expect(start("assess.2.1")).toBeGreaterThanOrEqual(Math.max(end("assess.1.1"), end("assess.1.2")));
	expect(start("report")).toBeGreaterThanOrEqual(end("assess.2.1"));
	const expanded = outcome.events.find((e) => e.type === "plan.expanded");
	expect(expanded?.data).toEqual({ tasks: ["assess.1.1", "assess.1.2", "assess.2.1"], dependents: ["report"] });
	const prompt = readFileSync(
		join(repo.dir, ".crew", "runs", outcome.runId, "tasks", "assess.1.2", "prompt.md"),
		"utf8",
	);
	expect(prompt).toContain("part 1.2\n\ndo it");
});

test("an invalid plan fails the planner's attempt, and the retry is told why", async () => {
	const bad = { phases: [{ name: "x", tasks: [{ role: "wizard", task: "magic" }] }] };
	const repo = plannerRepo([bad, phases(1)]);
	const outcome = await runWorkflow(repo, { workflow: "adaptive" });
	expect(outcome.status).toBe("completed");
	expect(outcome.tasks.get("assess")?.attempts).toBe(2);
	const second = readFileSync(join(repo.dir, "planner-prompt-2.txt"), "utf8");
	expect(second).toContain("task 'assess.1.1' has role 'wizard'; the roles are plotter, worker");
	expect([...outcome.tasks.keys()]).toEqual(["assess", "report", "assess.1.1"]);
});

test("an oversized plan is refused with the limit, and nothing is added", async () => {
	const repo = plannerRepo([phases(13)]);
	const outcome = await runWorkflow(repo, { workflow: "adaptive", retries: 0 });
	expect(outcome.status).toBe("failed");
	expect(outcome.tasks.get("assess")?.error).toMatch(/phase 1 has 13 tasks; at most 12 may run in one phase/);
	expect([...outcome.tasks.keys()]).toEqual(["assess", "report"]);
});

test("a resumed run keeps its added tasks and never asks the planner again", async () => {
	const repo = plannerRepo([phases(2)], "--sleep 400");
	const crew = testCrew(repo);
	try {
		const runId = crew.create(await crew.plan({ goal: "g", workflow: "adaptive" }));
		const controller = new AbortController();
		const running = crew.execute(runId, { signal: controller.signal });
		await waitFor("the plan to be added", () => crew.events(runId).some((e) => e.type === "plan.expanded"));
		controller.abort(new Error("stop"));
		expect(await running).toBe("cancelled");
		expect(await crew.execute(runId)).toBe("completed");
		const { tasks } = crew.snapshot(runId);
		expect(tasks.map((t) => [t.id, t.status])).toEqual([
			["assess", "completed"],
			["report", "completed"],
			["assess.1.1", "completed"],
			["assess.1.2", "completed"],
		]);
		expect(tasks[0]?.attempts).toBe(1);
		expect(crew.events(runId).filter((e) => e.type === "plan.expanded")).toHaveLength(1);
	} finally {
		crew.close();
	}
});

test("with approvePlan the added tasks wait for approval before any of them starts", async () => {
	const repo = plannerRepo([phases(2, 1)]);
	const crew = testCrew(repo);
	try {
		const runId = crew.create(await crew.plan({ goal: "g", workflow: "adaptive", approvePlan: true }));
		const running = crew.execute(runId);
		await waitFor("the plan to wait for approval", () => crew.run(runId).status === "waiting");
		const waiting = crew
			.snapshot(runId)
			.tasks.filter((t) => t.status === "waiting")
			.map((t) => t.id);
		expect(waiting).toEqual(["assess.1.1", "assess.1.2"]);
		expect(repo.starts()).toHaveLength(0);
		const other = testCrew(repo);
		expect(other.approve(runId).tasks).toEqual(["assess.1.1", "assess.1.2"]);
		other.close();
		expect(await running).toBe("completed");
		expect(
			repo
				.starts()
				.map((e) => e.task)
				.sort(),
		).toEqual(["assess.1.1", "assess.1.2", "assess.2.1", "report"]);
	} finally {
		crew.close();
	}
});

test("in worktree mode a plan's tasks work in worktrees of their own", async () => {
	const repo = gitRepo();
	const plan = JSON.stringify(phases(1));
	repo.writeFile(
		"plan.mjs",
		`console.log("ADAPTIVE_PLAN_JSON_START\\n" + ${JSON.stringify(plan)} + "\\nADAPTIVE_PLAN_JSON_END");\n`,
	);
	const git = (...args: string[]) => execFileSync("git", args, { cwd: repo.dir, encoding: "utf8" });
	git("add", "plan.mjs");
	git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "planner");
	repo.writeFile(".crew/agents/plotter.md", "---\nname: plotter\nruntime: command\ncommand: node plan.mjs\n---\n");
	repo.writeFile(".crew/agents/worker.md", "---\nname: worker\nruntime: command\ncommand: pwd > where.txt\n---\n");
	repo.workflow("adaptive", [
		{ id: "assess", role: "plotter", extra: { output: "adaptive-plan.json" } },
		{ id: "report", role: "worker", dependsOn: ["assess"] },
	]);
	const outcome = await runWorkflow(repo, { workflow: "adaptive", workspace: "worktree" });
	expect(outcome.status, JSON.stringify([...outcome.tasks.values()])).toBe("completed");
	const where = git("show", `crew-tasks/${outcome.runId}/assess.1.1:where.txt`).trim();
	expect(where).toBe(join(repo.dir, ".crew", "worktrees", outcome.runId, "assess.1.1"));
});
