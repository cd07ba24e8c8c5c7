import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { crew, TestRepo } from "../../helpers.js";

test("a step's output: is its answer as a shared file, which a later step's reads: carries into its prompt as data; a step whose output has no answer fails, saying so", async () => {
	const repo = new TestRepo();
	const agent = (name: string, command: string) => repo.commandAgent(name, command);
	agent("jotter", "echo PLAN-CONTENT");
	agent("reader", 'cat "$CREW_PROMPT_FILE"');
	agent("mute", "true");
	repo.workflow("shared", [
		{ id: "plan", role: "jotter", extra: { output: "plan.md" } },
		{ id: "note", role: "jotter" },
		{ id: "use", role: "reader", dependsOn: ["plan", "note"], extra: { reads: "plan.md, note.md, later.md" } },
		{ id: "quiet", role: "mute", extra: { output: "quiet.md", retries: "0" } },
	]);
	const run = await crew(repo.dir, ["run", "g", "--workflow", "shared", "--failure", "continue", "--json"]);
	expect(run.stderr).toContain("step 'use' reads 'later.md', which no step writes");
	const { runId, status } = JSON.parse(run.stdout.trim().split("\n").pop() as string) as {
		runId: string;
		status: string;
	};
	expect(status).toBe("failed");
	const dir = join(repo.dir, ".crew", "runs", runId);
	expect(readFileSync(join(dir, "shared", "plan.md"), "utf8")).toBe("PLAN-CONTENT\n");
	const used = (await crew(repo.dir, ["result", runId, "use"])).stdout;
	const reads = used.slice(used.indexOf("## Files this step reads"));
	expect(reads).toContain('<file name="shared/plan.md" chars="13">\nPLAN-CONTENT\n</file>');
	expect(reads).toContain('<file name="shared/note.md" chars="13">\nPLAN-CONTENT\n</file>');
	expect(reads).toContain("(shared/later.md has not been written)");
	const quiet = JSON.parse((await crew(repo.dir, ["result", runId, "quiet", "--json"])).stdout) as {
		status: string;
		error: string;
	};
	expect(quiet).toMatchObject({
		status: "failed",
		error: "its output quiet.md was not produced: its agent ended without an answer",
	});
	expect(existsSync(join(dir, "shared", "quiet.md"))).toBe(false);
});

test("reads: and output: must name files of the run's folder, as crew names them", async () => {
	const repo = new TestRepo();
	repo.agent("worker");
	repo.workflow("escape", [
		{ id: "a", extra: { reads: "../../secret.md" } },
		{ id: "b", extra: { output: "my plan.md" } },
	]);
	const plan = await crew(repo.dir, ["plan", "g", "--workflow", "escape"]);
	expect(plan.code).not.toBe(0);
	expect(plan.stderr).toContain("step 'a': reads '../../secret.md' must name a file in the run's folder");
	expect(plan.stderr).toContain("step 'b': output 'my plan.md' must name a file in the run's folder");
});

test("a shared file has one writer, and a step that reads one without waiting for its writer is warned of", async () => {
	const repo = new TestRepo();
	repo.agent("worker");
	repo.workflow("twice", [
		{ id: "a", extra: { output: "plan.md" } },
		{ id: "b", extra: { output: "plan.md" } },
	]);
	const twice = await crew(repo.dir, ["plan", "g", "--workflow", "twice"]);
	expect(twice.code).toBe(2);
	expect(twice.stderr).toContain("step 'b': output 'plan.md' is step 'a''s too: a shared file has one writer");
	repo.workflow("races", [
		{ id: "a", extra: { output: "plan.md" } },
		{ id: "c", extra: { reads: "plan.md, a.md" } },
		{ id: "d", dependsOn: ["c"], extra: { reads: "a.md" } },
	]);
	const plan = await crew(repo.dir, ["plan", "g", "--workflow", "races"]);
	expect(plan.code, plan.stderr).toBe(0);
	expect(plan.stderr).toContain(
		"step 'c' reads 'plan.md', written by step 'a', which it does not wait for: add dependsOn: a",
	);
	expect(plan.stderr).toContain("step 'c' reads 'a.md', written by step 'a', which it does not wait for");
	expect(plan.stderr).toContain("step 'd' reads 'a.md', written by step 'a', which it does not wait for");
	repo.workflow("waits", [
		{ id: "a", extra: { output: "plan.md" } },
		{ id: "c", dependsOn: ["a"] },
		{ id: "d", dependsOn: ["c"], extra: { reads: "plan.md, c.md" } },
	]);
	const fine = await crew(repo.dir, ["plan", "g", "--workflow", "waits"]);
	expect(fine.code, fine.stderr).toBe(0);
	expect(fine.stderr).not.toContain("does not wait for");
});
