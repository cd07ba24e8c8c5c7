// @module-tag agent-cli
// @slow: tasks' branches are merged by a real integrator agent in worktrees
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, test } from "vitest";
import { RuntimeRegistry } from "../../src/runtimes/runtime-registry.js";
import { scriptedCliSetup } from "../../src/scripted-model/cli-setup.js";
import { ScriptedModelServer } from "../../src/scripted-model/scripted-model-server.js";
import { actThenReport, type Turn } from "../../src/scripted-model/turns.js";
import { runWorkflow, testCrew } from "../engine/engine-helpers.js";
import { conflictingWorktrees, crew, servedApp, type TestRepo } from "../helpers.js";

const servers: ScriptedModelServer[] = [];
afterEach(async () => {
	for (const server of servers.splice(0)) await server.close();
});

/** The repository of `conflictingWorktrees`, with a check on b's work. */
function conflictingRepo(): TestRepo {
	return conflictingWorktrees({ verify: "grep -q from-b notes.txt" });
}

/**
 * pi runtimes against a scripted model that plays the integrator: `resolve(n)` decides its first
 * move on the n-th conflict it is shown; other prompts get a plain answer.
 */
async function scriptedIntegrator(
	resolve: (n: number) => Turn,
): Promise<{ runtimes: RuntimeRegistry; model: string; server: ScriptedModelServer }> {
	let shown = 0;
	const server = await ScriptedModelServer.start(
		actThenReport((request) => {
			const prompt = request.messages.find((m) => m.role === "user")?.text ?? "";
			if (!prompt.includes("git stopped at a conflict in")) return { kind: "text", text: "not my task" };
			return resolve(++shown);
		}, "kept both lines in notes.txt"),
	);
	servers.push(server);
	const scripted = scriptedCliSetup("pi", server.url, mkdtempSync(join(tmpdir(), "crew-pi-")));
	const runtimes = RuntimeRegistry.standard({ graceMs: 500, pi: { env: { PATH: process.env.PATH, ...scripted.env } } });
	return { runtimes, model: scripted.model, server };
}

const BOTH_LINES: Turn = { kind: "write", path: "notes.txt", content: "from-a\nfrom-b\n" };

/** The file `path` as `ref` holds it, or undefined. */
function show(repo: TestRepo, ref: string, path: string): string | undefined {
	try {
		return execFileSync("git", ["show", `${ref}:${path}`], { cwd: repo.dir, encoding: "utf8", stdio: "pipe" });
	} catch {
		return undefined;
	}
}

const git = (repo: TestRepo, ...args: string[]) =>
	execFileSync("git", args, { cwd: repo.dir, encoding: "utf8", stdio: "pipe" }).trim();

test("a conflict between two tasks' branches is resolved by the integrator: both changes reach crew/<run> and crew merge brings them", async () => {
	const repo = conflictingRepo();
	// The scripted model plays crew's own integrator: it writes notes.txt with both tasks' lines.
	const { runtimes, model, server } = await scriptedIntegrator(() => BOTH_LINES);
	const outcome = await runWorkflow(repo, { workflow: "pair", workspace: "worktree", model }, { engine: { runtimes } });
	expect([outcome.status, outcome.runError]).toEqual(["completed", null]);
	expect(outcome.tasks.get("integrate.b")?.status).toBe("completed");
	expect(outcome.tasks.get("integrate.b")?.role).toBe("integrator");
	const branch = `crew/${outcome.runId}`;
	expect(show(repo, branch, "notes.txt")).toBe("from-a\nfrom-b\n");
	expect(show(repo, branch, "c.txt")).toBe("c\n");
	// The integrator saw the conflict, the files and both sides' results, as data.
	const asked = server.requests.find((r) => r.messages.some((m) => m.text.includes("git stopped at a conflict")));
	const prompt = asked?.messages.find((m) => m.role === "user")?.text ?? "";
	expect(prompt).toContain("merging the branch of task b");
	expect(prompt).toContain("- notes.txt");
	expect(prompt).toMatch(/<result task="a"[^>]*>/);
	expect(prompt).toMatch(/<result task="b"[^>]*>/);
	// b's check ran on the resolved tree too.
	const checked = join(
		repo.dir,
		".crew",
		"runs",
		outcome.runId,
		"tasks",
		"integrate.b",
		"check",
		"attempt-1.output.txt",
	);
	expect(existsSync(checked)).toBe(true);
	const record = outcome.events.find((e) => e.type === "integration.resolved")?.data;
	expect(record).toMatchObject({
		status: "resolved",
		merged: ["a", "b", "c"],
		missing: [],
		resolvedBy: ["integrate.b"],
	});

	const status = JSON.parse((await crew(repo.dir, ["status", outcome.runId, "--json"])).stdout);
	expect(status.run.integration).toMatchObject({ status: "resolved", branch, missing: [] });
	const merged = await crew(repo.dir, ["merge", outcome.runId]);
	expect(merged.code).toBe(0);
	expect(readFileSync(join(repo.dir, "notes.txt"), "utf8")).toBe("from-a\nfrom-b\n");
	expect(readFileSync(join(repo.dir, "c.txt"), "utf8")).toBe("c\n");
	const again = await crew(repo.dir, ["merge", outcome.runId]);
	expect([again.code, again.stdout]).toEqual([0, `${branch} is already merged into your branch: nothing to do\n`]);
});

