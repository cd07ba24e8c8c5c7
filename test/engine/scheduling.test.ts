import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { maxOverlap, TestRepo } from "../helpers.js";
import { runWorkflow, statuses } from "./engine-helpers.js";

test("a task starts only after all its dependencies completed", async () => {
	const repo = new TestRepo().agent("worker", "--sleep 400");
	repo.workflow("diamond", [
		{ id: "a" },
		{ id: "b", dependsOn: ["a"] },
		{ id: "c", dependsOn: ["a"] },
		{ id: "d", dependsOn: ["b", "c"] },
		{ id: "e", dependsOn: ["d"] },
	]);
	const outcome = await runWorkflow(repo, { workflow: "diamond", concurrency: 4 });
	expect(outcome.status).toBe("completed");
	const at = (task: string, event: string) =>
		repo.entries().find((e) => e.task === task && e.event === event)?.time ?? NaN;
	const deps: Record<string, string[]> = { b: ["a"], c: ["a"], d: ["b", "c"], e: ["d"] };
	for (const [task, before] of Object.entries(deps)) {
		for (const dep of before) expect(at(task, "start")).toBeGreaterThanOrEqual(at(dep, "end"));
	}
	expect(maxOverlap(repo.entries())).toBe(2);
});

test("the concurrency limit is never exceeded, and it is used", async () => {
	// Long enough that agents started together overlap however slowly a loaded machine starts them.
	const repo = new TestRepo().agent("worker", "--sleep 600");
	repo.workflow(
		"wide",
		Array.from({ length: 9 }, (_, i) => ({ id: `t${i}` })),
	);
	const outcome = await runWorkflow(repo, { workflow: "wide", concurrency: 3 });
	expect(outcome.status).toBe("completed");
	expect(maxOverlap(repo.entries())).toBe(3);
});

test("a role's own limit holds while other roles fill the remaining slots", async () => {
	const repo = new TestRepo().agent("worker", "--sleep 150");
	repo.writeFile(
		".crew/teams/mixed.team.md",
		"---\nname: mixed\n---\n- worker: agent=worker\n- solo: agent=worker maxConcurrency=1 one at a time\n",
	);
	repo.workflow("mixed", [
		...Array.from({ length: 4 }, (_, i) => ({ id: `solo${i}`, role: "solo" })),
		...Array.from({ length: 4 }, (_, i) => ({ id: `w${i}`, role: "worker" })),
	]);
	const outcome = await runWorkflow(repo, { workflow: "mixed", team: "mixed", concurrency: 4 });
	expect(outcome.status).toBe("completed");
	const entries = repo.entries();
	expect(maxOverlap(entries.filter((e) => e.task.startsWith("solo")))).toBe(1);
	expect(maxOverlap(entries)).toBeLessThanOrEqual(4);
	expect(maxOverlap(entries)).toBeGreaterThan(1);
});

test("the longest remaining path starts first, ties in declaration order", async () => {
	const repo = new TestRepo().agent("worker");
	repo.workflow("paths", [
		{ id: "a" },
		{ id: "b" },
		{ id: "c", dependsOn: ["b"] },
		{ id: "d", dependsOn: ["c"] },
		{ id: "e" },
	]);
	const outcome = await runWorkflow(repo, { workflow: "paths", concurrency: 1 });
	expect(outcome.status).toBe("completed");
	expect(repo.starts().map((e) => e.task)).toEqual(["b", "c", "a", "d", "e"]);
});

test("a dependency's result reaches its dependents' prompts, fenced as data", async () => {
	const repo = new TestRepo().agent("worker");
	repo.workflow("pair", [
		{ id: "first" },
		{ id: "second", dependsOn: ["first"], text: "Use what first found about {goal}" },
	]);
	const outcome = await runWorkflow(repo, { workflow: "pair", goal: "the parser" });
	expect(outcome.status).toBe("completed");
	const prompt = readFileSync(join(repo.dir, ".crew", "runs", outcome.runId, "tasks", "second", "prompt.md"), "utf8");
	expect(prompt).toContain("Use what first found about the parser");
	expect(prompt).toContain("not instructions");
	expect(prompt).toMatch(
		/<result task="first" chars="11" full="\.crew\/runs\/[^"]+\/tasks\/first\/result\.md">\ndone first\n<\/result>/,
	);
});

test("a huge output is kept bounded and the task still completes", async () => {
	const repo = new TestRepo().agent("worker", "--print-mb 6");
	repo.workflow("loud", [{ id: "loud" }]);
	const outcome = await runWorkflow(repo, { workflow: "loud" });
	expect(statuses(outcome)).toEqual({ loud: "completed" });
	const result = readFileSync(join(repo.dir, ".crew", "runs", outcome.runId, "tasks", "loud", "result.md"), "utf8");
	expect(result.length).toBeLessThan(5 * 1024 * 1024);
	expect(result).toMatch(/\[crew: output truncated after 4194304 of 629\d{4} bytes\]\n$/);
});
