// @module-tag agent-cli
// @slow: runs inside runs, each a crew CLI process with real pi agents on the scripted model
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, test } from "vitest";
import { scriptedCliSetup } from "../../src/scripted-model/cli-setup.js";
import type { Script } from "../../src/scripted-model/turns.js";
import {
	CLI,
	cancelLiveRuns,
	crew,
	crewProcess,
	exitOf,
	isAlive,
	lastJson,
	read,
	spenderProgram,
	type TestRepo,
	waitFor,
} from "../helpers.js";
import { serverStarter } from "../scripted-model/servers.js";
import { confinedCommand, nestingRepo } from "./nesting-repo.js";

const startServer = serverStarter();
const repos: TestRepo[] = [];
afterEach(async () => {
	for (const repo of repos.splice(0)) await cancelLiveRuns(repo.dir);
});

interface Spent {
	inputTokens: number;
	outputTokens: number;
}
interface Child {
	runId: string;
	taskId: string;
	attempt: number;
	status: string;
	usage: Spent;
}
interface StatusJson {
	run: {
		id: string;
		status: string;
		error: string | null;
		parent?: { runId: string; taskId: string; attempt: number };
		children?: Child[];
		usage: Spent;
		usageOwn?: Spent;
		usageNested?: Spent;
	};
	tasks: { id: string; status: string; attempts: number; error: string | null }[];
}

/** A repository that allows delegation, its live runs cancelled after the test. */
function keptRepo(extraEnv: NodeJS.ProcessEnv = {}, nesting?: object): ReturnType<typeof nestingRepo> {
	const made = nestingRepo(extraEnv, nesting);
	repos.push(made.repo);
	return made;
}

function tokens(spent: Spent | undefined): number {
	return spent ? spent.inputTokens + spent.outputTokens : 0;
}

async function statusOf(repo: TestRepo, runId: string, env: NodeJS.ProcessEnv): Promise<StatusJson> {
	const shown = await crew(repo.dir, ["status", runId, "--json"], 60_000, env);
	expect(shown.code, shown.stderr).toBe(0);
	return JSON.parse(shown.stdout) as StatusJson;
}

async function runIds(repo: TestRepo, env: NodeJS.ProcessEnv): Promise<string[]> {
	const listed = await crew(repo.dir, ["runs", "--json"], 60_000, env);
	return (JSON.parse(listed.stdout) as { id: string }[]).map((r) => r.id);
}

/** The parent pi agent calls `agent` when offered it, and relays what came back; the child answers. */
const delegating: Script = (request) => {
	if (request.afterToolResult) {
		const result = request.messages.at(-1)?.text ?? "";
		return { kind: "text", text: `relayed: ${result.includes("<delegated-result") ? "fenced" : "bare"}` };
	}
	if (request.tools.includes("agent"))
		return { kind: "call", tool: "agent", args: { task: "count to three", agent: "helper" } };
	return { kind: "text", text: "one two three" };
};

/**
 * A repository whose pi agent `lead` delegates to the pi agent `helper`, both on a scripted model
 * playing `script`.
 */
async function piDelegation(script: Script = delegating) {
	const server = await startServer(script);
	const pi = scriptedCliSetup("pi", server.url, mkdtempSync(join(tmpdir(), "crew-pi-")));
	const { repo, env } = keptRepo(pi.env);
	for (const name of ["lead", "helper"]) {
		repo.writeFile(
			`.crew/agents/${name}.md`,
			`---\nname: ${name}\nruntime: pi\nmodel: ${pi.model}\n---\nYou are ${name}.\n`,
		);
	}
	return { server, repo, env };
}

