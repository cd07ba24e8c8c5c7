// @slow: the API's actions, each with bad bodies, unknown names, wrong states and no token, against runs crew processes run
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { afterEach, expect, test } from "vitest";
import { cancelLiveRuns, isAlive, read, servedApp, TestRepo, waitFor } from "../../helpers.js";

const closers: (() => void)[] = [];
const repos: TestRepo[] = [];
afterEach(async () => {
	for (const close of closers.splice(0)) close();
	for (const repo of repos.splice(0)) await cancelLiveRuns(repo.dir);
});

/**
 * A repository of command agents: workflow `fan` of three tasks, `shaky` whose second task fails
 * its first attempt, `held` whose one task waits for a gate no test opens.
 */
function fanRepo(): TestRepo {
	const repo = new TestRepo().agent("worker").agent("flaky", "--fail-first 1");
	const gates = join(repo.dir, "gates");
	mkdirSync(gates);
	repo.agent("gated", `--gate ${gates}`);
	repo.workflow("fan", [{ id: "plan" }, { id: "left", dependsOn: ["plan"] }, { id: "right", dependsOn: ["plan"] }]);
	repo.workflow("shaky", [{ id: "plan" }, { id: "wobble", role: "flaky", dependsOn: ["plan"] }]);
	repo.workflow("held", [{ id: "wait", role: "gated" }]);
	repos.push(repo);
	return repo;
}

interface Answer {
	status: number;
	body: Record<string, unknown> & { error?: string };
}

/** The app over `repo`'s store, and `send`, which sends JSON as the dashboard does (with the token unless told otherwise). */
function apiOf(repo: TestRepo) {
	const made = servedApp(repo.dir, { pollMs: 20 });
	closers.push(made.close);
	const send = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
		const init: RequestInit = { method, headers: { "content-type": "application/json", ...headers } };
		if (body !== undefined) init.body = typeof body === "string" ? body : JSON.stringify(body);
		const r = await made.request(path, init);
		return { status: r.status, body: (await r.json()) as Answer["body"] };
	};
	const statusOf = (runId: string) => read(repo.dir, (reader) => reader.run(runId).status);
	const running = (runId: string) => waitFor(`run ${runId} to run`, () => statusOf(runId) === "running");
	const ended = (runId: string) =>
		waitFor(`run ${runId} to end`, () => {
			const status = statusOf(runId);
			return ["completed", "failed", "cancelled"].includes(status) && status;
		});
	const runCount = () => read(repo.dir, (reader) => reader.repo.runs().length);
	return { ...made, send, ended, running, runCount };
}

/** Each case's status and the words its error must contain. */
async function refusals(cases: [Promise<Answer>, number, string][]): Promise<void> {
	for (const [answer, status, words] of cases) {
		const { status: got, body } = await answer;
		expect({ got, error: body.error }).toEqual({ got: status, error: expect.stringContaining(words) });
	}
}

