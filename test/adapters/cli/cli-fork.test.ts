// @module-tag node22
// @module-tag agent-cli
// @slow: forks and replays real pi runs, each run in crew processes of its own
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, test } from "vitest";
import { addUsage, ZERO_USAGE } from "../../../src/core/usage.js";
import type { TaskComparison } from "../../../src/engine/history/diff.js";
import { scriptedCliSetup } from "../../../src/scripted-model/cli-setup.js";
import { ScriptedModelServer } from "../../../src/scripted-model/scripted-model-server.js";
import type { ModelRequest } from "../../../src/scripted-model/turns.js";
import { completedRun, crew, gitRepo, read, type TestRepo } from "../../helpers.js";

const servers: ScriptedModelServer[] = [];
afterEach(async () => {
	for (const server of servers.splice(0)) await server.close();
});

const STEPS = ["s1", "s2", "s3", "s4", "s5"];

/** Which step a worker's request is for: its prompt names it. */
function stepOf(request: ModelRequest): string {
	const text = request.messages.map((m) => m.text).join("\n");
	return STEPS.find((s) => text.includes(`STEP-${s}`)) ?? "?";
}

/** A chain of five steps run by a pi agent on the scripted model, each answering with its step's name. */
async function forkSetup() {
	// The second model says more: a fork's answers differ in text and in tokens.
	const more = (request: ModelRequest) =>
		request.model === "scripted-2" ? ", said at length by the second model" : "";
	const server = await ScriptedModelServer.start((request) => ({
		kind: "text",
		text: `answer of ${stepOf(request)}${more(request)}`,
	}));
	servers.push(server);
	const repo = gitRepo();
	const scripted = scriptedCliSetup("pi", server.url, mkdtempSync(join(tmpdir(), "crew-pi-")));
	repo.writeFile(".crew/agents/worker.md", "---\nname: worker\nruntime: pi\nsandbox: off\n---\nYou work.\n");
	const steps = (fourth: string) =>
		STEPS.map((id, i) => ({
			id,
			text: id === "s4" ? fourth : `STEP-${id}: work on {goal}`,
			...(i > 0 ? { dependsOn: [STEPS[i - 1] as string] } : {}),
		}));
	repo.workflow("chain5", steps("STEP-s4: work on {goal}"));
	const env = { ...process.env, ...scripted.env };
	const first = await crew(
		repo.dir,
		["run", "the goal", "--workflow", "chain5", "--model", scripted.model, "--json"],
		180_000,
		env,
	);
	expect(first.code, first.stderr).toBe(0);
	const runId = (JSON.parse(first.stdout.trim().split("\n").at(-1) as string) as { runId: string }).runId;
	expect(server.requests.map(stepOf)).toEqual(STEPS);
	return { server, repo, env, runId, editFourth: (text: string) => repo.workflow("chain5", steps(text)) };
}

function forked(repo: TestRepo, args: readonly string[], env: NodeJS.ProcessEnv): Promise<string> {
	return completedRun(repo, ["fork", ...args], env);
}

function resultOf(repo: TestRepo, runId: string, task: string): string {
	return readFileSync(join(repo.dir, ".crew", "runs", runId, "tasks", task, "result.md"), "utf8");
}

