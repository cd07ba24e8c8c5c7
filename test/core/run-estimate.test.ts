import { expect, test } from "vitest";
import { estimateLine } from "../../src/core/estimate-line.js";
import {
	BUILTIN_TASK_ESTIMATE,
	type EstimateTask,
	estimateRun,
	estimateScriptRun,
	type TaskSample,
} from "../../src/core/run-estimate.js";

const task = (
	id: string,
	agent: string,
	dependsOn: string[] = [],
	extra: Partial<EstimateTask> = {},
): EstimateTask => ({
	id,
	stepId: id,
	agent,
	runtime: "pi",
	model: null,
	dependsOn,
	...extra,
});

let finished = 0;
const sample = (
	runId: string,
	stepId: string,
	agent: string,
	tokens: number,
	extra: Partial<TaskSample> = {},
): TaskSample => ({
	runId,
	workflow: "wf",
	taskId: stepId,
	stepId,
	agent,
	runtime: "pi",
	model: null,
	plannedBy: null,
	tokens,
	costUsd: tokens / 100_000,
	durationMs: 1000,
	finishedAt: ++finished * 1000,
	...extra,
});

const run = (tasks: EstimateTask[], samples: TaskSample[], concurrency = 4, morePasses = 0) =>
	estimateRun({ workflow: "wf", tasks, concurrency, morePasses }, samples);

test("without history every task takes the builtin defaults, and the basis says so", () => {
	const estimate = run([task("a", "x"), task("b", "x", ["a"])], []);
	expect(estimate.tokens).toBe(2 * BUILTIN_TASK_ESTIMATE.tokens);
	expect(estimate.costUsd).toBeCloseTo(2 * BUILTIN_TASK_ESTIMATE.costUsd);
	expect(estimate.durationMs).toBe(2 * BUILTIN_TASK_ESTIMATE.durationMs);
	expect(estimate.pastRuns).toBe(0);
	expect(estimate.basis).toBe("builtin defaults, no history here");
	expect(estimate.perTask.map((t) => t.from)).toEqual(["default", "default"]);
});

test("a task takes the median of its workflow step's own history before its agent's", () => {
	const samples = [
		sample("r1", "a", "x", 100),
		sample("r2", "a", "x", 300),
		sample("r3", "a", "x", 200),
		// The same agent elsewhere, much larger: used only where the step has no history.
		sample("r1", "other", "x", 9000),
		sample("r2", "other", "x", 9000),
	];
	const estimate = run([task("a", "x"), task("b", "x")], samples);
	expect(estimate.perTask).toMatchObject([
		{ id: "a", tokens: 200, from: "step", samples: 3 },
		{ id: "b", from: "agent-model", samples: 5, tokens: 300 },
	]);
	expect(estimate.pastRuns).toBe(3);
	expect(estimate.basis).toBe("from 3 past runs");
});

test("fallback order: step with agent and model, then agent and model, then agent, then builtin defaults", () => {
	const samples = [
		sample("r1", "a", "x", 111, { model: "m1" }),
		sample("r1", "a", "x", 555, { model: "m2" }),
		sample("r2", "elsewhere", "x", 222, { model: "m1", workflow: "another" }),
		sample("r3", "elsewhere", "y", 333, { model: "m9" }),
	];
	const estimate = run(
		[
			task("a", "x", [], { model: "m1" }),
			task("b", "x", [], { model: "m1" }),
			task("c", "y", [], { model: "m1" }),
			task("d", "z"),
		],
		samples,
	);
	expect(estimate.perTask.map((t) => [t.id, t.from, t.tokens])).toEqual([
		["a", "step", 111],
		// x on m1 anywhere: 111 and 222.
		["b", "agent-model", 167],
		["c", "agent", 333],
		["d", "default", BUILTIN_TASK_ESTIMATE.tokens],
	]);
	expect(estimate.basis).toBe("from 3 past runs; builtin defaults for 1 of 4 tasks");
});

test("time follows the critical path, not the sum, and waits for free slots past the concurrency limit", () => {
	const timed = (stepId: string, ms: number) => sample("r1", stepId, "x", 10, { durationMs: ms });
	const samples = [timed("a", 1000), timed("b", 5000), timed("c", 2000), timed("d", 1000), timed("e", 1000)];
	// a → (b, c, d) → e: with room for all three, the path through b bounds the run.
	const tasks = [
		task("a", "x"),
		task("b", "x", ["a"]),
		task("c", "x", ["a"]),
		task("d", "x", ["a"]),
		task("e", "x", ["b", "c", "d"]),
	];
	expect(run(tasks, samples, 4).durationMs).toBe(1000 + 5000 + 1000);
	// One slot: everything in turn.
	expect(run(tasks, samples, 1).durationMs).toBe(1000 + 5000 + 2000 + 1000 + 1000);
	// Two slots: b on one, c then d on the other.
	expect(run(tasks, samples, 2).durationMs).toBe(1000 + 5000 + 1000);
	// Two slots, where c and d together outlast b.
	const longer = [timed("a", 1000), timed("b", 3000), timed("c", 2000), timed("d", 2000), timed("e", 1000)];
	expect(run(tasks, longer, 2).durationMs).toBe(1000 + 4000 + 1000);
});

test("a planner with no past runs of its workflow makes the estimate a lower bound", () => {
	const estimate = run([task("plan", "x", [], { expands: true }), task("after", "x", ["plan"])], []);
	expect(estimate.atLeast).toBe(true);
	expect(estimate.tasks).toBe(2);
	expect(estimateLine(estimate)).toMatch(/^at least 2 tasks, /);
	expect(estimateLine(estimate)).toContain("and what its planner adds");
});