test("POST /api/runs starts a run as crew run --detach does, recorded as started over the API; bad asks start nothing", async () => {
	const repo = fanRepo();
	const { send, ended, runCount } = apiOf(repo);

	const plan = await send("POST", "/api/plan", { goal: "ship it", workflow: "fan" });
	expect(plan.status).toBe(200);
	expect(plan.body).toMatchObject({ workflow: "fan", parallelGroups: [["plan"], ["left", "right"]] });
	expect(plan.body.estimate).toHaveProperty("line");

	// A person may loosen the sandbox, as `crew run --sandbox off` may; an agent may not.
	const loosened = await send("POST", "/api/plan", { goal: "ship it", workflow: "fan", sandbox: "off" });
	expect(loosened.status).toBe(200);

	const started = await send("POST", "/api/runs", { goal: "ship it", workflow: "fan", concurrency: 2 });
	expect(started.status).toBe(201);
	expect(started.body).toMatchObject({ tasks: 3, workflow: "fan" });
	const runId = started.body.runId as string;
	expect(await ended(runId)).toBe("completed");
	const run = await send("GET", `/api/runs/${runId}`);
	expect(run.body.run).toMatchObject({ id: runId, goal: "ship it", startedOver: "api" });
	const options = read(repo.dir, (reader) => reader.run(runId).options);
	expect(options).toMatchObject({ startedOver: "api" });
	expect(options).not.toHaveProperty("caller");

	const one = await send("POST", "/api/runs", { goal: "look around", agent: "worker" });
	expect(one.status).toBe(201);
	expect(one.body.workflow).toBe("agent:worker");
	expect(await ended(one.body.runId as string)).toBe("completed");

	const runs = runCount();
	await refusals([
		[send("POST", "/api/runs", {}), 400, "invalid body field goal missing"],
		[send("POST", "/api/runs", { goal: "   " }), 400, "expected a non-empty goal"],
		[send("POST", "/api/runs", { goal: "x", colour: "red" }), 400, "unknown body field colour: expected goal, team"],
		[send("POST", "/api/runs", "{goal:"), 400, "the body is not JSON"],
		[send("POST", "/api/runs", { goal: "x", concurrency: "two" }), 400, 'invalid body field concurrency "two"'],
		[send("POST", "/api/runs", { goal: "x", sandbox: "loose" }), 400, 'invalid body field sandbox "loose"'],
		[send("POST", "/api/runs", { goal: "x", team: "nosuch" }), 404, "nosuch"],
		[send("POST", "/api/runs", { goal: "x", workflow: "nosuch" }), 404, "nosuch"],
		[send("POST", "/api/runs", { goal: "x", agent: "nosuch" }), 404, "nosuch"],
		[send("POST", "/api/runs", { goal: "x", agent: "worker", workflow: "fan" }), 400, "takes no workflow"],
		[send("POST", "/api/runs", { goal: "x", agent: "worker", team: "crew" }), 400, "takes no team"],
		[send("POST", "/api/runs", { goal: "x", workflow: "fan", budgetTokens: -5 }), 400, "-5"],
		[send("POST", "/api/plan", { goal: "x", workflow: "nosuch" }), 404, "nosuch"],
		[send("POST", "/api/runs", { goal: "x", workflow: "fan" }, { authorization: "" }), 401, "token"],
		[send("POST", "/api/runs", { goal: "x", workflow: "fan" }, { authorization: "Bearer wrong" }), 401, "token"],
		[
			send("POST", "/api/runs", { goal: "x", workflow: "fan" }, { cookie: "crew_token=t", authorization: "" }),
			401,
			"token",
		],
	]);
	// Refused before anything was made.
	expect(runCount()).toBe(runs);

	// The project's own commands run only in a repository its user trusts, whoever asks.
	const untrusted = new TestRepo({ trusted: false }).agent("worker");
	repos.push(untrusted.workflow("one", [{ id: "a" }]));
	const refused = await apiOf(untrusted).send("POST", "/api/runs", { goal: "x", workflow: "one" });
	expect(refused).toEqual({
		status: 403,
		body: expect.objectContaining({ error: expect.stringContaining("is not trusted") }),
	});
});

test("a failed task is retried, an ended run forked from a task and replayed, over the API as the CLI does", async () => {
	const repo = fanRepo();
	const { send, ended, running } = apiOf(repo);
	const shaky = await send("POST", "/api/runs", { goal: "wobble", workflow: "shaky", retries: 0 });
	const runId = shaky.body.runId as string;
	expect(await ended(runId)).toBe("failed");

	await refusals([
		[send("POST", `/api/runs/${runId}/tasks/plan/retry`), 409, "plan"],
		[send("POST", `/api/runs/${runId}/tasks/ghost/retry`), 404, "ghost"],
		[send("POST", `/api/runs/${runId}/tasks/wobble/retry`, { force: true }), 400, "unknown body field force"],
		[send("POST", "/api/runs/r-nosuch/tasks/plan/retry"), 404, "r-nosuch"],
		[send("POST", "/api/runs/..%2Fx/tasks/plan/retry"), 400, "invalid run id"],
		[send("POST", `/api/runs/${runId}/tasks/wobble/retry`, undefined, { authorization: "" }), 401, "token"],
	]);
	const retried = await send("POST", `/api/runs/${runId}/tasks/wobble/retry`);
	expect(retried).toEqual({ status: 200, body: { runId, task: "wobble", status: expect.any(String) } });
	// Read at once, the task offers no second retry: its run is held by the runner that answered,
	// which may not have queued the task again yet, or the task has run again already.
	const { run, task } = (await send("GET", `/api/runs/${runId}/tasks/wobble`)).body as {
		run: { heldBy?: number };
		task: { status: string };
	};
	expect(run.heldBy === undefined ? task.status : "held").toMatch(/^(held|completed)$/);
	expect(await ended(runId)).toBe("completed");

	const fan = await send("POST", "/api/runs", { goal: "ship it", workflow: "fan" });
	const fanId = fan.body.runId as string;
	expect(await ended(fanId)).toBe("completed");
	const forked = await send("POST", `/api/runs/${fanId}/fork`, { from: ["left"] });
	expect(forked.status).toBe(201);
	expect(forked.body).toMatchObject({ of: fanId, reused: ["plan", "right"], rerun: [{ taskId: "left" }] });
	expect(await ended(forked.body.runId as string)).toBe("completed");
	const fork = await send("GET", `/api/runs/${forked.body.runId}`);
	expect(fork.body.run).toMatchObject({ forkedFrom: fanId, startedOver: "api" });

	const replayed = await send("POST", `/api/runs/${fanId}/replay`, {});
	expect(replayed.status).toBe(201);
	expect(replayed.body.of).toBe(fanId);
	expect(await ended(replayed.body.runId as string)).toBe("completed");
	expect((await send("GET", `/api/runs/${replayed.body.runId}`)).body.run).toMatchObject({ startedOver: "api" });

	await refusals([
		[send("POST", `/api/runs/${fanId}/fork`, { from: ["ghost"] }), 404, "ghost"],
		[send("POST", `/api/runs/${fanId}/fork`, { from: 5 }), 400, "invalid body field from 5"],
		[send("POST", `/api/runs/${fanId}/fork`, { from: [] }), 400, "expected a task or step at least"],
		[send("POST", `/api/runs/${fanId}/fork`, { form: ["left"] }), 400, "unknown body field form"],
		[send("POST", "/api/runs/r-nosuch/fork", {}), 404, "r-nosuch"],
		[send("POST", `/api/runs/${fanId}/fork`, {}, { authorization: "" }), 401, "token"],
		[send("POST", `/api/runs/${fanId}/replay`, { live: true }), 400, "unknown body field live"],
		[send("POST", "/api/runs/r-nosuch/replay", {}), 404, "r-nosuch"],
		[send("POST", `/api/runs/${fanId}/replay`, {}, { authorization: "" }), 401, "token"],
	]);

	// A run still working has no whole record to replay.
	const held = await send("POST", "/api/runs", { goal: "hold on", workflow: "held" });
	const heldId = held.body.runId as string;
	await running(heldId);
	await refusals([[send("POST", `/api/runs/${heldId}/replay`, {}), 409, `run ${heldId} is running`]]);
	// Once its runner is gone, killed, what it recorded can be replayed.
	const runner = read(repo.dir, (reader) => reader.run(heldId).lease?.pid) as number;
	process.kill(runner, "SIGKILL");
	await waitFor("the runner to be gone", () => !isAlive(runner));
	const afterCrash = await send("POST", `/api/runs/${heldId}/replay`, {});
	expect(afterCrash).toMatchObject({ status: 201, body: { of: heldId } });
	expect(await send("POST", `/api/runs/${afterCrash.body.runId}/cancel`)).toMatchObject({ status: 200 });
});