test("a fork from the third task with another model runs only the third and what follows, on that model; the first two keep their outcomes and their usage shows as inherited", async () => {
	const { server, repo, env, runId } = await forkSetup();
	const before = server.requests.length;
	const forkId = await forked(repo, [runId, "--from", "s3", "--model", "scripted/scripted-2"], env);
	const fresh = server.requests.slice(before);
	expect(fresh.map(stepOf)).toEqual(["s3", "s4", "s5"]);
	expect(new Set(fresh.map((r) => r.model))).toEqual(new Set(["scripted-2"]));
	expect(server.requests.slice(0, before).every((r) => r.model === "scripted-1")).toBe(true);

	const { run, tasks } = read(repo.dir, (r) => r.view(forkId));
	expect(run.forkedFrom).toBe(runId);
	const status = JSON.parse((await crew(repo.dir, ["status", forkId, "--json"])).stdout) as {
		run: { forkedFrom: string };
		tasks: { id: string; inherited: { runId: string; usage: { inputTokens: number } } | null }[];
	};
	expect(status.run.forkedFrom).toBe(runId);
	expect(status.tasks.map((t) => t.inherited?.runId ?? null)).toEqual([runId, runId, null, null, null]);
	expect(status.tasks[0]?.inherited?.usage.inputTokens).toBeGreaterThan(0);
	expect(tasks.map((t) => [t.id, t.status, t.attempts, t.inherited?.runId ?? null])).toEqual([
		["s1", "completed", 0, runId],
		["s2", "completed", 0, runId],
		["s3", "completed", 1, null],
		["s4", "completed", 1, null],
		["s5", "completed", 1, null],
	]);
	// No agent ran for the inherited tasks: they have no attempt, and their results are the first run's.
	expect(read(repo.dir, (r) => r.attempts(forkId)).map((a) => a.taskId)).toEqual(["s3", "s4", "s5"]);
	expect(resultOf(repo, forkId, "s2")).toBe(resultOf(repo, runId, "s2"));
	expect(resultOf(repo, forkId, "s5")).toContain("answer of s5");
	// Usage: what the fork spent is its own; what it inherited is apart, and the same as the first run's.
	const original = read(repo.dir, (r) => r.view(runId)).tasks;
	for (const [i, t] of tasks.slice(0, 2).entries()) {
		expect(t.usage.input).toBe(0);
		expect(t.inherited?.usage).toEqual(original[i]?.usage);
		expect(t.inherited?.usage.input).toBeGreaterThan(0);
	}
	const spent = tasks.reduce((sum, t) => sum + t.usage.input, 0);
	expect(spent).toBe(tasks.slice(2).reduce((sum, t) => sum + t.usage.input, 0));
	expect(spent).toBeGreaterThan(0);
	interface ComparedJson {
		readonly b: { readonly inherited: { inputTokens: number; outputTokens: number } };
		readonly tasks: readonly (Pick<TaskComparison, "taskId" | "changed" | "result"> & {
			readonly a: { readonly usage: { outputTokens: number } };
			readonly b: { readonly usage: { outputTokens: number } };
		})[];
	}
	const compared = JSON.parse((await crew(repo.dir, ["diff", runId, forkId, "--json"])).stdout) as ComparedJson;
	expect(compared.tasks.map((t) => [t.taskId, t.changed])).toEqual([
		["s1", []],
		["s2", []],
		// The fork's model; and after s3, a prompt that carries s3's new result.
		["s3", ["model", "result", "tokens"]],
		["s4", ["model", "prompt", "result", "tokens"]],
		["s5", ["model", "prompt", "result", "tokens"]],
	]);
	expect(compared.tasks[2]?.result).toContain("+answer of s3, said at length by the second model");
	expect(compared.tasks[2]?.b.usage.outputTokens).toBeGreaterThan(compared.tasks[2]?.a.usage.outputTokens ?? 0);
	const inherited = addUsage(original[0]?.usage ?? ZERO_USAGE, original[1]?.usage ?? ZERO_USAGE);
	expect(compared.b.inherited).toMatchObject({ inputTokens: inherited.input, outputTokens: inherited.output });
	const text = (await crew(repo.dir, ["diff", runId, forkId])).stdout;
	expect(text).toContain(`  s1    same (b: inherited from ${runId})`);
	expect(text).toMatch(
		/ {2}s3 {4}model, result, tokens\n {4}a: completed, 1 attempt, worker on pi \(scripted\/scripted-1\), sandbox off, \d+ in, 3 out tokens/,
	);
	expect(text).toMatch(/\n {4}b: completed, 1 attempt, worker on pi \(scripted\/scripted-2\), sandbox off, /);
	expect(text).toContain("result of s3:");
	const shown = (await crew(repo.dir, ["status", forkId])).stdout;
	expect(shown).toMatch(/\n {2}usage: \d+ in, \d+ out tokens/);
	expect(shown).toMatch(/\n {2}inherited: \d+ in, \d+ out tokens, \$[\d.]+, spent by the run it was forked from/);
	expect(shown).toMatch(new RegExp(`s1 +worker +completed .*inherited from ${runId} {2}\\d+ in`));
}, 300_000);

test("a fork after the fourth step's text changed reuses the first three tasks and runs the last two; --dry says so first and makes nothing", async () => {
	const { server, repo, env, runId, editFourth } = await forkSetup();
	editFourth("STEP-s4: work on {goal}, and say more");
	const dry = await crew(repo.dir, ["fork", runId, "--dry"], 60_000, env);
	expect(dry.code, dry.stderr).toBe(0);
	expect(dry.stdout).toContain(`  reuse s3 (from ${runId})`);
	expect(dry.stdout).toContain(`  run   s4: its step changed since run ${runId}`);
	expect(dry.stdout).toContain("  run   s5: after s4, which runs again");
	expect(dry.stdout).toContain("estimate of what runs:");
	expect(read(repo.dir, (r) => r.repo.runs())).toHaveLength(1);

	const before = server.requests.length;
	const forkId = await forked(repo, [runId], env);
	expect(server.requests.slice(before).map(stepOf)).toEqual(["s4", "s5"]);
	const { tasks } = read(repo.dir, (r) => r.view(forkId));
	expect(tasks.map((t) => [t.id, t.inherited ? "inherited" : "ran"])).toEqual([
		["s1", "inherited"],
		["s2", "inherited"],
		["s3", "inherited"],
		["s4", "ran"],
		["s5", "ran"],
	]);
	// The tasks that ran keep the first run's model, since the fork gave none.
	expect(new Set(server.requests.slice(before).map((r) => r.model))).toEqual(new Set(["scripted-1"]));
	// s4's prompt has s3's result, taken from the first run.
	expect(
		server.requests
			.slice(before)[0]
			?.messages.map((m) => m.text)
			.join("\n"),
	).toContain("answer of s3");

	const bad = await crew(repo.dir, ["fork", runId, "--from", "nope"], 60_000, env);
	expect(bad.code).toBe(2);
	expect(bad.stderr).toContain("--from nope names no task or step of the fork's plan; its tasks: s1, s2, s3, s4, s5");
	const modelOnly = await crew(repo.dir, ["fork", runId, "--model", "scripted/scripted-2"], 60_000, env);
	expect(modelOnly.stderr).toContain("--model sets the model of the tasks that run again: name them with --from");
}, 300_000);

