// @slow: eleven API tests, each against a crew serve with runs made by crew processes
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, expect, test } from "vitest";
import { APP_TOKEN, cancelLiveRuns, crew, isAlive, read, servedApp, TestRepo, waitFor } from "../../helpers.js";
import { PLANNER_ORDER, plannerRepo, scriptRepo, UNTIL_ORDER, untilRepo } from "../growing-runs.js";

const TOKEN = APP_TOKEN;
const closers: (() => void)[] = [];
const repos: TestRepo[] = [];
afterEach(async () => {
	for (const close of closers.splice(0)) close();
	for (const repo of repos.splice(0)) await cancelLiveRuns(repo.dir);
});

/** The app over `repo`'s store, whose requests carry the token (see `servedApp`). */
function appFor(repo: TestRepo, options: { allowedHosts?: string[] } = {}) {
	repos.push(repo);
	const made = servedApp(repo.dir, { pollMs: 20, ...options });
	closers.push(made.close);
	return made;
}

/** A repository whose tasks each wait for the test to open their gate. */
function gatedRepo(): { repo: TestRepo; open: (step: string) => void } {
	const repo = new TestRepo();
	const gates = join(repo.dir, "gates");
	mkdirSync(gates);
	repo.agent("worker", `--gate ${gates}`);
	repo.workflow("fan", [{ id: "plan" }, { id: "left", dependsOn: ["plan"] }, { id: "right", dependsOn: ["plan"] }]);
	return { repo, open: (step) => writeFileSync(join(gates, step), "") };
}

async function finishedRun(): Promise<{ repo: TestRepo; runId: string }> {
	const repo = new TestRepo().agent("worker");
	repo.workflow("fan", [{ id: "plan" }, { id: "left", dependsOn: ["plan"] }, { id: "right", dependsOn: ["plan"] }]);
	const run = await crew(repo.dir, ["run", "ship it", "--workflow", "fan", "--json"]);
	expect(run.code).toBe(0);
	return { repo, runId: JSON.parse(run.stdout.trim().split("\n").at(-1) ?? "{}").runId };
}

interface GraphNode {
	id: string;
	x: number;
	y: number;
	width: number;
	height: number;
}

/** The fields of API answers these tests read. */
interface ApiBody {
	error: string;
	runs: { id: string }[];
	schedules: object[];
	run: object;
	tasks: { id: string; status: string }[];
	width: number;
	height: number;
	nodes: GraphNode[];
	edges: { from: string; to: string }[];
	events: { seq: number }[];
	seq: number;
	task: object;
	prompt: string;
	result: string;
	log: { kind: string }[];
	attempts: object[];
	artifacts: { path: string }[];
}

interface SseEvent {
	id?: string;
	event?: string;
	data: { seq?: number; type?: string; taskId?: string; ended?: boolean };
}

async function json(response: Response | Promise<Response>): Promise<{ status: number; body: ApiBody }> {
	const r = await response;
	return { status: r.status, body: (await r.json()) as ApiBody };
}

/** Reads server-sent events from a response until `until` says stop; returns them parsed. */
async function readSse(response: Response, until: (events: SseEvent[]) => boolean): Promise<SseEvent[]> {
	const reader = (response.body as ReadableStream<Uint8Array>).getReader();
	const decoder = new TextDecoder();
	const events: SseEvent[] = [];
	let buffer = "";
	while (!until(events)) {
		const { value, done } = await reader.read();
		if (done) break;
		buffer += decoder.decode(value, { stream: true });
		for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
			const frame = buffer.slice(0, end);
			buffer = buffer.slice(end + 2);
			if (frame.startsWith(":")) continue;
			const fields = Object.fromEntries(
				frame.split("\n").map((line) => [line.slice(0, line.indexOf(":")), line.slice(line.indexOf(":") + 1).trim()]),
			);
			// Every frame carries exactly the fields of the contract: event, data, and id on events.
			expect(Object.keys(fields).every((k) => ["id", "event", "data"].includes(k))).toBe(true);
			events.push({ id: fields.id, event: fields.event, data: JSON.parse(fields.data ?? "null") });
		}
	}
	await reader.cancel();
	return events;
}

