// @module-tag agent-cli
// @slow: each goal runs pass after pass with a pi judge on the scripted model, a kill -9 and resume among them
import { execFileSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, test } from "vitest";
import { scriptedCliSetup } from "../../../src/scripted-model/cli-setup.js";
import { ScriptedModelServer } from "../../../src/scripted-model/scripted-model-server.js";
import type { ModelRequest, Script, Turn } from "../../../src/scripted-model/turns.js";
import { completedRun, crew, crewProcess, exitOf, gitRepo, type TestRepo, waitFor } from "../../helpers.js";

const servers: ScriptedModelServer[] = [];
afterEach(async () => {
	for (const server of servers.splice(0)) await server.close();
});

const JUDGE = "Judge whether this goal is achieved";

function textOf(request: ModelRequest): string {
	return request.messages.map((m) => m.text).join("\n");
}

/** A pi worker (`worker` its model) and crew's builtin judge on the scripted model; `verdicts` answers the judge's requests in turn. */
async function goalSetup(verdicts: readonly Turn[], worker: Script = () => ({ kind: "text", text: "worked on it" })) {
	let judged = 0;
	const server = await ScriptedModelServer.start((request) => {
		if (!textOf(request).includes(JUDGE)) return worker(request);
		return verdicts[judged++] ?? { kind: "text", text: '{"verdict": "ACHIEVED", "reason": "done"}' };
	});
	servers.push(server);
	const repo = gitRepo();
	const scripted = scriptedCliSetup("pi", server.url, mkdtempSync(join(tmpdir(), "crew-pi-")));
	repo.writeFile(".crew/agents/builder.md", "---\nname: builder\nruntime: pi\nsandbox: off\n---\nYou build.\n");
	repo.workflow("build", [{ id: "make", role: "builder", text: "Make it so: {goal}" }]);
	const env = { ...process.env, ...scripted.env };
	const args = ["run", "the README explains usage", "--workflow", "build", "--until-judged", "--model", scripted.model];
	const judges = () => server.requests.filter((r) => textOf(r).includes(JUDGE));
	const workers = () => server.requests.filter((r) => !textOf(r).includes(JUDGE));
	return { server, repo, env, args, judges, workers };
}

interface StatusJson {
	run: { id: string; status: string; error: string | null };
	tasks: { id: string; status: string; attempts: number; error: string | null }[];
}

async function statusOf(repo: TestRepo, runId: string): Promise<StatusJson> {
	return JSON.parse((await crew(repo.dir, ["status", runId, "--json"])).stdout) as StatusJson;
}

const json = (value: unknown) =>
	({ kind: "text", text: `Looked.\n\n\`\`\`json\n${JSON.stringify(value)}\n\`\`\`` }) as const;

test("--until-judged: the judge says NOT_ACHIEVED with a reason, the next pass is given it, ACHIEVED then completes the run; each verdict is an event", async () => {
	const { repo, env, args, judges, workers } = await goalSetup([
		json({ verdict: "NOT_ACHIEVED", reason: "REASON-ONE: the README has no usage section" }),
		json({ achieved: true, reason: "the usage section is there", evidenceRefs: ["README.md"] }),
	]);
	const runId = await completedRun(repo, args, env);
	const shown = await statusOf(repo, runId);
	expect(shown.tasks.map((t) => [t.id, t.status, t.attempts])).toEqual([
		["make", "completed", 1],
		["until.1", "superseded", 1],
		["make.2", "completed", 1],
		["until.2", "completed", 1],
	]);
	expect(shown.tasks[1]?.error).toBe(
		"the goal is not met yet: the judge says: REASON-ONE: the README has no usage section",
	);

	expect(workers()).toHaveLength(2);
	expect(textOf(workers()[0] as ModelRequest)).not.toContain("REASON-ONE");
	expect(textOf(workers()[1] as ModelRequest)).toContain("REASON-ONE: the README has no usage section");
	const [first] = judges();
	const asked = textOf(first as ModelRequest);
	expect(asked).toContain("<goal>\nthe README explains usage\n</goal>");
	expect(asked).toContain("worked on it");
	expect(asked).toContain("## The change in the repository so far");

	const first_ = await crew(repo.dir, ["logs", runId, "until.1"]);
	expect(first_.stdout).toContain(
		"goal: the judge: NOT_ACHIEVED after pass 1 of 3: REASON-ONE: the README has no usage section",
	);
	const second = await crew(repo.dir, ["logs", runId, "until.2"]);
	expect(second.stdout).toContain("goal: the judge: ACHIEVED after pass 2 of 3: the usage section is there");
	const events = await crew(repo.dir, ["events", runId, "--json"]);
	const verdicts = events.stdout
		.trim()
		.split("\n")
		.map((line) => JSON.parse(line) as { type: string; taskId: string; data: Record<string, unknown> })
		.filter((e) => e.type === "goal.verdict");
	expect(verdicts.map((e) => [e.taskId, e.data.verdict, e.data.evidence])).toEqual([
		["until.1", "not-achieved", []],
		["until.2", "achieved", ["README.md"]],
	]);
}, 240_000);