test("a pi agent delegates through its agent tool at the default sandbox: the child is recorded under its task and its tokens are the parent's", async () => {
	const { server, repo, env } = await piDelegation();
	const done = await crew(repo.dir, ["agent", "hand the counting on", "--agent", "lead"], 180_000, env);
	expect(done.code, done.stderr).toBe(0);
	expect(done.stdout).toBe("relayed: fenced\n");

	const ids = await runIds(repo, env);
	expect(ids).toHaveLength(2);
	const statuses = await Promise.all(ids.map((id) => statusOf(repo, id, env)));
	const parent = statuses.find((s) => !s.run.parent) as StatusJson;
	const child = statuses.find((s) => s.run.parent) as StatusJson;
	expect(child.run.parent).toEqual({ runId: parent.run.id, taskId: "lead", attempt: 1 });
	expect(parent.run.children).toEqual([
		expect.objectContaining({ runId: child.run.id, taskId: "lead", attempt: 1, status: "completed" }),
	]);
	// The child's model turn is the parent's spend: own and nested apart, summed in the total.
	const childTokens = tokens(child.run.usage);
	expect(childTokens).toBeGreaterThan(0);
	expect(tokens(parent.run.usageNested)).toBe(childTokens);
	expect(tokens(parent.run.usageOwn)).toBeGreaterThan(0);
	expect(tokens(parent.run.usage)).toBe(tokens(parent.run.usageOwn) + childTokens);
	// The child answered its task; the parent's agent saw that answer fenced as its tool's result.
	const toolResult = server.requests.find((r) => r.afterToolResult)?.messages.at(-1)?.text ?? "";
	expect(toolResult).toContain(`<delegated-result run="${child.run.id}" status="completed">`);
	expect(toolResult).toContain("one two three");
	// The child's pi was offered no `agent`: its depth is the user's limit.
	expect(server.requests.filter((r) => r.tools.includes("agent"))).toHaveLength(2);
	const text = await crew(repo.dir, ["status", parent.run.id], 60_000, env);
	expect(text.stdout).toContain(`↳ delegated run ${child.run.id}`);
});

test("a pi agent's team tool hands a goal to a workflow, whose run is the task's child; an agent whose tools are listed gets only those it names", async () => {
	const teamwork: Script = (request) => {
		if (request.afterToolResult) return { kind: "text", text: "the team answered" };
		if (request.tools.includes("team"))
			return { kind: "call", tool: "team", args: { goal: "count", workflow: "solo" } };
		return { kind: "text", text: "one two three" };
	};
	const { server, repo, env } = await piDelegation(teamwork);
	repo.workflow("solo", [{ id: "count", role: "helper" }]);
	const done = await crew(repo.dir, ["agent", "ask the team", "--agent", "lead"], 180_000, env);
	expect(done.code, done.stderr).toBe(0);
	expect(done.stdout).toBe("the team answered\n");
	const child = read(repo.dir, (r) => r.repo.runs().find((run) => run.goal === "count")) as {
		id: string;
		workflow: string;
	};
	expect(child.workflow).toBe("solo");
	const toolResult = server.requests.find((r) => r.afterToolResult)?.messages.at(-1)?.text ?? "";
	expect(toolResult).toContain(`<delegated-result run="${child.id}" status="completed">`);
	expect(server.requests[0]?.tools).toEqual(expect.arrayContaining(["agent", "team"]));

	// A lead whose tools are listed is offered `team` only when it names it.
	repo.writeFile(
		".crew/agents/lead.md",
		`---\nname: lead\nruntime: pi\nmodel: ${server.requests[0]?.model}\ntools: read, team\n---\n`,
	);
	const before = server.requests.length;
	const listed = await crew(repo.dir, ["agent", "ask the team again", "--agent", "lead"], 180_000, env);
	expect(listed.code, listed.stderr).toBe(0);
	const offered = server.requests[before]?.tools ?? [];
	expect(offered).toContain("team");
	expect(offered).not.toContain("agent");
});

test("a pi agent's delegation spends from its parent's budget: a child spending more than is left stops both, and the budget is named", async () => {
	// The child is a Claude Code stand-in that reports 100,000 tokens, then works on: only a budget ends it.
	const { repo, env } = await piDelegation();
	env.CREW_CLAUDE = spenderProgram("claude", 100_000, 1);
	repo.writeFile(".crew/agents/helper.md", "---\nname: helper\nruntime: claude\n---\n");
	const spent = await crew(
		repo.dir,
		["agent", "hand it on", "--agent", "lead", "--budget-tokens", "50000"],
		180_000,
		env,
	);
	expect(spent.code, spent.stderr).toBe(4);
	const ids = await runIds(repo, env);
	const statuses = await Promise.all(ids.map((id) => statusOf(repo, id, env)));
	const parent = statuses.find((s) => !s.run.parent) as StatusJson;
	const child = statuses.find((s) => s.run.parent) as StatusJson;
	expect(parent.run.status).toBe("failed");
	expect(`${parent.run.error} ${parent.tasks[0]?.error}`).toMatch(/50000 tokens/);
	// Claude counts some of the tokens as cache reads: those that count, counted in the parent's.
	expect(tokens(child.run.usage)).toBeGreaterThan(50_000);
	expect(tokens(parent.run.usageNested)).toBe(tokens(child.run.usage));
	expect(tokens(parent.run.usage)).toBe(tokens(parent.run.usageOwn) + tokens(child.run.usage));
	expect(["failed", "cancelled"]).toContain(child.run.status);
});

