import { afterEach, expect, test } from "vitest";
import { crew, gitRepo, read, TestRepo } from "../../helpers.js";
import { call, McpClients, ok, untilEnded } from "./mcp-client.js";

const clients = new McpClients();
afterEach(() => clients.close());

test("crew_schedule adds, runs now, pauses and removes a schedule with pi-crew's parameters (interval in ms, once), and crew_scheduled lists it", async () => {
	const repo = gitRepo();
	const client = await clients.connect(repo.dir);
	const added = await ok(client, "crew_schedule", {
		name: "hourly",
		goal: "look around",
		interval: 3_600_000,
		workflow: "chain",
		runtime: "dry-run",
	});
	expect(added).toMatchObject({
		name: "hourly",
		when: "every 1h",
		goal: "look around",
		paused: false,
		overlap: "skip",
	});
	const once = new Date(Date.now() + 86_400_000).toISOString();
	expect(await ok(client, "crew_schedule", { name: "tomorrow", goal: "g", once, workflow: "chain" })).toMatchObject({
		when: `at ${once}`,
		next: once,
	});
	const listed = (await ok(client, "crew_scheduled", {})) as { schedules: { name: string }[] };
	expect(listed.schedules.map((s) => s.name)).toEqual(["hourly", "tomorrow"]);
	// The CLI sees what the tool recorded.
	const viaCli = JSON.parse((await crew(repo.dir, ["schedule", "list", "--json"])).stdout);
	expect(viaCli.schedules.map((s: { name: string }) => s.name)).toEqual(["hourly", "tomorrow"]);

	const started = (await ok(client, "crew_schedule", { op: "run", name: "hourly" })) as { runId: string };
	const ended = await untilEnded(client, started.runId);
	expect(ended.run).toMatchObject({ status: "completed", schedule: { name: "hourly", now: true } });

	expect(await ok(client, "crew_schedule", { op: "pause", name: "hourly" })).toEqual({ name: "hourly", done: "pause" });
	expect(await ok(client, "crew_schedule", { op: "rm", name: "tomorrow" })).toEqual({ name: "tomorrow", done: "rm" });
	const after = (await ok(client, "crew_schedule", { op: "list" })) as {
		schedules: { name: string; paused: boolean }[];
	};
	expect(after.schedules.map((s) => [s.name, s.paused])).toEqual([["hourly", true]]);

	const bad = await call(client, "crew_schedule", { name: "x", goal: "g", interval: 10, workflow: "chain" });
	expect(bad.isError).toBe(true);
	expect(bad.text).toContain("10");
	const neither = await call(client, "crew_schedule", { name: "x", goal: "g", workflow: "chain" });
	expect(neither.isError).toBe(true);
	const nameless = await call(client, "crew_schedule", { op: "rm" });
	expect(nameless.text).toContain("op rm needs the schedule's name");
});

test("an agent's schedule is checked as its run would be: no looser sandbox, no command of its own in an untrusted repository, and each run is the agent's", async () => {
	const repo = gitRepo();
	const client = await clients.connect(repo.dir);
	const ask = { name: "hourly", goal: "look around", interval: 3_600_000, workflow: "chain", runtime: "dry-run" };
	// This machine has bubblewrap and socat, and the test's user sets no level: the user's own is workspace.
	const loosened = await call(client, "crew_schedule", { ...ask, sandbox: "off" });
	expect(loosened.text).toContain("sandbox 'off' is looser than 'workspace'");
	await ok(client, "crew_schedule", ask);
	const started = (await ok(client, "crew_schedule", { op: "run", name: "hourly" })) as { runId: string };
	await untilEnded(client, started.runId);
	expect(read(repo.dir, (reader) => reader.run(started.runId).options.caller)).toEqual({});

	const untrusted = new TestRepo({ trusted: false }).agent("worker");
	untrusted.workflow("one", [{ id: "a" }]);
	const other = await clients.connect(untrusted.dir);
	const command = { name: "sneaky", goal: "x", interval: 3_600_000, workflow: "one", until: "true" };
	const refused = await call(other, "crew_schedule", command);
	expect(refused.text).toContain("is not trusted");
	expect(read(untrusted.dir, (reader) => reader.repo.schedules()?.all() ?? [])).toEqual([]);
});