test("in worktree mode a fork's reused tasks keep their branches, which the tasks that run merge and the fork's integration holds", async () => {
	const repo = gitRepo();
	const agent = (name: string, command: string) => repo.commandAgent(name, command);
	agent("first", "echo one > one.txt");
	agent("second", "cat one.txt > two.txt; echo two >> two.txt");
	agent("third", "cat two.txt > three.txt; date +%N >> three.txt");
	repo.workflow("relay", [
		{ id: "a", role: "first" },
		{ id: "b", role: "second", dependsOn: ["a"] },
		{ id: "c", role: "third", dependsOn: ["b"] },
	]);
	const first = await crew(repo.dir, ["run", "g", "--workflow", "relay", "--workspace", "worktree", "--json"]);
	expect(first.code, first.stderr).toBe(0);
	const runId = (JSON.parse(first.stdout.trim().split("\n").at(-1) as string) as { runId: string }).runId;
	const forkId = await forked(repo, [runId, "--from", "c"], process.env);
	const show = (ref: string) => execFileSync("git", ["show", ref], { cwd: repo.dir, encoding: "utf8" });
	expect(show(`crew-tasks/${forkId}/b`)).toBe(show(`crew-tasks/${runId}/b`));
	expect(show(`crew/${forkId}:three.txt`)).toMatch(/^one\ntwo\n\d+\n$/);
	expect(show(`crew/${forkId}:three.txt`)).not.toBe(show(`crew/${runId}:three.txt`));
	expect(read(repo.dir, (r) => r.attempts(forkId)).map((a) => a.taskId)).toEqual(["c"]);
	// A task whose branch is gone since runs again, and so does what comes after it.
	const gitIn = (...args: string[]) => execFileSync("git", args, { cwd: repo.dir, encoding: "utf8" });
	gitIn("worktree", "remove", "--force", join(repo.dir, ".crew", "worktrees", runId, "a"));
	gitIn("branch", "-D", `crew-tasks/${runId}/a`);
	const dry = await crew(repo.dir, ["fork", runId, "--from", "c", "--dry"]);
	expect(dry.stdout).toContain(`  run   a: its branch crew-tasks/${runId}/a is gone`);
	expect(dry.stdout).toContain("  run   b: after a, which runs again");
}, 120_000);

test("a fork copies the shared files its reused tasks wrote; a fork that fails midway leaves no run, no branch and no folder", async () => {
	const repo = gitRepo();
	repo.commandAgent("jotter", "echo NOTES-CONTENT");
	repo.commandAgent("reader", 'cat "$CREW_PROMPT_FILE"');
	repo.workflow("notes", [
		{ id: "plan", role: "jotter", extra: { output: "notes.md" } },
		{ id: "use", role: "reader", dependsOn: ["plan"], extra: { reads: "notes.md" } },
	]);
	const runId = await completedRun(repo, ["run", "g", "--workflow", "notes"]);
	const forkId = await forked(repo, [runId, "--from", "use"], process.env);
	expect(resultOf(repo, forkId, "use")).toContain("NOTES-CONTENT");
	expect(readFileSync(join(repo.dir, ".crew", "runs", forkId, "shared", "notes.md"), "utf8")).toContain(
		"NOTES-CONTENT",
	);

	// In worktree mode the fork makes its reused tasks' branches first: one whose branch git cannot
	// start from (its ref names a blob) fails it after another's branch was made.
	repo.workflow("relay", [
		{ id: "a", role: "jotter" },
		{ id: "b", role: "jotter", dependsOn: ["a"] },
		{ id: "c", role: "jotter", dependsOn: ["b"] },
	]);
	const tree = await completedRun(repo, ["run", "g", "--workflow", "relay", "--workspace", "worktree"]);
	const gitIn = (...args: string[]) => execFileSync("git", args, { cwd: repo.dir, encoding: "utf8" });
	const blob = execFileSync("git", ["hash-object", "-w", "--stdin"], { cwd: repo.dir, input: "x", encoding: "utf8" });
	writeFileSync(join(repo.dir, ".git", "refs", "heads", "crew-tasks", tree, "b"), blob);
	const branches = () => gitIn("branch", "--list", "crew-tasks/*").split("\n").filter(Boolean);
	const before = branches();
	const failed = await crew(repo.dir, ["fork", tree, "--from", "c"]);
	expect(failed.code).not.toBe(0);
	expect(failed.stderr).toContain("not a valid branch point");
	expect(
		read(repo.dir, (r) => r.repo.runs())
			.map((r) => r.id)
			.sort(),
	).toEqual([runId, forkId, tree].sort());
	expect(branches()).toEqual(before);
	expect(readdirSync(join(repo.dir, ".crew", "runs")).sort()).toEqual([runId, forkId, tree].sort());
}, 120_000);
