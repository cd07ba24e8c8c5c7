import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, expect, test } from "vitest";
import { read, TestRepo, waitFor } from "../../helpers.js";
import { call, McpClients } from "./mcp-client.js";

const clients = new McpClients();
afterEach(async () => {
	await clients.close();
});

const connect = (dir: string) => clients.connect(dir);

test("crew_agent in the foreground runs one agent on the task and answers with its result", async () => {
	const repo = new TestRepo().agent("worker", "--answer");
	const client = await connect(repo.dir);
	const { tools } = await client.listTools();
	const agentTool = tools.find((t) => t.name === "crew_agent");
	expect(agentTool?.inputSchema.required).toEqual(["task"]);
	expect(Object.keys(agentTool?.inputSchema.properties ?? {})).toEqual(
		expect.arrayContaining(["task", "agent", "model", "workspace", "budgetTokens", "background"]),
	);

	const done = await call(client, "crew_agent", { task: "write the notes", agent: "worker" });
	expect(done.isError, done.text).toBe(false);
	expect(done.data).toMatchObject({
		taskId: "worker",
		agent: "worker",
		status: "completed",
		ended: true,
		workflow: "agent:worker",
		result: "answer: write the notes\n",
	});
	const runId = done.data.runId as string;
	const status = read(repo.dir, (reader) => reader.status(runId));
	expect(status.run).toMatchObject({ status: "completed", goal: "write the notes", workflow: "agent:worker" });
	expect(status.tasks.map((t) => `${t.id}:${t.status}`)).toEqual(["worker:completed"]);

	const unknown = await call(client, "crew_agent", { task: "x", agent: "wroker" });
	expect(unknown.isError).toBe(true);
	expect(unknown.text).toMatch(/no agent 'wroker'; did you mean `worker`\?/);
});

test("crew_agent in the foreground waits at most waitSeconds, then answers with the run id to join", async () => {
	const repo = new TestRepo();
	const gates = join(repo.dir, "gates");
	mkdirSync(gates);
	repo.agent("waiter", `--gate ${gates}`);
	const client = await connect(repo.dir);
	const pending = await call(client, "crew_agent", { task: "wait", agent: "waiter", waitSeconds: 1 });
	expect(pending.isError, pending.text).toBe(false);
	expect(pending.data).toMatchObject({ taskId: "waiter", status: "running", ended: false, timedOut: true });
	expect(pending.data).not.toHaveProperty("result");
	writeFileSync(join(gates, "waiter"), "");
	const joined = await call(client, "crew_wait", { runIds: [pending.data.runId], timeoutSeconds: 60 });
	expect(joined.data).toEqual({
		timedOut: false,
		runs: [
			expect.objectContaining({
				runId: pending.data.runId,
				status: "completed",
				ended: true,
				taskId: "waiter",
				result: "waiting for gate waiter\ngate waiter opened\ndone waiter\n",
			}),
		],
	});
});

test("three crew_agent calls in the background, then one crew_wait with all three ids answers each result", async () => {
	const repo = new TestRepo();
	const gates = join(repo.dir, "gates");
	mkdirSync(gates);
	for (const name of ["first", "second", "third"]) repo.agent(name, `--gate ${gates}`);
	const client = await connect(repo.dir);

	const started: string[] = [];
	for (const name of ["first", "second", "third"]) {
		const answer = await call(client, "crew_agent", { task: `do ${name}`, agent: name, background: true });
		expect(answer.isError, answer.text).toBe(false);
		expect(answer.data).toMatchObject({ taskId: name, agent: name, workflow: `agent:${name}` });
		expect(answer.data).not.toHaveProperty("result");
		started.push(answer.data.runId as string);
	}
	expect(new Set(started).size).toBe(3);
	// All three work at once: each waits at its gate.
	await waitFor("all three agents started", () => repo.starts().length === 3);

	const early = await call(client, "crew_wait", { runIds: started, timeoutSeconds: 0 });
	expect(early.data.timedOut).toBe(true);
	expect((early.data.runs as { status: string; ended: boolean }[]).map((r) => [r.status, r.ended])).toEqual([
		["running", false],
		["running", false],
		["running", false],
	]);

	for (const name of ["first", "second", "third"]) writeFileSync(join(gates, name), "");
	const all = await call(client, "crew_wait", { runIds: started, timeoutSeconds: 60 });
	expect(all.isError, all.text).toBe(false);
	expect(all.data).toEqual({
		timedOut: false,
		runs: ["first", "second", "third"].map((name, k) =>
			expect.objectContaining({
				runId: started[k],
				status: "completed",
				ended: true,
				taskId: name,
				error: null,
				result: `waiting for gate ${name}\ngate ${name} opened\ndone ${name}\n`,
			}),
		),
	});

	const bad = await call(client, "crew_wait", { runIds: ["20990101-000000-abcdef"] });
	expect(bad.isError).toBe(true);
	expect(bad.text).toContain("20990101-000000-abcdef");
	const none = await call(client, "crew_wait", { runIds: [] });
	expect(none.isError).toBe(true);
});

test("crew_wait answers a run of several tasks with the results of its last tasks", async () => {
	const repo = new TestRepo().agent("worker");
	repo.workflow("fan", [{ id: "a" }, { id: "b", dependsOn: ["a"] }, { id: "c", dependsOn: ["a"] }]);
	const client = await connect(repo.dir);
	const run = await call(client, "crew_run", { goal: "fan out", workflow: "fan" });
	const runId = run.data.runId as string;
	const ended = await call(client, "crew_wait", { runIds: [runId], timeoutSeconds: 60 });
	expect(ended.data).toEqual({
		timedOut: false,
		runs: [
			expect.objectContaining({
				runId,
				status: "completed",
				ended: true,
				results: [
					{ taskId: "b", status: "completed", result: "done b\n" },
					{ taskId: "c", status: "completed", result: "done c\n" },
				],
			}),
		],
	});
});