test("a confined command agent's crew agent spends from its parent's budget: the parent's budget stops both, and is named", async () => {
	// The child's pi reports 600 tokens, then works on: only a budget ends it.
	const { repo, env } = keptRepo({ CREW_PI: spenderProgram("pi", 600, 1) });
	repo.writeFile(".crew/agents/spender.md", "---\nname: spender\nruntime: pi\n---\n");
	confinedCommand(repo, "boss", `node ${CLI} agent spend --agent spender`);
	const spent = await crew(repo.dir, ["agent", "delegate", "--agent", "boss", "--budget-tokens", "500"], 120_000, env);
	expect(spent.code, spent.stderr).toBe(4);
	expect(spent.stderr).toMatch(/budget/);

	const ids = await runIds(repo, env);
	expect(ids).toHaveLength(2);
	const statuses = await Promise.all(ids.map((id) => statusOf(repo, id, env)));
	const parent = statuses.find((s) => !s.run.parent) as StatusJson;
	const child = statuses.find((s) => s.run.parent) as StatusJson;
	expect(parent.run.status).toBe("failed");
	expect(`${parent.run.error} ${parent.tasks[0]?.error}`).toMatch(/500 tokens/);
	expect(tokens(parent.run.usageNested)).toBe(600);
	expect(tokens(parent.run.usage)).toBe(600);
	expect(["failed", "cancelled"]).toContain(child.run.status);
	expect(parent.run.children).toEqual([expect.objectContaining({ runId: child.run.id, taskId: "boss" })]);
});

test("cancelling the parent stops its running child, whose worker is gone", async () => {
	const { repo, env } = keptRepo();
	repo.agent("sleeper", "--sleep 600000");
	confinedCommand(repo, "boss", `node ${CLI} agent nap --agent sleeper`);
	const runner = crewProcess(repo.dir, ["agent", "delegate", "--agent", "boss"], env);
	await waitFor("the child's agent started", () => repo.starts("sleeper")[0]);
	const parentId = read(repo.dir, (r) => r.repo.runs().find((run) => run.goal === "delegate")?.id) as string;
	const childId = (await statusOf(repo, parentId, env)).run.children?.[0]?.runId as string;
	expect(childId).toBeDefined();
	// The pid the child's sandbox was started as: its agent's own is another pid namespace's.
	const worker = read(repo.dir, (r) => r.attempts(childId)[0]?.process?.pid) as number;
	expect(isAlive(worker)).toBe(true);
	// Its agent asks for no sandbox, but a child is never confined less than the attempt that asked for it.
	expect(read(repo.dir, (r) => r.attempts(childId)[0]?.sandbox?.level)).toBe("workspace");
	const cancelled = await crew(repo.dir, ["cancel", parentId], 60_000, env);
	expect(cancelled.code, cancelled.stderr).toBe(0);
	await exitOf(runner);
	const parent = await statusOf(repo, parentId, env);
	expect(parent.run.status, JSON.stringify(parent)).toBe("cancelled");
	expect((await statusOf(repo, childId, env)).run.status).toBe("cancelled");
	await waitFor("the child's worker gone", () => !isAlive(worker), 10_000);
});

test("a parent runner killed with SIGKILL after its child completed, resumed, does not run the child again", async () => {
	const { repo, env } = keptRepo();
	repo.agent("quick", "--answer");
	// The first attempt delegates, then waits to be killed; the one after delegates the same and ends.
	confinedCommand(
		repo,
		"boss",
		`sh -c 'node ${CLI} agent tally --agent quick; test -e again || { touch again; sleep 600; }'`,
	);
	const runner = crewProcess(repo.dir, ["run", "g", "--workflow", "agent:boss"], env);
	await waitFor(
		"the child completed and the parent waiting",
		() => repo.exists("again") && repo.ends("quick").length === 1,
	);
	runner.kill("SIGKILL");
	await exitOf(runner);
	const parentId = read(repo.dir, (r) => r.repo.runs().find((run) => run.goal === "g")?.id) as string;
	const resumed = await crew(repo.dir, ["resume", parentId], 120_000, env);
	expect(resumed.code, resumed.stderr).toBe(0);
	const parent = await statusOf(repo, parentId, env);
	expect(parent.run.status).toBe("completed");
	expect(parent.tasks[0]?.attempts).toBe(2);
	expect(repo.starts("quick")).toHaveLength(1);
	expect(await runIds(repo, env)).toHaveLength(2);
	expect(parent.run.children).toEqual([expect.objectContaining({ status: "completed", attempt: 1 })]);
	const result = await crew(repo.dir, ["result", parentId], 60_000, env);
	expect(result.stdout).toContain("answer: tally");
	// crew watch tells of the child under its task.
	const childId = parent.run.children?.[0]?.runId as string;
	const watched = await crew(repo.dir, ["watch", parentId], 60_000, env);
	expect(watched.stdout).toMatch(new RegExp(`boss ↳ delegated run ${childId}  completed  agent:quick  attempt 1\n`));
});