test("the API lists runs and gives a run with its tasks, graph, events, task details and artifacts", async () => {
	const { repo, runId } = await finishedRun();
	const app = appFor(repo);

	const runs = await json(app.request("/api/runs"));
	expect(runs.status).toBe(200);
	expect(runs.body.runs).toHaveLength(1);
	expect(runs.body.runs[0]).toMatchObject({ id: runId, status: "completed", workflow: "fan", goal: "ship it" });

	const run = await json(app.request(`/api/runs/${runId}`));
	expect(run.body.run).toMatchObject({ id: runId, status: "completed", usage: { inputTokens: 0, costUsd: 0 } });
	expect(run.body.tasks.map((t) => t.id)).toEqual(["plan", "left", "right"]);
	expect(run.body.tasks[1]).toMatchObject({
		stepId: "left",
		role: "worker",
		agent: "worker",
		runtime: "command",
		status: "completed",
		dependsOn: ["plan"],
		activity: "done left",
		usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0 },
	});

	// A refresh after a read gets only what changed since its seq: nothing, once the run has ended.
	expect(run.body.seq).toBeGreaterThan(0);
	const unchanged = await json(app.request(`/api/runs/${runId}?since=${run.body.seq}`));
	expect(unchanged.body).toEqual({ run: run.body.run, tasks: [], seq: run.body.seq });
	const since0 = await json(app.request(`/api/runs/${runId}?since=0`));
	expect(since0.body.tasks).toEqual(run.body.tasks);

	const graph = await json(app.request(`/api/runs/${runId}/graph`));
	const nodes = new Map(graph.body.nodes.map((n) => [n.id, n]));
	expect([...nodes.keys()].sort()).toEqual(["left", "plan", "right"]);
	expect(graph.body.edges.map((e) => `${e.from}>${e.to}`).sort()).toEqual(["plan>left", "plan>right"]);
	// Drawn left to right: a dependency sits left of its dependents, inside the drawing.
	const plan = nodes.get("plan") as GraphNode;
	for (const id of ["left", "right"]) expect(nodes.get(id)?.x).toBeGreaterThan(plan.x);
	for (const n of nodes.values()) {
		expect(n.x + n.width / 2).toBeLessThanOrEqual(graph.body.width);
		expect(n.y + n.height / 2).toBeLessThanOrEqual(graph.body.height);
	}

	const all = await json(app.request(`/api/runs/${runId}/events`));
	const seqs = all.body.events.map((e) => e.seq);
	expect(seqs).toEqual([...seqs].sort((a: number, b: number) => a - b));
	const later = await json(app.request(`/api/runs/${runId}/events?since=${seqs[2]}`));
	expect(later.body.events.map((e) => e.seq)).toEqual(seqs.slice(3));

	const detail = await json(app.request(`/api/runs/${runId}/tasks/left`));
	expect(detail.status).toBe(200);
	expect(detail.body.task).toMatchObject({ id: "left", status: "completed" });
	expect(detail.body.prompt).toContain("Do left for ship it");
	expect(detail.body.result).toBe("done left\n");
	expect(detail.body.log.map((e) => e.kind)).toEqual(["attempt", "output", "status"]);
	expect(detail.body.attempts).toEqual([
		expect.objectContaining({ number: 1, runtime: "command", status: "completed" }),
	]);

	const artifacts = await json(app.request(`/api/runs/${runId}/artifacts`));
	const result = artifacts.body.artifacts.find((a) => a.path === "tasks/left/result.md");
	expect(result).toMatchObject({ kind: "result", taskId: "left", size: 10 });
	const file = await app.request(`/api/runs/${runId}/artifacts/tasks/left/result.md`);
	expect(file.status).toBe(200);
	expect(await file.text()).toBe("done left\n");
});

