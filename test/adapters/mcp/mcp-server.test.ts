// @slow: crew mcp starts run after run, detached, to show it keeps no descriptor open
import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterEach, expect, test } from "vitest";
import { cancelLiveRuns, isAlive, mcpClient, read, TestRepo, waitFor } from "../../helpers.js";
import { PLANNER_ORDER, plannerRepo } from "../growing-runs.js";

const clients: Client[] = [];
const dirs: string[] = [];
afterEach(async () => {
	for (const client of clients.splice(0)) await client.close();
	for (const dir of dirs.splice(0)) await cancelLiveRuns(dir);
});

async function connect(dir: string): Promise<Client> {
	return (await connectWithPid(dir)).client;
}

/** A client of a `crew mcp` started in `dir`, and that process's pid. */
async function connectWithPid(dir: string): Promise<{ client: Client; pid: number }> {
	dirs.push(dir);
	const made = await mcpClient(dir);
	clients.push(made.client);
	return made;
}

interface Answer {
	isError: boolean;
	text: string;
	data: Record<string, unknown>;
}

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<Answer> {
	const result = await client.callTool({ name, arguments: args });
	const content = result.content as { type: string; text: string }[];
	const text = content[0]?.text ?? "";
	const data = (result.structuredContent ?? {}) as Record<string, unknown>;
	// The text and the structured content are the same answer.
	if (!result.isError) expect(JSON.parse(text)).toEqual(data);
	return { isError: result.isError === true, text, data };
}

async function untilEnded(client: Client, runId: string): Promise<{ run: { status: string }; tasks: unknown[] }> {
	for (const until = Date.now() + 30_000; Date.now() < until; await sleep(100)) {
		const { data } = await call(client, "crew_status", { runId });
		const status = data as { run: { status: string }; tasks: unknown[] };
		if (["completed", "failed", "cancelled", "interrupted"].includes(status.run.status)) return status;
	}
	throw new Error(`run ${runId} did not end`);
}