/** Starts `args` as a runner, and kills it with SIGKILL once the child's first attempt runs. */
async function killWhileChildRuns(repo: TestRepo, env: NodeJS.ProcessEnv, args: readonly string[]) {
	const runner = crewProcess(repo.dir, args, env);
	await waitFor("the child's agent started", () => repo.exists("child-started"));
	runner.kill("SIGKILL");
	await exitOf(runner);
	const runs = read(repo.dir, (r) => r.repo.runs());
	const parentId = runs.find((run) => run.goal === "g")?.id as string;
	const childId = runs.find((run) => run.goal === "nested")?.id as string;
	return { parentId, childId, worker: read(repo.dir, (r) => r.attempts(childId)[0]?.process?.pid) as number };
}

/** A parent that delegates `nested` to a child which, on its first attempt, works until stopped. */
function stallingChild(repo: TestRepo): void {
	confinedCommand(
		repo,
		"child",
		`sh -c 'test -e child-started || { touch child-started; sleep 600; }; echo child done'`,
	);
	confinedCommand(repo, "boss", `node ${CLI} agent nested --agent child`);
}

test("a parent whose runner was killed while its child ran: reconcile names the child's parent, and cancelling the parent cancels the child", async () => {
	const { repo, env } = keptRepo();
	stallingChild(repo);
	const { parentId, childId, worker } = await killWhileChildRuns(repo, env, ["run", "g", "--workflow", "agent:boss"]);
	const report = await crew(repo.dir, ["reconcile"], 60_000, env);
	expect(report.stdout).toContain(`orphaned run ${childId}: recorded running, its runner (pid`);
	expect(report.stdout).toContain(
		`(delegated by run ${parentId}, task boss: crew resume ${parentId} goes on with it, crew cancel ${parentId} ends it)`,
	);
	const cancelled = await crew(repo.dir, ["cancel", parentId], 60_000, env);
	expect(cancelled.code, cancelled.stderr).toBe(0);
	const child = await statusOf(repo, childId, env);
	expect(child.run.status).toBe("cancelled");
	expect(child.run.error).toContain(`its parent run ${parentId} was cancelled`);
	expect((await statusOf(repo, parentId, env)).run.status).toBe("cancelled");
	await waitFor("the child's worker gone", () => !isAlive(worker), 10_000);
});

test("a parent whose runner was killed while its child ran, resumed, resumes that child rather than starting another", async () => {
	const { repo, env } = keptRepo();
	stallingChild(repo);
	const { parentId, childId } = await killWhileChildRuns(repo, env, ["run", "g", "--workflow", "agent:boss"]);
	const resumed = await crew(repo.dir, ["resume", parentId], 120_000, env);
	expect(resumed.code, resumed.stderr).toBe(0);
	const parent = await statusOf(repo, parentId, env);
	expect(parent.run.status).toBe("completed");
	expect(parent.run.children).toEqual([expect.objectContaining({ runId: childId, status: "completed", attempt: 1 })]);
	expect(await runIds(repo, env)).toHaveLength(2);
	const child = await statusOf(repo, childId, env);
	expect(child.tasks[0]?.attempts).toBe(2);
	const result = await crew(repo.dir, ["result", parentId], 60_000, env);
	expect(result.stdout).toContain("child done");
});