test("bad input gets a clear error with the right status, naming the value", async () => {
	const { repo, runId } = await finishedRun();
	const app = appFor(repo);
	const cases: [string, number, string][] = [
		["/api/runs/nope", 404, "no run 'nope'"],
		["/api/runs/..%2Fetc", 400, "invalid run id"],
		[`/api/runs/${runId}/events?since=abc`, 400, 'invalid query parameter since "abc": expected an integer >= 0'],
		[`/api/runs/${runId}/events?since=-1`, 400, 'since "-1"'],
		[`/api/runs/${runId}?since=1.5`, 400, 'invalid query parameter since "1.5"'],
		[`/api/runs/${runId}/tasks/ghost`, 404, "no task or step 'ghost'"],
		[`/api/runs/${runId}/artifacts/tasks/left/missing.md`, 404, 'no artifact "tasks/left/missing.md"'],
		[`/api/runs/${runId}/artifacts/..%2F..%2Fcrew.db`, 404, "no artifact"],
		["/api/nothing", 404, "no route GET /api/nothing"],
		["/assets/secret.txt", 404, 'no dashboard file "secret.txt"'],
		["/api/runs?status=bogus", 400, 'invalid query parameter status "bogus"'],
		["/api/runs?limit=0", 400, 'invalid query parameter limit "0": expected an integer >= 1'],
		["/api/runs?limit=5000", 400, "expected at most 1000"],
		["/api/runs?offset=-1", 400, 'invalid query parameter offset "-1"'],
	];
	for (const [path, status, message] of cases) {
		const r = await json(app.request(path));
		expect({ path, status: r.status }).toEqual({ path, status });
		expect(r.body.error).toContain(message);
	}
	const rejected = await json(
		app.request(`/api/runs/${runId}/reject`, {
			method: "POST",
			headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
			body: JSON.stringify({ reason: 42 }),
		}),
	);
	expect(rejected.status).toBe(400);
	expect(rejected.body.error).toContain("invalid body field reason 42");
	const steer = (body: unknown) =>
		json(
			app.request(`/api/runs/${runId}/tasks/left/steer`, {
				method: "POST",
				headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
				body: JSON.stringify(body),
			}),
		);
	const blank = await steer({ message: "  " });
	expect(blank.status).toBe(400);
	expect(blank.body.error).toContain("expected a non-empty message");
	const ended = await steer({ message: "too late" });
	expect(ended.status).toBe(409);
	expect(ended.body.error).toContain("task left is completed: only a running task's agent can be steered");
});

test("changes need the token, and only loopback host names are answered when asked", async () => {
	const { repo, runId } = await finishedRun();
	const { app } = appFor(repo, { allowedHosts: ["127.0.0.1", "localhost"] });
	for (const authorization of [undefined, "Bearer wrong", `Basic ${TOKEN}`]) {
		const r = await json(
			app.request(`/api/runs/${runId}/cancel`, {
				method: "POST",
				headers: authorization ? { authorization, host: "127.0.0.1:7420" } : { host: "127.0.0.1:7420" },
			}),
		);
		expect(r.status).toBe(401);
		expect(r.body.error).toContain("token");
	}
	const ok = await json(
		app.request(`/api/runs/${runId}/cancel`, {
			method: "POST",
			headers: { authorization: `Bearer ${TOKEN}`, host: "127.0.0.1:7420" },
		}),
	);
	expect(ok).toEqual({ status: 200, body: { runId, status: "completed" } });
	const rebound = await json(
		app.request("/api/runs", { headers: { host: "attacker.example:7420", authorization: `Bearer ${TOKEN}` } }),
	);
	expect(rebound.status).toBe(403);
	expect(rebound.body.error).toContain("attacker.example");
});

test("the event stream sends each event with its seq as id, the run's status, and resumes after Last-Event-ID", async () => {
	const { repo, open } = gatedRepo();
	const started = await crew(repo.dir, ["run", "stream it", "--workflow", "fan", "--detach", "--json"]);
	const runId = JSON.parse(started.stdout.trim().split("\n").at(-1) ?? "{}").runId;
	const app = appFor(repo);

	const response = await app.request(`/api/runs/${runId}/stream`);
	expect(response.headers.get("content-type")).toContain("text/event-stream");
	setTimeout(() => open("plan"), 100);
	const first = await readSse(response, (events) =>
		events.some((e) => e.event === "event" && e.data.type === "task.completed" && e.data.taskId === "plan"),
	);
	expect(first[0]?.event).toBe("event");
	expect(first[0]?.data).toMatchObject({ seq: 1, type: "run.created" });
	const run = first.find((e) => e.event === "run");
	expect(run?.data).toMatchObject({ id: runId, status: "running", ended: false });
	for (const e of first.filter((f) => f.event === "event")) expect(e.id).toBe(String(e.data.seq));
	const ids = first.filter((e) => e.event === "event").map((e) => Number(e.id));
	expect(ids).toEqual(ids.map((_, i) => i + 1));

	const last = ids.at(-1) as number;
	open("left");
	open("right");
	const resumed = await readSse(
		await app.request(`/api/runs/${runId}/stream`, { headers: { "last-event-id": String(last) } }),
		(events) => events.some((e) => e.event === "run" && e.data.ended),
	);
	const resumedIds = resumed.filter((e) => e.event === "event").map((e) => Number(e.id));
	expect(resumedIds[0]).toBe(last + 1);
	expect(resumed.at(-1)?.data).toMatchObject({ status: "completed", ended: true });
});