test("schedules are added, paused, resumed and removed over the API, refused as crew schedule refuses", async () => {
	const repo = fanRepo();
	const { send } = apiOf(repo);
	const added = await send("POST", "/api/schedules", {
		name: "nightly",
		goal: "tidy up",
		workflow: "fan",
		every: "1h",
	});
	expect(added.status).toBe(201);
	expect(added.body).toMatchObject({ name: "nightly", when: "every 1h", goal: "tidy up", paused: false });

	await refusals([
		[send("POST", "/api/schedules", { name: "nightly", goal: "again", workflow: "fan", every: "1h" }), 409, "nightly"],
		[
			send("POST", "/api/schedules", { goal: "x", workflow: "fan", every: "1h" }),
			400,
			"invalid body field name missing",
		],
		[send("POST", "/api/schedules", { name: "n2", goal: "x", workflow: "fan", every: "soon" }), 400, "soon"],
		[send("POST", "/api/schedules", { name: "n2", goal: "x", workflow: "nosuch", every: "1h" }), 404, "nosuch"],
		[send("POST", "/api/schedules", { name: "n2", goal: "x", every: "1h", overlap: "pile" }), 400, '"pile"'],
		[
			send("POST", "/api/schedules", { name: "n 2", goal: "x", workflow: "fan", every: "1h" }),
			400,
			"invalid schedule id",
		],
		[send("POST", "/api/schedules", { name: "n2", goal: "x", every: "1h" }, { authorization: "" }), 401, "token"],
		[send("POST", "/api/schedules/ghost/pause"), 404, "ghost"],
		[send("POST", "/api/schedules/nightly/pause", { until: "monday" }), 400, "unknown body field until"],
		[send("DELETE", "/api/schedules/ghost"), 404, "ghost"],
		[send("DELETE", "/api/schedules/nightly", undefined, { authorization: "" }), 401, "token"],
	]);

	const paused = await send("POST", "/api/schedules/nightly/pause");
	expect(paused).toMatchObject({ status: 200, body: { name: "nightly", paused: true } });
	const resumed = await send("POST", "/api/schedules/nightly/resume");
	expect(resumed).toMatchObject({ status: 200, body: { name: "nightly", paused: false } });
	const listed = await send("GET", "/api/schedules");
	expect(listed.body.schedules).toEqual([expect.objectContaining({ name: "nightly" })]);
	expect(await send("DELETE", "/api/schedules/nightly")).toEqual({
		status: 200,
		body: { name: "nightly", removed: true },
	});
	expect((await send("GET", "/api/schedules")).body.schedules).toEqual([]);
});
