// @module-tag agent-cli
// @slow: pi sessions with crew's extension loaded start teams through its tools
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, test } from "vitest";
import { projectAt } from "../../../src/config/project.js";
import { RunReader } from "../../../src/engine/views/reader.js";
import { scriptedCliSetup } from "../../../src/scripted-model/cli-setup.js";
import type { Script } from "../../../src/scripted-model/turns.js";
import { crew, gitRepo, PI_1, ROOT, TestRepo, waitFor } from "../../helpers.js";
import { serverStarter } from "../../scripted-model/servers.js";
import { PiRpc } from "./pi-rpc.js";

const startServer = serverStarter();
const sessions: PiRpc[] = [];
afterEach(() => {
	for (const pi of sessions.splice(0)) pi.kill();
});

function open(args: readonly string[], cwd: string, env: NodeJS.ProcessEnv): PiRpc {
	const pi = new PiRpc(PI_1, args, cwd, env);
	sessions.push(pi);
	return pi;
}

/** The custom messages of type `type` in the pi session files under `dir`. */
function sessionMessages(dir: string, type: string): { content: string; details?: { runId?: string } }[] {
	const files = readdirSync(dir, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".jsonl"));
	return files
		.flatMap((f) => readFileSync(join(dir, f), "utf8").split("\n").filter(Boolean))
		.map((line) => JSON.parse(line))
		.filter((entry) => entry.type === "custom_message" && entry.customType === type);
}

/**
 * The parent pi starts one run and says it waits; when crew's report of that run is in its
 * context, it says it heard of the end.
 */
const script: Script = (request) => {
	if (!request.tools.includes("team")) return { kind: "text", text: "done" };
	const seen = request.messages.map((m) => m.text).join("\n");
	if (/crew run \S+ ended completed/.test(seen)) return { kind: "text", text: "Heard: the run ended." };
	if (seen.includes("Started crew run")) return { kind: "text", text: "The run is going; its report will come here." };
	return { kind: "call", tool: "team", args: { action: "run", goal: "build it", workflow: "slow" } };
};

test("pi 1.x: a session closed while its run goes on is told of the run's end when reopened, once; /crew lists the session's runs", async () => {
	const server = await startServer(script);
	const scripted = scriptedCliSetup("pi", server.url, mkdtempSync(join(tmpdir(), "crew-pi-session-")));
	const repo = new TestRepo().agent("worker", "--sleep 3000");
	repo.workflow("slow", [{ id: "build" }]);
	const sessionDir = mkdtempSync(join(tmpdir(), "crew-pi-sessions-"));
	const env = { PATH: process.env.PATH, XDG_CONFIG_HOME: process.env.XDG_CONFIG_HOME, ...scripted.env };
	PiRpc.install(PI_1, ROOT, env);
	const args = ["--session-dir", sessionDir, "--model", scripted.model];

	const first = open(args, repo.dir, env);
	first.send({ type: "prompt", message: "Build it with a team." });
	const started = await waitFor("the tool's answer", () =>
		server.requests.flatMap((r) => r.messages).find((m) => m.text.includes("Started crew run")),
	);
	const runId = /Started crew run (\S+)/.exec(started.text)?.[1] as string;
	await first.close();

	// The run goes on without the session, and ends.
	const reader = new RunReader(projectAt(repo.dir));
	await waitFor("the run's end", () => reader.run(runId).status === "completed", 30_000);
	reader.close();
	expect(sessionMessages(sessionDir, "crew-run")).toEqual([]);

	const second = open([...args, "--continue"], repo.dir, env);
	await second.record("the answer to the report", (r) => JSON.stringify(r).includes("Heard: the run ended."));
	await second.close();
	const reports = sessionMessages(sessionDir, "crew-run");
	expect(reports).toHaveLength(1);
	expect(reports[0]?.details?.runId).toBe(runId);
	expect(reports[0]?.content).toContain(`crew run ${runId} ended completed`);

	const third = open([...args, "--continue"], repo.dir, env);
	third.send({ type: "prompt", message: "/crew runs" });
	const listed = await third.record(
		"/crew's answer",
		(r) => r.type === "extension_ui_request" && r.method === "notify",
	);
	expect(String(listed.message)).toContain(`${runId} completed`);
	await third.close();
	// Reported once: reopening again told nothing new.
	expect(sessionMessages(sessionDir, "crew-run")).toHaveLength(1);
});