test("many streams of one run each get every event once and in order, wherever each began", async () => {
	const { repo, open } = gatedRepo();
	const started = await crew(repo.dir, ["run", "stream it", "--workflow", "fan", "--detach", "--json"]);
	const runId = JSON.parse(started.stdout.trim().split("\n").at(-1) ?? "{}").runId;
	await waitFor("plan started", () => repo.starts("plan").length === 1);
	const app = appFor(repo);
	const begun = (await json(app.request(`/api/runs/${runId}/events`))).body.events.length;
	expect(begun).toBeGreaterThan(2);
	// Streams that began before the server read the run, at its latest event, and in between.
	const sinces = Array.from({ length: 20 }, (_, k) => [0, 2, begun][k % 3] as number);
	const streams = Promise.all(
		sinces.map(async (since) =>
			readSse(
				await app.request(`/api/runs/${runId}/stream`, { headers: { "last-event-id": String(since) } }),
				(events) => events.some((e) => e.event === "run" && e.data.ended),
			),
		),
	);
	open("plan");
	open("left");
	open("right");
	const all = await streams;
	const total = (await json(app.request(`/api/runs/${runId}/events`))).body.events.length;
	for (const [k, events] of all.entries()) {
		const ids = events.filter((e) => e.event === "event").map((e) => Number(e.id));
		const since = sinces[k] as number;
		expect(ids).toEqual(Array.from({ length: total - since }, (_, i) => since + 1 + i));
		expect(events.filter((e) => e.event === "run").at(-1)?.data).toMatchObject({ status: "completed", ended: true });
	}
});

test("cancel through the API ends a live run started by another process, leaving no worker", async () => {
	const { repo } = gatedRepo();
	const started = await crew(repo.dir, ["run", "cancel me", "--workflow", "fan", "--detach", "--json"]);
	const runId = JSON.parse(started.stdout.trim().split("\n").at(-1) ?? "{}").runId;
	await waitFor("plan started", () => repo.starts("plan").length === 1);
	const app = appFor(repo);
	const r = await json(
		app.request(`/api/runs/${runId}/cancel`, { method: "POST", headers: { authorization: `Bearer ${TOKEN}` } }),
	);
	expect(r).toEqual({ status: 200, body: { runId, status: "cancelled" } });
	const pid = repo.starts("plan")[0]?.pid as number;
	await waitFor("the worker gone", () => !isAlive(pid));
	const view = await json(app.request(`/api/runs/${runId}`));
	expect(view.body.tasks.map((t) => t.status)).toEqual(["cancelled", "cancelled", "cancelled"]);
});

test("/metrics gives runs, tasks and attempts by status, usage, ready-queue depth and a task duration histogram", async () => {
	const { repo } = await finishedRun();
	const app = appFor(repo);
	const response = await app.request("/metrics");
	expect(response.headers.get("content-type")).toContain("text/plain");
	const text = await response.text();
	const value = (series: string) => {
		const line = text.split("\n").find((l) => l.startsWith(`${series} `));
		return line === undefined ? undefined : Number(line.slice(series.length + 1));
	};
	expect(text).toContain("# TYPE crew_runs gauge");
	expect(text).toContain("# TYPE crew_task_duration_seconds histogram");
	expect(value('crew_runs{status="completed"}')).toBe(1);
	expect(value('crew_runs{status="failed"}')).toBe(0);
	expect(value('crew_tasks{status="completed"}')).toBe(3);
	expect(value('crew_attempts{status="completed"}')).toBe(3);
	expect(value('crew_tokens{kind="input"}')).toBe(0);
	expect(value("crew_cost_usd")).toBe(0);
	expect(value("crew_ready_tasks")).toBe(0);
	expect(value("crew_task_duration_seconds_count")).toBe(3);
	expect(value('crew_task_duration_seconds_bucket{le="+Inf"}')).toBe(3);
	expect(value("crew_task_duration_seconds_sum")).toBeGreaterThan(0);
});

