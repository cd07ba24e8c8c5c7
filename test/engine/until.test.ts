import { readFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { expect, test } from "vitest";
import { RuntimeRegistry } from "../../src/runtimes/runtime-registry.js";
import { MIGRATIONS } from "../../src/store/migrations.js";
import { ROOT, TestRepo } from "../helpers.js";
import { runWorkflow, testCrew } from "./engine-helpers.js";

/** `work` adds a line to passes.txt each time it runs; the check wants `needed` lines. */
function loopRepo(): TestRepo {
	const repo = new TestRepo();
	repo.writeFile(
		".crew/agents/worker.md",
		'---\nname: worker\nruntime: command\ncommand: cat > "prompt-$CREW_TASK_ID.txt"; echo pass >> passes.txt; echo worked\n---\n',
	);
	repo.workflow("loop", [{ id: "work", role: "worker" }]);
	return repo;
}

const check = (needed: number) =>
	`n=$(wc -l < passes.txt); if [ "$n" -lt ${needed} ]; then echo "only $n passes so far"; exit 1; fi; echo "enough: $n"`;

test("--until runs the workflow again with the check's output until the check passes", async () => {
	const repo = loopRepo();
	const outcome = await runWorkflow(repo, { workflow: "loop", until: check(2) });
	expect(outcome.status).toBe("completed");
	expect([...outcome.tasks].map(([id, t]) => [id, t.status])).toEqual([
		["work", "completed"],
		["until.1", "superseded"],
		["work.2", "completed"],
		["until.2", "completed"],
	]);
	expect(outcome.tasks.get("until.1")?.error).toMatch(/^the goal is not met yet/);
	const second = readFileSync(join(repo.dir, "prompt-work.2.txt"), "utf8");
	expect(second).toContain("## The goal is not met yet (pass 2 of 3)");
	expect(second).toContain("only 1 passes so far");
	expect(outcome.events.filter((e) => e.type === "until.iteration")).toHaveLength(1);
});

test("--until stops after --max-iterations passes, failing the run with the last check's error", async () => {
	const repo = loopRepo();
	const outcome = await runWorkflow(repo, { workflow: "loop", until: check(5), maxIterations: 2 });
	expect(outcome.status).toBe("failed");
	expect(readFileSync(join(repo.dir, "passes.txt"), "utf8")).toBe("pass\npass\n");
	expect(outcome.runError).toMatch(/^task until\.2 failed: the goal is not met after 2 passes/);
	expect([...outcome.tasks.keys()]).toEqual(["work", "until.1", "work.2", "until.2"]);
});

test("--until with a spent budget stops instead of starting another pass", async () => {
	const repo = new TestRepo();
	// A pi agent played by a fixture that reports 15 tokens a task.
	repo.writeFile(".crew/agents/spender.md", "---\nname: spender\nruntime: pi\nmaxTokens: 15\n---\n");
	repo.workflow("loop", [{ id: "work", role: "spender" }]);
	const fake = [process.execPath, join(ROOT, "test", "fixtures", "fake-cli-output.mjs"), "pi"];
	const outcome = await runWorkflow(
		repo,
		{ workflow: "loop", until: "echo never; exit 1", budget: { tokens: 20 } },
		{ engine: { runtimes: RuntimeRegistry.standard({ pi: { command: fake } }) } },
	);
	expect(outcome.status).toBe("failed");
	expect(outcome.runError).toBe("budget: 15 of 20 tokens");
	expect([...outcome.tasks].map(([id, t]) => [id, t.status])).toEqual([
		["work", "completed"],
		["until.1", "superseded"],
		["work.2", "skipped"],
		["until.2", "skipped"],
	]);
});

test("the migration to superseded checks marks a failed check that a later pass answered, and its run resumes", async () => {
	const repo = loopRepo();
	const first = await runWorkflow(repo, { workflow: "loop", until: check(2) });
	expect(first.status).toBe("completed");
	// As an older crew left it: the answered check failed, and the run interrupted before its end.
	const db = new Database(join(repo.dir, ".crew", "crew.db"));
	db.prepare("UPDATE tasks SET status = 'failed' WHERE id = 'until.1'").run();
	db.prepare("UPDATE tasks SET status = 'interrupted' WHERE id = 'until.2'").run();
	db.prepare("UPDATE runs SET status = 'interrupted', finished_at = NULL").run();
	db.exec(MIGRATIONS.find((m) => m.name.includes("superseded"))?.sql ?? "");
	db.close();
	const crew = testCrew(repo);
	try {
		expect(crew.snapshot(first.runId).tasks.find((t) => t.id === "until.1")?.status).toBe("superseded");
		expect(await crew.execute(first.runId)).toBe("completed");
		expect(crew.snapshot(first.runId).tasks.map((t) => [t.id, t.status])).toEqual([
			["work", "completed"],
			["until.1", "superseded"],
			["work.2", "completed"],
			["until.2", "completed"],
		]);
		expect(readFileSync(join(repo.dir, "passes.txt"), "utf8")).toBe("pass\npass\n");
	} finally {
		crew.close();
	}
});