test("pi 1.x: with delegation set to suggest in the user's config, the session's system prompt says when crew pays off", async () => {
	const server = await startServer(() => ({ kind: "text", text: "ok" }));
	const scripted = scriptedCliSetup("pi", server.url, mkdtempSync(join(tmpdir(), "crew-pi-policy-")));
	const repo = new TestRepo();
	const config = mkdtempSync(join(tmpdir(), "crew-pi-policy-config-"));
	const env = { PATH: process.env.PATH, XDG_CONFIG_HOME: config, ...scripted.env };
	PiRpc.install(PI_1, ROOT, env);

	const plain = open(["--no-session", "--model", scripted.model], repo.dir, env);
	plain.send({ type: "prompt", message: "hello" });
	await plain.record("pi's answer", (r) => r.type === "agent_end");
	await plain.close();

	mkdirSync(join(config, "crew"), { recursive: true });
	writeFileSync(join(config, "crew", "config.json"), JSON.stringify({ delegation: "suggest" }));
	const told = open(["--no-session", "--model", scripted.model], repo.dir, env);
	told.send({ type: "prompt", message: "hello" });
	await told.record("pi's answer", (r) => r.type === "agent_end");
	await told.close();

	const [before, after] = server.requests.map((r) => r.messages.find((m) => m.role === "system")?.text ?? "");
	expect(before).not.toContain("Delegating to crew");
	expect(after).toContain("## Delegating to crew");
	expect(after).toContain("ask before starting a run");
});

/**
 * The parent pi asks for two runs, one after the other: the first names no model, the second
 * names one. Workers are pi agents without a model of their own, and say which step they did.
 */
const twoRuns: Script = (request) => {
	if (!request.tools.includes("team")) {
		const prompt = request.messages.filter((m) => m.role === "user").pop()?.text ?? "";
		return { kind: "text", text: `did ${/Do (\S+) for/.exec(prompt)?.[1] ?? "?"}` };
	}
	const seen = request.messages.map((m) => m.text).join("\n");
	const ended = seen.match(/crew run \S+ ended completed/g)?.length ?? 0;
	const last = request.messages.at(-1)?.text ?? "";
	if (request.afterToolResult || (last.includes("ended") && ended >= 2)) return { kind: "text", text: "noted" };
	const run = { action: "run", goal: "review it", workflow: "duo", workspace: "worktree", budgetTokens: 200_000 };
	if (ended === 0) return { kind: "call", tool: "team", args: run };
	if (ended === 1 && last.includes("ended"))
		return { kind: "call", tool: "team", args: { ...run, model: "scripted/scripted-1" } };
	return { kind: "text", text: "noted" };
};

test("pi 1.x: a team run from the session runs its agents on the session's model, or on the one the run names, in worktrees and under its budget", async () => {
	const server = await startServer(twoRuns);
	const scripted = scriptedCliSetup("pi", server.url, mkdtempSync(join(tmpdir(), "crew-pi-model-")));
	const repo = gitRepo();
	repo.writeFile(".crew/agents/reviewer.md", "---\nname: reviewer\nruntime: pi\n---\nYou review code briefly.\n");
	repo.workflow("duo", [
		{ id: "scan", role: "reviewer" },
		{ id: "sum", role: "reviewer", dependsOn: ["scan"] },
	]);
	const env = { PATH: process.env.PATH, XDG_CONFIG_HOME: process.env.XDG_CONFIG_HOME, ...scripted.env };
	PiRpc.install(PI_1, ROOT, env);
	// The session runs on the server's second model; the workers' own pi would pick the first.
	const pi = open(["--no-session", "--model", "scripted/scripted-2"], repo.dir, env);
	pi.send({ type: "prompt", message: "Have a team review it, twice." });
	await waitFor(
		"both runs' reports",
		() =>
			server.requests.some(
				(r) =>
					(r.messages
						.map((m) => m.text)
						.join("\n")
						.match(/ended completed/g)?.length ?? 0) >= 2,
			),
		120_000,
	);

	const reader = new RunReader(projectAt(repo.dir));
	const runs = reader.repo.runs().reverse();
	const options = runs.map((r) => reader.run(r.id).options);
	reader.close();
	expect(runs).toHaveLength(2);
	for (const o of options) expect(o).toMatchObject({ workspace: "worktree", budget: { tokens: 200_000 } });
	const workerModels = server.requests.filter((r) => !r.tools.includes("team")).map((r) => r.model);
	expect(workerModels).toEqual(["scripted-2", "scripted-2", "scripted-1", "scripted-1"]);
});

/**
 * The parent pi delegates three times through the agent tool: one agent in the foreground, one in
 * the background, then a join of the background one. Each answer is the next turn's input.
 */