test("/metrics counts ready tasks of a live run, and a server started before any run answers", async () => {
	const empty = new TestRepo();
	const before = await appFor(empty).request("/metrics");
	expect(await before.text()).toContain('crew_runs{status="running"} 0');

	const repo = new TestRepo();
	const gates = join(repo.dir, "gates");
	mkdirSync(gates);
	repo.agent("worker", `--gate ${gates}`);
	// One slot, three independent steps: one runs, two are ready and wait for the slot.
	repo.workflow("wide", [{ id: "a" }, { id: "b" }, { id: "c" }]);
	const started = await crew(repo.dir, ["run", "wide", "--workflow", "wide", "--concurrency", "1", "--detach"]);
	expect(started.code).toBe(0);
	await waitFor("one started", () => repo.starts().length === 1);
	const text = await (await appFor(repo).request("/metrics")).text();
	expect(text).toContain('crew_runs{status="running"} 1');
	expect(text).toContain('crew_tasks{status="running"} 1');
	expect(text).toContain("crew_ready_tasks 2");
	for (const step of ["a", "b", "c"]) writeFileSync(join(gates, step), "");
});

test("a run's tasks come in DAG order with the tasks it gained: --until passes, a plan, a script's phases", async () => {
	const cases = [
		{ grown: untilRepo(), order: UNTIL_ORDER },
		{ grown: plannerRepo(), order: PLANNER_ORDER },
		{ grown: scriptRepo(), order: ["inspector-1.0.1", "inspector-1.1.1", "tester-2"] },
	];
	for (const { grown, order } of cases) {
		const run = await crew(grown.repo.dir, ["run", "grow the run", ...grown.args, "--json"]);
		expect(run.code, run.stderr).toBe(0);
		const { runId } = JSON.parse(run.stdout.trim().split("\n").at(-1) ?? "{}");
		const { status, body } = await json(appFor(grown.repo).request(`/api/runs/${runId}`));
		expect(status).toBe(200);
		expect(body.tasks.map((t) => t.id)).toEqual(order);
	}
});

test("every file the dashboard's page asks for is served, its icon too", async () => {
	const app = appFor(new TestRepo());
	const page = await (await app.request("/")).text();
	const asked = [...page.matchAll(/(?:href|src)="(\/[^"]*)"/g)].map((m) => m[1] as string).filter((p) => p !== "/");
	expect(asked).toContain("/assets/favicon.svg");
	// Browsers ask for /favicon.ico whatever the page says.
	for (const path of [...asked, "/favicon.ico"]) {
		const response = await app.request(path);
		expect({ path, status: response.status }).toEqual({ path, status: 200 });
	}
	expect((await app.request("/favicon.ico")).headers.get("content-type")).toBe("image/svg+xml");
});

test("GET /api/schedules lists the schedules with their next slot and latest runs, and /metrics counts their slots", async () => {
	const repo = new TestRepo().agent("worker");
	repo.workflow("one", [{ id: "a" }]);
	const app = appFor(repo);
	expect((await json(app.request("/api/schedules"))).body).toEqual({ schedules: [] });
	expect((await crew(repo.dir, ["schedule", "add", "daily", "--every", "1d", "--workflow", "one", "check"])).code).toBe(
		0,
	);
	const started = JSON.parse((await crew(repo.dir, ["schedule", "run", "daily", "--json"])).stdout);
	await waitFor("the run to end", () => read(repo.dir, (r) => r.run(started.runId).status) === "completed");
	const { body } = await json(app.request("/api/schedules"));
	expect(body.schedules).toEqual([
		expect.objectContaining({
			name: "daily",
			when: "every 1d",
			goal: "check",
			next: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
			last: [expect.objectContaining({ outcome: "now", runId: started.runId, status: "completed" })],
		}),
	]);
	const metrics = await (await app.request("/metrics")).text();
	expect(metrics).toContain('crew_scheduled_slots{outcome="now"} 1');
	expect(metrics).toContain('crew_scheduled_slots{outcome="started"} 0');
});