test("crew mcp lists its tools, starts a run detached, reports it to completion, reads a result and cancels another run", async () => {
	const repo = new TestRepo();
	const gates = join(repo.dir, "gates");
	mkdirSync(gates);
	repo.agent("worker").agent("waiter", `--gate ${gates}`);
	repo.workflow("pair", [{ id: "draft" }, { id: "polish", dependsOn: ["draft"] }]);
	repo.workflow("slow", [
		{ id: "wait", role: "waiter" },
		{ id: "after", role: "waiter", dependsOn: ["wait"] },
	]);
	const client = await connect(repo.dir);

	const { tools } = await client.listTools();
	expect(tools.map((t) => t.name).sort()).toEqual([
		"crew_agent",
		"crew_answer",
		"crew_approve",
		"crew_cancel",
		"crew_doctor",
		"crew_events",
		"crew_export",
		"crew_fork",
		"crew_goal",
		"crew_inbox",
		"crew_list",
		"crew_merge",
		"crew_plan",
		"crew_recommend",
		"crew_reject",
		"crew_replay",
		"crew_result",
		"crew_resume",
		"crew_retry",
		"crew_run",
		"crew_runs",
		"crew_schedule",
		"crew_scheduled",
		"crew_status",
		"crew_steer",
		"crew_validate",
		"crew_wait",
		"crew_worktrees",
	]);
	const runTool = tools.find((t) => t.name === "crew_run");
	expect(runTool?.inputSchema.required).toEqual(["goal"]);

	const listed = await call(client, "crew_list", { kind: "workflows" });
	expect((listed.data.resources as { name: string; layer: string }[]).filter((r) => r.layer === "project")).toEqual([
		expect.objectContaining({ name: "pair" }),
		expect.objectContaining({ name: "slow" }),
	]);
	const plan = await call(client, "crew_plan", { goal: "write it", workflow: "pair" });
	expect(plan.data).toMatchObject({ workflow: "pair", order: ["draft", "polish"], criticalPath: ["draft", "polish"] });

	const started = Date.now();
	const run = await call(client, "crew_run", { goal: "write it", workflow: "pair" });
	expect(run.isError).toBe(false);
	expect(Date.now() - started).toBeLessThan(15_000);
	const runId = run.data.runId as string;
	expect(run.data).toMatchObject({ tasks: 2, workflow: "pair" });
	expect(["running", "completed"]).toContain(run.data.status);

	const final = await untilEnded(client, runId);
	expect(final.run).toMatchObject({ id: runId, status: "completed", goal: "write it", workflow: "pair" });
	expect(final.tasks).toEqual([
		expect.objectContaining({ id: "draft", status: "completed", attempts: 1 }),
		expect.objectContaining({ id: "polish", status: "completed", attempts: 1 }),
	]);
	const narrowed = await call(client, "crew_status", { runId, tasks: ["completed"], fields: ["status", "id"] });
	expect(narrowed.data.tasks).toEqual([
		{ id: "draft", status: "completed" },
		{ id: "polish", status: "completed" },
	]);
	expect((await call(client, "crew_status", { runId, tasks: ["failed"] })).data.tasks).toEqual([]);
	const result = await call(client, "crew_result", { runId, task: "polish" });
	expect(result.data).toMatchObject({ taskId: "polish", status: "completed", result: "done polish\n" });
	const events = await call(client, "crew_events", { runId, since: 0 });
	const types = (events.data.events as { type: string }[]).map((e) => e.type);
	expect(types[0]).toBe("run.created");
	expect(types.at(-1)).toBe("run.completed");
	expect(events.data.next).toBe((events.data.events as { seq: number }[]).at(-1)?.seq);

	const second = await call(client, "crew_run", { goal: "wait forever", workflow: "slow" });
	const secondId = second.data.runId as string;
	await waitFor("the waiter started", () => repo.starts("wait").length === 1);
	const steered = await call(client, "crew_steer", { runId: secondId, task: "wait", message: "hurry up" });
	expect(steered.data).toMatchObject({
		runId: secondId,
		taskId: "wait",
		state: "refused",
		reason: "a command agent cannot be steered: it takes no messages",
	});
	const notRunning = await call(client, "crew_steer", { runId: secondId, task: "after", message: "x" });
	expect(notRunning.isError).toBe(true);
	expect(notRunning.text).toContain("task after is queued: only a running task's agent can be steered");
	const cancelled = await call(client, "crew_cancel", { runId: secondId });
	expect(cancelled.data).toEqual({ runId: secondId, status: "cancelled" });
	const afterCancel = await untilEnded(client, secondId);
	expect(afterCancel.tasks).toEqual([
		expect.objectContaining({ id: "wait", status: "cancelled" }),
		expect.objectContaining({ id: "after", status: "cancelled" }),
	]);
	const pid = repo.starts("wait")[0]?.pid as number;
	await waitFor("the worker gone", () => !isAlive(pid));
	writeFileSync(join(gates, "wait"), "");
});