test("a planner's added tasks are estimated from what it added in past runs of the same workflow", () => {
	const added = (runId: string, id: string, tokens: number, finishedAt: number, workflow = "wf") =>
		sample(runId, id, "w", tokens, { taskId: id, plannedBy: "plan", finishedAt, durationMs: 1000, workflow });
	const samples = [
		sample("r1", "plan", "x", 100, { finishedAt: 10_000, durationMs: 2000 }),
		added("r1", "p1", 1000, 13_000),
		added("r1", "p2", 1000, 14_000),
		sample("r2", "plan", "x", 100, { finishedAt: 20_000, durationMs: 2000 }),
		added("r2", "p1", 2000, 22_000),
		added("r2", "p2", 2000, 26_000),
		added("r2", "p3", 2000, 26_000),
		sample("r3", "plan", "x", 100, { finishedAt: 30_000, durationMs: 2000 }),
		added("r3", "p1", 1500, 32_000),
		added("r3", "p2", 1500, 33_000),
		// Another workflow's planner of the same name says nothing about this one's.
		added("r9", "p1", 99_000, 1, "another"),
	];
	// "after"'s agent has no history: builtin defaults.
	const estimate = run([task("plan", "x", [], { expands: true }), task("after", "z", ["plan"])], samples);
	expect(estimate.atLeast).toBe(false);
	// Median per run: 2 tasks, 3000 tokens (2000, 6000, 3000), 4 s after the planner (4, 6, 3).
	expect(estimate.tasks).toBe(4);
	expect(estimate.tokens).toBe(100 + 3000 + BUILTIN_TASK_ESTIMATE.tokens);
	expect(estimate.durationMs).toBe(2000 + 4000 + BUILTIN_TASK_ESTIMATE.durationMs);
});

test("the line gives tasks, tokens, cost, time and a direct call (the plan's median task), with its basis", () => {
	const samples = [1, 2, 3, 4, 5].flatMap((n) => [
		sample(`r${n}`, "a", "x", 8000, { costUsd: 0.05, durationMs: 60_000 }),
		sample(`r${n}`, "b", "x", 8000, { costUsd: 0.05, durationMs: 60_000 }),
		sample(`r${n}`, "c", "y", 24_000, { costUsd: 0.2, durationMs: 60_000 }),
	]);
	const estimate = run([task("a", "x"), task("b", "x", ["a"]), task("c", "y", ["b"])], samples);
	expect(estimateLine(estimate)).toBe(
		"about 3 tasks, ~40k tokens (~$0.30), ~3 min; a direct call to one agent ~8k tokens (from 5 past runs)",
	);
});

test("history counts only on the same runtime: a dry run of a plan is not priced as its pi runs were", () => {
	const samples = [sample("r1", "a", "x", 5000), sample("r2", "a", "x", 5000)];
	const estimate = run(
		[task("a", "x", [], { runtime: "dry-run" }), task("b", "x", [], { runtime: "command" })],
		samples,
	);
	expect(estimate.perTask.map((t) => [t.id, t.from, t.tokens, t.costUsd])).toEqual([
		["a", "default", 0, 0],
		// A command's tokens are never counted, so none are expected.
		["b", "default", 0, 0],
	]);
	expect(run([task("a", "x")], samples).perTask[0]).toMatchObject({ from: "step", tokens: 5000 });
	// A command that has not run here may be `echo` or a test suite: its time is not guessed.
	expect(estimateLine(run([task("b", "x", [], { runtime: "command" })], []))).toBe(
		"about 1 task, no tokens counted, its time not known before its commands have run here (builtin defaults, no history here)",
	);
	expect(estimateLine(run([task("a", "x"), task("b", "x", ["a"], { runtime: "command" })], []))).toBe(
		"about 2 tasks, ~8k tokens (~$0.05), ~1 min besides 1 command not yet timed here; a direct call to one agent ~4k tokens (builtin defaults, no history here)",
	);
});

test("an --until loop makes the estimate one pass of several: at least, with the passes that may follow", () => {
	const estimate = run([task("a", "x")], [], 4, 2);
	expect(estimate.atLeast).toBe(true);
	expect(estimateLine(estimate)).toMatch(/^at least 1 task, .*, and up to 2 more passes of the --until check; /);
});

test("a workflow script's run is estimated from its past runs as wholes, or said to be unknown", () => {
	const none = estimateScriptRun("wf", [sample("r1", "a", "x", 100, { workflow: "another" })]);
	expect(none).toMatchObject({ tasks: 0, atLeast: true, pastRuns: 0 });
	expect(estimateLine(none)).toBe(
		"not known before it runs: the tasks its script makes (no past runs of this workflow here)",
	);
	const samples = [
		// r1: two tasks, 1 s then 2 s, one after the other; r2: one task; r3: three tasks at once.
		sample("r1", "a", "x", 1000, { finishedAt: 11_000, durationMs: 1000 }),
		sample("r1", "b", "y", 3000, { finishedAt: 13_000, durationMs: 2000 }),
		sample("r2", "a", "x", 2000, { finishedAt: 21_000, durationMs: 5000 }),
		sample("r3", "a", "x", 1000, { finishedAt: 31_000, durationMs: 4000 }),
		sample("r3", "b", "x", 1000, { finishedAt: 31_000, durationMs: 4000 }),
		sample("r3", "c", "x", 1000, { finishedAt: 31_000, durationMs: 4000 }),
	];
	const estimate = estimateScriptRun("wf", samples);
	// Per run: 2, 1 and 3 tasks; 4000, 2000 and 3000 tokens; 3, 5 and 4 s.
	expect(estimate).toMatchObject({ tasks: 2, tokens: 3000, durationMs: 4000, atLeast: false, pastRuns: 3 });
	expect(estimate.directCallTokens).toBe(1000);
	expect(estimate.basis).toBe("from 3 past runs");
});