const delegating: Script = (request) => {
	const answers = request.messages.filter((m) => m.role === "tool").map((m) => m.text);
	const background = /crew run (\S+) is /.exec(answers[1] ?? "")?.[1];
	if (answers.length === 0) return { kind: "call", tool: "agent", args: { task: "write the notes", agent: "worker" } };
	if (answers.length === 1) {
		return { kind: "call", tool: "agent", args: { task: "check the notes", agent: "worker", background: true } };
	}
	if (answers.length === 2) return { kind: "call", tool: "agent", args: { join: [background] } };
	return { kind: "text", text: "All three answers are in." };
};

test("pi 1.x: the agent tool runs one agent in the foreground, and one in the background joined later; each run records the session", async () => {
	const server = await startServer(delegating);
	const scripted = scriptedCliSetup("pi", server.url, mkdtempSync(join(tmpdir(), "crew-pi-agent-")));
	const repo = new TestRepo().agent("worker", "--sleep 1500");
	const sessionDir = mkdtempSync(join(tmpdir(), "crew-pi-agent-sessions-"));
	const env = { PATH: process.env.PATH, XDG_CONFIG_HOME: process.env.XDG_CONFIG_HOME, ...scripted.env };
	PiRpc.install(PI_1, ROOT, env);
	const pi = open(["--session-dir", sessionDir, "--model", scripted.model], repo.dir, env);
	pi.send({ type: "prompt", message: "Delegate the notes." });
	await pi.record("pi's last answer", (r) => JSON.stringify(r).includes("All three answers are in."), 90_000);
	pi.send({ id: "state", type: "get_state" });
	const got = await pi.record("the session's state", (r) => r.type === "response" && r.id === "state");
	const sessionId = (got.data as { sessionId: string }).sessionId;
	await pi.close();

	const answers =
		server.requests
			.at(-1)
			?.messages.filter((m) => m.role === "tool")
			.map((m) => m.text) ?? [];
	const reader = new RunReader(projectAt(repo.dir));
	const runs = reader.repo.runs().reverse();
	const options = runs.map((r) => reader.run(r.id).options);
	reader.close();
	expect(runs.map((r) => [r.workflow, r.status])).toEqual([
		["agent:worker", "completed"],
		["agent:worker", "completed"],
	]);
	for (const o of options) expect(o.caller).toEqual({ session: sessionId });
	const [first, second] = runs.map((r) => r.id);
	expect(answers[0]).toBe(`crew run ${first} ended completed\ndone worker\n`);
	expect(answers[1]).toContain(`crew run ${second} is `);
	expect(answers[2]).toBe(`crew run ${second} ended completed\ndone worker\n`);
	// Both ends were in the tool's answers: no report repeats them.
	expect(sessionMessages(sessionDir, "crew-run")).toEqual([]);
});

test("pi 1.x: a session tells the person what waits in the repository's inbox when it starts, and what newly waits while it is open, each once", async () => {
	const server = await startServer(() => ({ kind: "text", text: "done" }));
	const scripted = scriptedCliSetup("pi", server.url, mkdtempSync(join(tmpdir(), "crew-pi-inbox-")));
	const repo = new TestRepo().agent("worker");
	repo.workflow("gated", [{ id: "gate", extra: { approval: "true" } }]);
	const env = { PATH: process.env.PATH, XDG_CONFIG_HOME: process.env.XDG_CONFIG_HOME, ...scripted.env };
	PiRpc.install(PI_1, ROOT, env);
	const gated = async () =>
		JSON.parse(
			(await crew(repo.dir, ["run", "g", "--workflow", "gated", "--json"])).stdout.trim().split("\n").at(-1) ?? "{}",
		).runId as string;
	const first = await gated();

	const pi = open(["--no-session", "--model", scripted.model], repo.dir, env);
	const notices = () =>
		pi.records().filter((r) => r.type === "extension_ui_request" && String(r.message).startsWith("crew inbox:"));
	await pi.record("the inbox at the start", () => notices().length === 1);
	expect(String(notices()[0]?.message)).toBe(
		`crew inbox: 1 waiting on you\n- approval ${first}: gate waits for approval → crew approve ${first}`,
	);
	const second = await gated();
	await pi.record("the new item", () => notices().length === 2, 20_000);
	expect(String(notices()[1]?.message)).toBe(
		`crew inbox: 2 waiting on you\n- approval ${second}: gate waits for approval → crew approve ${second}`,
	);
	await new Promise((resolve) => setTimeout(resolve, 4000));
	expect(notices()).toHaveLength(2);
	await pi.close();
});