test("crew mcp answers bad input with an error naming the value, and keeps serving", async () => {
	const repo = new TestRepo().agent("worker");
	repo.workflow("pair", [{ id: "draft" }]);
	const client = await connect(repo.dir);

	const badId = await call(client, "crew_status", { runId: "../etc" });
	expect(badId.isError).toBe(true);
	expect(badId.text).toContain('invalid run id "../etc"');
	const unknownWorkflow = await call(client, "crew_run", { goal: "x", workflow: "nope" });
	expect(unknownWorkflow.isError).toBe(true);
	expect(unknownWorkflow.text).toContain("nope");
	const zero = await call(client, "crew_run", { goal: "x", workflow: "pair", concurrency: 0 });
	expect(zero.isError).toBe(true);
	expect(zero.text).toMatch(/concurrency/);
	const badLimit = await call(client, "crew_run", { goal: "x", workflow: "pair", stallTimeout: "soon" });
	expect(badLimit.isError).toBe(true);
	expect(badLimit.text).toContain('invalid stall timeout "soon"');
	const wrongType = await call(client, "crew_events", { runId: "abc", since: "ten" });
	expect(wrongType.isError).toBe(true);
	expect(wrongType.text).toMatch(/since/);
	const badStatus = await call(client, "crew_status", { tasks: ["done"] });
	expect(badStatus.isError).toBe(true);
	expect(badStatus.text).toMatch(/invalid task status "done": expected one of queued, running, .*superseded/);
	const badField = await call(client, "crew_status", { fields: ["name"] });
	expect(badField.isError).toBe(true);
	expect(badField.text).toMatch(/invalid task field "name": expected one of id, stepId, .*usage/);
	// A parameter a tool does not take is refused, not dropped: a misspelt sandbox would run looser.
	const misspelt = await call(client, "crew_run", { goal: "x", workflow: "pair", sandBox: "strict" });
	expect(misspelt.isError).toBe(true);
	expect(misspelt.text).toMatch(/unknown parameter sandBox: crew_run takes goal, workflow, team, .*sandbox/);
	const stray = await call(client, "crew_status", { runId: "abc", goal: "x" });
	expect(stray.text).toContain("unknown parameter goal: crew_status takes runId, tasks, fields");
	expect(read(repo.dir, (reader) => reader.repo.runs())).toEqual([]);
	const noRuns = await call(client, "crew_status", {});
	expect(noRuns.isError).toBe(true);
	expect(noRuns.text).toContain("no runs yet");

	const ok = await call(client, "crew_list", {});
	expect(ok.isError).toBe(false);

	// A budget of 0 in the project's config would start nothing: refused, as from the command line.
	writeFileSync(join(repo.dir, ".crew", "config.json"), '{"budget": {"usd": 0}}');
	const noBudget = await call(client, "crew_run", { goal: "x", workflow: "pair" });
	expect(noBudget.isError).toBe(true);
	expect(noBudget.text).toMatch(/config\.json: budget usd 0: expected a number > 0/);
	expect(repo.starts()).toHaveLength(0);
});

test("crew mcp starting run after run keeps no descriptor of theirs open", async () => {
	const repo = new TestRepo();
	repo.writeFile(".crew/agents/quick.md", "---\nname: quick\nruntime: command\ncommand: echo done\n---\n");
	repo.workflow("one", [{ id: "only", role: "quick" }]);
	const { client, pid } = await connectWithPid(repo.dir);
	const descriptors = () => readdirSync(`/proc/${pid}/fd`).length;
	const runOnce = async () => {
		const run = await call(client, "crew_run", { goal: "g", workflow: "one" });
		expect(run.isError, run.text).toBe(false);
		expect((await untilEnded(client, run.data.runId as string)).run.status).toBe("completed");
	};
	await runOnce();
	const afterFirst = descriptors();
	for (let n = 2; n <= 20; n++) await runOnce();
	expect(descriptors()).toBe(afterFirst);
});

test("crew_run takes the run's limits on each attempt", async () => {
	const repo = new TestRepo().agent("worker");
	repo.workflow("pair", [{ id: "draft" }]);
	const client = await connect(repo.dir);
	const run = await call(client, "crew_run", { goal: "x", workflow: "pair", timeout: "45m", stallTimeout: "0" });
	expect(run.isError, run.text).toBe(false);
	const runId = String(run.data.runId);
	await untilEnded(client, runId);
	const options = read(repo.dir, (reader) => reader.run(runId).options);
	expect([options.timeoutMs, options.stallTimeoutMs]).toEqual([45 * 60_000, 0]);
});

test("crew_status lists the tasks a planner added before the planner's dependents", async () => {
	const { repo, args } = plannerRepo();
	const client = await connect(repo.dir);
	const started = await call(client, "crew_run", { goal: "grow the run", workflow: args[1] });
	expect(started.isError, started.text).toBe(false);
	const ended = await untilEnded(client, started.data.runId as string);
	expect(ended.run.status).toBe("completed");
	expect((ended.tasks as { id: string }[]).map((t) => t.id)).toEqual(PLANNER_ORDER);
});