test("--until-judged: a BLOCKED verdict stops the run with its reason, which the inbox shows", async () => {
	const { repo, env, args, workers } = await goalSetup([
		json({ achieved: false, reason: "BLOCKED: the deploy key must come from a person" }),
	]);
	const run = await crew(repo.dir, args, 180_000, env);
	expect(run.code).toBe(1);
	expect(run.stdout).toContain("the goal is blocked: the deploy key must come from a person");
	expect(workers()).toHaveLength(1);
	const inbox = JSON.parse((await crew(repo.dir, ["inbox", "--json"])).stdout) as {
		items: { kind: string; what: string }[];
	};
	expect(inbox.items).toEqual([
		expect.objectContaining({
			kind: "failed",
			what: "until.1 failed: the goal is blocked: the deploy key must come from a person",
		}),
	]);
}, 240_000);

test("--until-judged: after a kill -9 while the judge works, resume judges again without redoing the finished pass", async () => {
	const { server, repo, env, args, judges, workers } = await goalSetup([
		{ kind: "hang" },
		json({ verdict: "ACHIEVED", reason: "it is there" }),
	]);
	const runner = crewProcess(repo.dir, args, env);
	await waitFor("the judge's request", () => judges().length === 1, 120_000);
	runner.kill("SIGKILL");
	await exitOf(runner);
	const runs = JSON.parse((await crew(repo.dir, ["runs", "--json"])).stdout) as { id: string }[];
	const runId = runs[0]?.id as string;

	const resumed = await crew(repo.dir, ["resume", runId, "--json"], 180_000, env);
	expect(resumed.code, resumed.stderr).toBe(0);
	const shown = await statusOf(repo, runId);
	expect(shown.run.status).toBe("completed");
	expect(shown.tasks.map((t) => [t.id, t.status, t.attempts])).toEqual([
		["make", "completed", 1],
		["until.1", "completed", 2],
	]);
	expect(workers()).toHaveLength(1);
	expect(judges()).toHaveLength(2);
	expect(server.requests).toHaveLength(3);
}, 240_000);

test("--until-judged refuses a judge answer that is no verdict, asks once more, and a --judge that does not exist", async () => {
	const { repo, env, args, judges } = await goalSetup([
		{ kind: "text", text: "I think it is fine." },
		json({ verdict: "ACHIEVED", reason: "" }),
	]);
	await completedRun(repo, args, env);
	expect(judges()).toHaveLength(2);
	expect(textOf(judges()[1] as ModelRequest)).toContain("the answer holds no JSON value");

	const missing = await crew(repo.dir, [...args, "--judge", "nobody"], 60_000, env);
	expect(missing.code).toBe(2);
	expect(missing.stderr).toContain("nobody");
	const stray = await crew(repo.dir, ["run", "g", "--workflow", "build", "--judge", "goal-judge"], 60_000, env);
	expect(stray.code).toBe(2);
	expect(stray.stderr).toContain("--judge goal-judge names the agent of --until-judged, which was not given");
}, 240_000);

