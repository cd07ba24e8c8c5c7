import { expect, test } from "vitest";
import { crew, gitRepo, lastJson } from "../helpers.js";

test("a run left with a task for a person exits 4, and its integration record names the work that reached its branch through that task's dependents", async () => {
	const repo = gitRepo();
	// It writes its file and commits it, then answers nothing: its step needs an answer.
	repo.commandAgent("mute-a", "echo a > a.txt");
	repo.commandAgent("author-b", "echo b > b.txt; echo wrote b");
	repo.workflow("pair", [
		{ id: "a", role: "mute-a", extra: { onMissing: "attention", output: "a.md" } },
		{ id: "b", role: "author-b", dependsOn: ["a"] },
	]);
	const run = await crew(repo.dir, ["run", "goal", "--workflow", "pair", "--workspace", "worktree", "--json"]);
	const { runId } = lastJson(run.stdout);
	expect(run.code, run.stdout).toBe(4);
	const shown = JSON.parse((await crew(repo.dir, ["status", runId, "--json"])).stdout);
	expect(shown.tasks.map((t: { id: string; status: string }) => `${t.id}:${t.status}`)).toEqual([
		"a:needs_attention",
		"b:completed",
	]);
	expect(shown.run.integration).toMatchObject({ merged: ["b"], carried: [{ task: "a", by: ["b"] }] });
	const text = (await crew(repo.dir, ["status", runId])).stdout;
	expect(text).toContain(`crew/${runId} also holds the work of a, not merged itself, through b`);

	// Its only task left for a person: nothing completed, and the run says so.
	repo.workflow("alone", [{ id: "a", role: "mute-a", extra: { onMissing: "attention", output: "a.md" } }]);
	const alone = await crew(repo.dir, ["run", "goal", "--workflow", "alone"]);
	expect(alone.code).toBe(4);
	expect(alone.stdout).toMatch(/run \S+ completed in .*: 1 needs_attention\n/);
	expect(alone.stdout).toContain("next: crew retry");
});