test("crew_plan and crew_run without a workflow use the team's defaultWorkflow, as crew run does", async () => {
	const repo = new TestRepo().agent("worker");
	repo.workflow("mine", [{ id: "only" }]);
	repo.writeFile(
		".crew/teams/mates.team.md",
		"---\nname: mates\ndefaultWorkflow: mine\n---\n\n- worker: agent=worker\n",
	);
	const client = await connect(repo.dir);
	const plan = await call(client, "crew_plan", { goal: "g", team: "mates" });
	expect(plan.isError, plan.text).toBe(false);
	expect(plan.data).toMatchObject({ team: "mates", workflow: "mine", order: ["only"] });
	const run = await call(client, "crew_run", { goal: "g", team: "mates" });
	expect(run.isError, run.text).toBe(false);
	expect(run.data).toMatchObject({ workflow: "mine", tasks: 1 });
	const final = await untilEnded(client, run.data.runId as string);
	expect(final.run).toMatchObject({ status: "completed", workflow: "mine" });
});

test("crew_run, crew_plan and crew_agent take a sandbox level that tightens the user's, and refuse one that loosens it", async () => {
	const repo = new TestRepo().agent("worker");
	repo.workflow("one", [{ id: "a" }]);
	const client = await connect(repo.dir);
	// This machine has bubblewrap and socat, and the test's user sets no level: the user's own is workspace.
	for (const [tool, args] of [
		["crew_run", { goal: "x", workflow: "one" }],
		["crew_plan", { goal: "x", workflow: "one" }],
		["crew_agent", { task: "x", agent: "worker", background: true }],
	] as const) {
		const loosened = await call(client, tool, { ...args, sandbox: "off" });
		expect(loosened.isError, tool).toBe(true);
		expect(loosened.text).toMatch(
			/sandbox 'off' is looser than 'workspace', this machine's default: an agent may only tighten it; to loosen it, run `crew run --sandbox off` yourself/,
		);
	}
	expect(read(repo.dir, (reader) => reader.repo.runs())).toEqual([]);
	const run = await call(client, "crew_run", { goal: "x", workflow: "one", sandbox: "strict" });
	expect(run.isError, run.text).toBe(false);
	const runId = String(run.data.runId);
	await untilEnded(client, runId);
	expect(read(repo.dir, (reader) => reader.run(runId).options.sandbox?.level)).toBe("strict");
});

test("crew_goal starts a run whose judge decides after each pass; its verdict is an event", async () => {
	const repo = new TestRepo().agent("worker");
	repo.writeFile(
		".crew/agents/strict.md",
		`---\nname: strict\nruntime: command\ncommand: echo '{"verdict": "ACHIEVED", "reason": "all there"}'\nsandbox: off\n---\n`,
	);
	repo.workflow("pair", [{ id: "draft" }]);
	const client = await connect(repo.dir);
	const run = await call(client, "crew_goal", { goal: "write it", workflow: "pair", judge: "strict" });
	expect(run.isError, JSON.stringify(run.data)).toBe(false);
	const runId = run.data.runId as string;
	expect(run.data).toMatchObject({ tasks: 2, workflow: "pair" });
	const final = await untilEnded(client, runId);
	expect(final.run).toMatchObject({ status: "completed" });
	expect((final.tasks as { id: string; status: string }[]).map((t) => [t.id, t.status])).toEqual([
		["draft", "completed"],
		["until.1", "completed"],
	]);
	const events = await call(client, "crew_events", { runId, since: 0 });
	const verdict = (events.data.events as { type: string; data: Record<string, unknown> }[]).find(
		(e) => e.type === "goal.verdict",
	);
	expect(verdict?.data).toMatchObject({ verdict: "achieved", reason: "all there", iteration: 1, maxIterations: 3 });
});