test("with --integration manual a conflict is shown everywhere, the run does not exit 0, and crew merge takes only what merged, with --partial", async () => {
	const repo = conflictingRepo();
	const run = await crew(repo.dir, [
		"run",
		"write notes",
		"--workflow",
		"pair",
		"--workspace",
		"worktree",
		"--integration",
		"manual",
	]);
	const runId = /^run (\S+):/m.exec(run.stdout)?.[1] as string;
	expect(run.code).toBe(3);
	expect(run.stdout).toContain(`integration: conflict: b conflicts with the work merged before it in notes.txt`);
	expect(run.stdout).toContain(`crew/${runId} holds a, c; missing: b (on crew-tasks/${runId}/b)`);
	expect(run.stdout).toContain(`crew merge ${runId} --partial`);

	const status = JSON.parse((await crew(repo.dir, ["status", runId, "--json"])).stdout);
	expect(status.run.status).toBe("failed");
	expect(status.run.error).toBe(
		`integration incomplete: b conflicts with the work merged before it in notes.txt; missing from crew/${runId}: b`,
	);
	expect(status.run.integration).toEqual({
		status: "conflict",
		branch: `crew/${runId}`,
		merged: ["a", "c"],
		missing: ["b"],
		resolvedBy: [],
		commit: expect.stringMatching(/^[0-9a-f]{40}$/),
		conflicts: [{ task: "b", branch: `crew-tasks/${runId}/b`, files: ["notes.txt"] }],
	});
	expect(status.tasks.map((t: { id: string; status: string }) => [t.id, t.status])).toEqual([
		["a", "completed"],
		["b", "completed"],
		["c", "completed"],
	]);
	const text = await crew(repo.dir, ["status", runId]);
	expect(text.stdout).toContain("integration: conflict: b conflicts with the work merged before it in notes.txt");

	// The dashboard's API gives the same record.
	const { request, close } = servedApp(repo.dir, { pollMs: 20 });
	const app = { request };
	try {
		const api = (await (await app.request(`/api/runs/${runId}`)).json()) as { run: { integration: unknown } };
		expect(api.run.integration).toEqual(status.run.integration);
	} finally {
		close();
	}

	const refused = await crew(repo.dir, ["merge", runId]);
	expect(refused.code).toBe(1);
	expect(refused.stderr).toContain(`crew/${runId} lacks the work of b`);
	expect(refused.stderr).toContain(`crew merge ${runId} --partial`);
	const before = git(repo, "rev-parse", "HEAD");
	expect(git(repo, "rev-parse", "HEAD")).toBe(before);

	const partial = await crew(repo.dir, ["merge", runId, "--partial"]);
	expect(partial.code).toBe(0);
	expect(partial.stdout).toMatch(new RegExp(`^merged crew/${runId} into \\S+: now at [0-9a-f]{12}; not in it: b\\n$`));
	expect(readFileSync(join(repo.dir, "notes.txt"), "utf8")).toBe("from-a\n");
	expect(readFileSync(join(repo.dir, "c.txt"), "utf8")).toBe("c\n");
	const again = await crew(repo.dir, ["merge", runId, "--partial"]);
	expect(again.stdout).toBe(`crew/${runId} is already merged into your branch: nothing to do\n`);
});

test("a team's integration: manual leaves conflicts for a person; a resumed run keeps the record", async () => {
	const repo = conflictingRepo();
	repo.writeFile(
		".crew/teams/writers.team.md",
		"---\nname: writers\nintegration: manual\n---\n- writer-a: agent=writer-a\n- writer-b: agent=writer-b\n- maker: agent=maker\n",
	);
	const outcome = await runWorkflow(repo, { workflow: "pair", team: "writers", workspace: "worktree" });
	expect(outcome.status).toBe("failed");
	expect(outcome.tasks.has("integrate.b")).toBe(false);
	expect(outcome.events.filter((e) => e.type === "integration.conflict")).toHaveLength(1);
});

test("a resolution that leaves conflict markers fails, the run reads the conflict, and a resume resolves it", async () => {
	const repo = conflictingRepo();
	// The first resolution answers without editing anything; the one after writes both lines.
	const { runtimes, model } = await scriptedIntegrator((n) =>
		n === 1 ? { kind: "text", text: "looks fine to me" } : BOTH_LINES,
	);
	const first = await runWorkflow(
		repo,
		{ workflow: "pair", workspace: "worktree", model, retries: 0 },
		{ engine: { runtimes } },
	);
	expect(first.status).toBe("failed");
	expect(first.tasks.get("integrate.b")).toMatchObject({
		status: "failed",
		error: "conflict markers are left in notes.txt",
	});
	expect(first.events.find((e) => e.type === "integration.conflict")?.data).toMatchObject({
		merged: ["a", "c"],
		missing: ["b"],
	});
	const crew = testCrew(repo, { runtimes });
	try {
		expect(await crew.execute(first.runId)).toBe("completed");
		expect(crew.run(first.runId).integration).toMatchObject({ status: "resolved", resolvedBy: ["integrate.b"] });
	} finally {
		crew.close();
	}
	expect(show(repo, `crew/${first.runId}`, "notes.txt")).toBe("from-a\nfrom-b\n");
	expect(show(repo, `crew/${first.runId}`, "c.txt")).toBe("c\n");
});