test("fork and replay of a parent take its delegated run as history: nothing is delegated again, and what it spent stays counted", async () => {
	const { server, repo, env } = await piDelegation();
	repo.commandAgent("tail", "echo tail");
	repo.workflow("relay", [
		{ id: "lead", role: "lead" },
		{ id: "tail", role: "tail", dependsOn: ["lead"] },
	]);
	const done = await crew(repo.dir, ["run", "g", "--workflow", "relay", "--json"], 180_000, env);
	expect(done.code, done.stderr).toBe(0);
	const parent = await statusOf(repo, lastJson(done.stdout).runId, env);
	const spentByLead = tokens(parent.run.usage);
	expect(tokens(parent.run.usageNested)).toBeGreaterThan(0);
	const requests = server.requests.length;

	const forked = await crew(repo.dir, ["fork", parent.run.id, "--from", "tail", "--json"], 120_000, env);
	expect(forked.code, forked.stderr).toBe(0);
	const fork = await statusOf(repo, lastJson(forked.stdout).runId, env);
	expect(fork.run.status).toBe("completed");
	// The lead task is inherited with what it and its delegated run spent.
	const lead = fork.tasks.find((t) => t.id === "lead") as StatusJson["tasks"][number] & {
		inherited: { runId: string; usage: Spent } | null;
	};
	expect(lead.inherited?.runId).toBe(parent.run.id);
	expect(tokens(lead.inherited?.usage)).toBe(spentByLead);

	const replayed = await crew(repo.dir, ["replay", parent.run.id, "--json"], 120_000, env);
	expect(replayed.code, replayed.stderr).toBe(0);
	const replay = await statusOf(repo, lastJson(replayed.stdout).runId, env);
	expect(replay.run.status).toBe("completed");
	expect(replay.run.children ?? []).toEqual([]);
	// Neither started an agent, nor a run below it: the parent's child is the one run delegated.
	expect(server.requests.length).toBe(requests);
	expect(await runIds(repo, env)).toHaveLength(4);
	const result = await crew(repo.dir, ["result", replay.run.id, "lead"], 60_000, env);
	expect(result.stdout).toContain("relayed: fenced");
});

test("delegated runs running at once are capped per parent run: one more is refused at once, naming the setting", async () => {
	const { repo, env } = keptRepo({}, { maxDepth: 2, maxRunning: 1 });
	// The first child runs until the parent lets it go, after its second delegation was answered.
	confinedCommand(repo, "napper", `sh -c 'touch napping; until [ -e release ]; do sleep 0.1; done; echo napped'`);
	confinedCommand(repo, "quick", "echo quick");
	confinedCommand(
		repo,
		"boss",
		`sh -c 'node ${CLI} agent nap --agent napper >/dev/null & until [ -e napping ]; do sleep 0.1; done; node ${CLI} agent more --agent quick 2>&1; echo second=$?; touch release; wait'`,
	);
	const done = await crew(repo.dir, ["agent", "two at once", "--agent", "boss"], 120_000, env);
	expect(done.code, done.stderr).toBe(0);
	expect(done.stdout).toMatch(
		/has 1 delegated runs running, its most at once \(nesting\.maxRunning in your user config\.json/,
	);
	expect(done.stdout).toContain("second=1");
	expect(await runIds(repo, env)).toHaveLength(2);
});

/** Three runs deep: `boss` delegates to `middle`, which delegates to `scribbler`, which writes a file. */
async function threeDeep(nesting: object): Promise<{ repo: TestRepo; env: NodeJS.ProcessEnv; stdout: string }> {
	const { repo, env } = keptRepo({}, nesting);
	confinedCommand(repo, "scribbler", `sh -c 'touch deep-file && echo wrote || echo refused'`);
	confinedCommand(repo, "middle", `node ${CLI} agent write --agent scribbler`);
	confinedCommand(repo, "boss", `node ${CLI} agent pass --agent middle`);
	const done = await crew(repo.dir, ["agent", "go deep", "--agent", "boss"], 120_000, env);
	expect(done.code, done.stderr).toBe(0);
	return { repo, env, stdout: done.stdout };
}

test("a run nested deeper than 1 is read-only unless the user's config says otherwise", async () => {
	const { repo, stdout } = await threeDeep({ maxDepth: 3 });
	expect(stdout).toContain("refused");
	expect(repo.exists("deep-file")).toBe(false);
	const deepest = read(repo.dir, (r) => r.repo.runs().find((run) => run.goal === "write")?.id) as string;
	expect(read(repo.dir, (r) => r.attempts(deepest)[0]?.sandbox)).toMatchObject({ level: "workspace", readOnly: true });
	// The first level below the user's run writes as its parent does.
	const middle = read(repo.dir, (r) => r.repo.runs().find((run) => run.goal === "pass")?.id) as string;
	expect(read(repo.dir, (r) => r.attempts(middle)[0]?.sandbox)).toMatchObject({ readOnly: false });

	const allowed = await threeDeep({ maxDepth: 3, deepWrites: true });
	expect(allowed.stdout).toContain("wrote");
	expect(allowed.repo.exists("deep-file")).toBe(true);
});