test("--until with --until-judged: the command must pass before the judge is asked, and the judge sees its output", async () => {
	let worked = 0;
	const { server, repo, env, args } = await goalSetup([json({ verdict: "ACHIEVED", reason: "DONE is there" })], (r) => {
		if (r.afterToolResult) return { kind: "text", text: "wrote it" };
		worked++;
		return worked === 1 ? { kind: "text", text: "not yet" } : { kind: "write", path: "DONE", content: "CHECKED-OK\n" };
	});
	await completedRun(repo, [...args, "--until", "cat DONE"], env);
	const judges = server.requests.filter((r) => textOf(r).includes(JUDGE));
	expect(judges).toHaveLength(1);
	const asked = textOf(judges[0] as ModelRequest);
	expect(asked).toContain("The check `cat DONE` passed; its output");
	expect(asked).toContain("CHECKED-OK");
	const worker2 = server.requests.filter((r) => textOf(r).includes("Make it so") && !r.afterToolResult)[1];
	expect(textOf(worker2 as ModelRequest)).toContain("No such file or directory");
}, 240_000);

test("--until-judged: a judge whose own attempt fails is retried as any attempt, not read as a verdict", async () => {
	const { repo, env, args, judges, workers } = await goalSetup([
		{ kind: "error", status: 503, message: "the model is overloaded" },
		json({ verdict: "ACHIEVED", reason: "it is there" }),
	]);
	const runId = await completedRun(repo, args, env);
	const shown = await statusOf(repo, runId);
	expect(shown.tasks.map((t) => [t.id, t.status, t.attempts])).toEqual([
		["make", "completed", 1],
		["until.1", "completed", 2],
	]);
	expect(workers()).toHaveLength(1);
	expect(judges()).toHaveLength(2);
}, 240_000);

test("in worktree mode a goal's check looks at the pass's work, merged in a worktree of its own, and what it leaves is not the run's", async () => {
	const repo = gitRepo();
	repo.writeFile(
		".crew/agents/maker.md",
		"---\nname: maker\nruntime: command\ncommand: echo made > DONE\nsandbox: off\n---\n",
	);
	repo.workflow("make", [{ id: "make", role: "maker" }]);
	const until = "test -f DONE && echo checked > CHECKED";
	const runId = await completedRun(repo, [
		"run",
		"make DONE",
		"--workflow",
		"make",
		"--workspace",
		"worktree",
		"--until",
		until,
	]);
	const shown = await statusOf(repo, runId);
	expect(shown.tasks.map((t) => [t.id, t.status])).toEqual([
		["make", "completed"],
		["until.1", "completed"],
	]);
	const files = execFileSync("git", ["ls-tree", "--name-only", `crew/${runId}`], { cwd: repo.dir, encoding: "utf8" });
	expect(files.split("\n")).toContain("DONE");
	expect(files.split("\n")).not.toContain("CHECKED");

	// A read-only judge's check may still leave what it builds.
	repo.writeFile(
		".crew/agents/strict.md",
		`---\nname: strict\nruntime: command\ncommand: echo '{"verdict": "ACHIEVED", "reason": "DONE is there"}'\npermissions: read-only\nsandbox: off\n---\n`,
	);
	const judged = ["run", "make DONE", "--workflow", "make", "--workspace", "worktree", "--until", until];
	const judgedId = await completedRun(repo, [...judged, "--until-judged", "--judge", "strict"]);
	expect((await statusOf(repo, judgedId)).tasks.map((t) => [t.id, t.status])).toEqual([
		["make", "completed"],
		["until.1", "completed"],
	]);
}, 120_000);

test("--until-judged in a dry run plans the judge but asks it nothing: the run completes", async () => {
	const repo = gitRepo();
	repo.agent("worker");
	repo.workflow("one", [{ id: "a" }]);
	const runId = await completedRun(repo, ["run", "g", "--workflow", "one", "--runtime", "dry-run", "--until-judged"]);
	expect((await statusOf(repo, runId)).tasks.map((t) => [t.id, t.status])).toEqual([
		["a", "completed"],
		["until.1", "completed"],
	]);
});
