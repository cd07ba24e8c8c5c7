// @module-tag agent-cli
// @slow: runs inside runs, each a crew CLI process with real pi agents on the scripted model
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "vitest";
import { scriptedCliSetup } from "../../src/scripted-model/cli-setup.js";
import type { Script } from "../../src/scripted-model/turns.js";
import { CLI, crew, lastJson, read, spenderProgram } from "../helpers.js";
import { serverStarter } from "../scripted-model/servers.js";
import {
	confinedCommand,
	nestingRepos,
	runIds,
	type Spent,
	type StatusJson,
	statusOf,
	tokens,
} from "./nesting-repo.js";

const startServer = serverStarter();
const keptRepo = nestingRepos();

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
