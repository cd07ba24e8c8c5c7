import { afterEach, expect, test } from "vitest";
import { cancelLiveRuns, crew, crewProcess, exitOf, read, TestRepo, waitFor } from "../helpers.js";

const repos: TestRepo[] = [];
afterEach(async () => {
	for (const repo of repos.splice(0)) await cancelLiveRuns(repo.dir);
});

function newRepo(): TestRepo {
	const repo = new TestRepo();
	repos.push(repo);
	return repo;
}

/**
 * Starts `args` as a runner, kills it with SIGKILL once `when` holds, each time, then resumes the
 * run until it ends; returns the run's id and the tasks that had completed at each kill.
 */
async function killAndResume(
	repo: TestRepo,
	args: readonly string[],
	when: readonly ((tasks: readonly { id: string; status: string }[]) => boolean)[],
): Promise<{ runId: string; completedAtKills: { at: number; ids: Set<string> }[]; code: number }> {
	let runner = crewProcess(repo.dir, args);
	const runId = await waitFor("the run recorded", () => read(repo.dir, (r) => r.repo.runs()[0]?.id));
	const completedAtKills: { at: number; ids: Set<string> }[] = [];
	for (const moment of when) {
		// A runner that ends before the moment (it failed, say) leaves the rest to the assertions.
		const reached = await waitFor(
			"the moment to kill, or the runner's end",
			() => (runner.exitCode !== null ? "ended" : moment(read(repo.dir, (r) => r.status(runId).tasks)) && "now"),
			30_000,
		);
		if (reached === "ended") break;
		runner.kill("SIGKILL");
		await exitOf(runner);
		const tasks = read(repo.dir, (r) => r.status(runId).tasks);
		const ids = new Set(tasks.filter((t) => t.status === "completed").map((t) => t.id));
		completedAtKills.push({ at: Date.now(), ids });
		runner = crewProcess(repo.dir, ["resume", runId]);
	}
	await exitOf(runner);
	return { runId, completedAtKills, code: runner.exitCode ?? -1 };
}

/** Tasks the store had completed at a kill that started again after it: must be none. */
function rerunAfterCompletion(repo: TestRepo, kills: { at: number; ids: Set<string> }[]): string[] {
	return kills.flatMap(({ at, ids }) =>
		repo
			.starts()
			.filter((s) => ids.has(s.task) && s.time > at)
			.map((s) => s.task),
	);
}

const running = (id: string) => (tasks: readonly { id: string; status: string }[]) =>
	tasks.some((t) => t.id === id && t.status === "running");

test("an --until run killed during pass 2, and again during pass 3, resumes to completion, each pass's work once", async () => {
	const repo = newRepo().agent("worker", "--sleep 600");
	repo.workflow("loop", [{ id: "work" }, { id: "more", dependsOn: ["work"] }]);
	// The check passes once pass 3's `more` has ended.
	const check = `grep -q '"end","task":"more.3"' ${repo.log}`;
	const { runId, completedAtKills } = await killAndResume(
		repo,
		["run", "loop", "--workflow", "loop", "--until", check],
		[running("more.2"), running("work.3")],
	);
	const final = read(repo.dir, (r) => r.status(runId));
	expect([final.run.status, final.run.error]).toEqual(["completed", null]);
	expect(completedAtKills).toHaveLength(2);
	expect(final.tasks.map((t) => [t.id, t.status])).toEqual([
		["work", "completed"],
		["more", "completed"],
		["until.1", "superseded"],
		["work.2", "completed"],
		["more.2", "completed"],
		["until.2", "superseded"],
		["work.3", "completed"],
		["more.3", "completed"],
		["until.3", "completed"],
	]);
	expect(rerunAfterCompletion(repo, completedAtKills)).toEqual([]);
	// The tasks no kill caught ran once; an agent a kill orphaned may finish before resume ends it.
	for (const id of ["work", "more", "work.2", "more.3"]) expect(repo.starts(id)).toHaveLength(1);
});

test("a planner's run killed while its planned tasks run resumes them; the planner never runs again", async () => {
	const repo = newRepo().agent("worker", "--sleep 500");
	const plan = {
		phases: [
			{ name: "one", tasks: [1, 2].map((k) => ({ role: "worker", title: `part ${k}`, task: "do it" })) },
			{ name: "two", tasks: [{ role: "worker", title: "last", task: "finish" }] },
		],
	};
	repo.writeFile(
		"plan.mjs",
		`import { appendFileSync } from "node:fs";
appendFileSync(${JSON.stringify(repo.log)}, JSON.stringify({ event: "start", task: process.env.CREW_TASK_ID, time: Date.now() }) + "\\n");
console.log("ADAPTIVE_PLAN_JSON_START\\n" + ${JSON.stringify(JSON.stringify(plan))} + "\\nADAPTIVE_PLAN_JSON_END");
`,
	);
	repo.writeFile(".crew/agents/plotter.md", "---\nname: plotter\nruntime: command\ncommand: node plan.mjs\n---\n");
	repo.workflow("adaptive", [
		{ id: "assess", role: "plotter", extra: { expand: "plan" } },
		{ id: "report", role: "worker", dependsOn: ["assess"] },
	]);
	const check = `grep -q '"end","task":"report.2"' ${repo.log}`;
	const { runId, completedAtKills } = await killAndResume(
		repo,
		["run", "plan it", "--workflow", "adaptive", "--until", check],
		[running("assess.1.1"), running("assess.2.1"), running("assess.2.1.1")],
	);
	const final = read(repo.dir, (r) => r.status(runId));
	expect([final.run.status, final.run.error]).toEqual(["completed", null]);
	expect(completedAtKills).toHaveLength(3);
	expect(final.tasks.filter((t) => t.status !== "completed" && t.status !== "superseded")).toEqual([]);
	expect(rerunAfterCompletion(repo, completedAtKills)).toEqual([]);
	expect(repo.starts("assess")).toHaveLength(1);
	expect(repo.starts("assess.2")).toHaveLength(1);
	expect(repo.ends("report")).toHaveLength(1);
	expect(repo.ends("report.2")).toHaveLength(1);
});

test("a workflow script killed mid-way, twice, resumes where it was: each finished call once", async () => {
	const repo = newRepo().agent("worker", "--sleep 500");
	repo.writeFile(
		".crew/workflows/steps.workflow.ts",
		`export default async (ctx) => {
	const first = await ctx.agent({ role: "worker", prompt: "first" });
	const both = await ctx.parallel([
		() => ctx.agent({ role: "worker", prompt: "left " + first }),
		() => ctx.agent({ role: "worker", prompt: "right" }),
	]);
	const last = await ctx.agent({ role: "worker", prompt: "last " + both.join(",") });
	return { last };
};
`,
	);
	const { runId, completedAtKills } = await killAndResume(
		repo,
		["run", "script", "--workflow", "steps"],
		[running("worker-2.0.1"), running("worker-3")],
	);
	const final = read(repo.dir, (r) => r.status(runId));
	expect([final.run.status, final.run.error]).toEqual(["completed", null]);
	expect(completedAtKills).toHaveLength(2);
	expect(final.tasks.map((t) => [t.id, t.status])).toEqual([
		["worker-1", "completed"],
		["worker-2.0.1", "completed"],
		["worker-2.1.1", "completed"],
		["worker-3", "completed"],
	]);
	expect(rerunAfterCompletion(repo, completedAtKills)).toEqual([]);
	const result = await crew(repo.dir, ["result", runId, "--json"]);
	expect(result.code).toBe(0);
});
