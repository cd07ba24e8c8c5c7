import { expect, test } from "vitest";
import { crew, gitRepo, lastJson, read, type TestRepo } from "../helpers.js";

/**
 * A repository whose workflow `trio` has three parallel tasks writing notes.txt: a writes its own
 * line, b and b2 the same other line. Merged in dependency order (a, b, b2), b and b2 each
 * conflict with a; merged b, b2, a, only a does.
 */
function trio(): TestRepo {
	const repo = gitRepo();
	const agent = (name: string, command: string) =>
		repo.writeFile(`.crew/agents/${name}.md`, `---\nname: ${name}\nruntime: command\ncommand: ${command}\n---\n`);
	agent("writer-a", "echo from-a > notes.txt");
	agent("writer-b", "echo from-b > notes.txt");
	repo.workflow("trio", [
		{ id: "a", role: "writer-a" },
		{ id: "b", role: "writer-b" },
		{ id: "b2", role: "writer-b" },
	]);
	return repo;
}

test("the integration merges in the order, of those the DAG allows, that conflicts least, found by trial merges, and says why", async () => {
	const repo = trio();
	const run = await crew(repo.dir, [
		"run",
		"g",
		"--workflow",
		"trio",
		"--workspace",
		"worktree",
		"--integration",
		"manual",
		"--json",
	]);
	const runId = lastJson(run.stdout).runId;
	const integration = read(repo.dir, (r) => r.run(runId).integration);
	expect(integration?.merged).toEqual(["b", "b2"]);
	expect(integration?.conflicts.map((c) => c.task)).toEqual(["a"]);
	expect(integration?.order).toEqual({
		chosen: ["b", "b2", "a"],
		conflicts: 1,
		dependencyOrder: ["a", "b", "b2"],
		dependencyOrderConflicts: 2,
		tried: expect.any(Number),
	});
	const status = await crew(repo.dir, ["status", runId]);
	expect(status.stdout).toContain(
		"merged in the order b, b2, a: 1 conflicting merge, where dependency order (a, b, b2) meets 2",
	);
});

test("a run whose dependency order merges cleanly keeps it, and its record names no other order", async () => {
	const repo = gitRepo();
	repo.writeFile(
		".crew/agents/maker.md",
		'---\nname: maker\nruntime: command\ncommand: echo "$CREW_TASK_ID" > "$CREW_TASK_ID.txt"\n---\n',
	);
	repo.workflow("apart", [
		{ id: "x", role: "maker" },
		{ id: "y", role: "maker" },
		{ id: "z", role: "maker", dependsOn: ["x"] },
	]);
	const run = await crew(repo.dir, ["run", "g", "--workflow", "apart", "--workspace", "worktree", "--json"]);
	const runId = lastJson(run.stdout).runId;
	const integration = read(repo.dir, (r) => r.run(runId).integration);
	expect(integration?.merged).toEqual(["x", "y", "z"]);
	expect(integration?.order).toBeUndefined();
});

test("with an integrator, the order that conflicts least needs one resolution task where dependency order would need two", async () => {
	const repo = trio();
	repo.writeFile(
		".crew/agents/joiner.md",
		"---\nname: joiner\nruntime: command\ncommand: printf 'from-a\\nfrom-b\\n' > notes.txt\n---\n",
	);
	repo.writeFile(
		".crew/teams/trio.team.md",
		"---\nname: trio\n---\n- writer-a: agent=writer-a\n- writer-b: agent=writer-b\n- integrator: agent=joiner\n",
	);
	const args = ["run", "g", "--workflow", "trio", "--team", "trio", "--workspace", "worktree", "--json"];
	const run = await crew(repo.dir, args);
	expect(run.code, run.stderr).toBe(0);
	const runId = lastJson(run.stdout).runId;
	const { integration, resolutions } = read(repo.dir, (r) => ({
		integration: r.run(runId).integration,
		resolutions: r
			.status(runId)
			.tasks.filter((t) => t.stepId === "integrate")
			.map((t) => t.id),
	}));
	expect(resolutions).toEqual(["integrate.a"]);
	expect(integration?.status).toBe("resolved");
	expect(integration?.merged).toEqual(["b", "b2", "a"]);
	expect(integration?.order?.chosen).toEqual(["b", "b2", "a"]);
	expect(integration?.order?.dependencyOrderConflicts).toBe(2);
});
