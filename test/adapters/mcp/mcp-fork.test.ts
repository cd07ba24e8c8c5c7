import { afterEach, expect, test } from "vitest";
import { read, TestRepo } from "../../helpers.js";
import { call, McpClients, ok, untilEnded } from "./mcp-client.js";

const clients = new McpClients();
afterEach(() => clients.close());

test("crew_fork and crew_replay make a fork and a replay of an ended run, recorded as the asking session's, as crew fork and crew replay do", async () => {
	const repo = new TestRepo().agent("worker");
	repo.workflow("fan", [{ id: "plan" }, { id: "left", dependsOn: ["plan"] }, { id: "right", dependsOn: ["plan"] }]);
	const client = await clients.connect(repo.dir);
	const started = await ok(client, "crew_run", { goal: "ship it", workflow: "fan" });
	const runId = String(started.runId);
	expect((await untilEnded(client, runId)).run.status).toBe("completed");

	const forked = await ok(client, "crew_fork", { runId, from: ["left"], session: "pi-7" });
	expect(forked).toMatchObject({
		of: runId,
		reused: ["plan", "right"],
		rerun: [expect.objectContaining({ taskId: "left" })],
	});
	const forkId = String(forked.runId);
	const fork = await untilEnded(client, forkId);
	expect(fork.run).toMatchObject({ status: "completed", forkedFrom: runId });
	expect(fork.tasks.map((t) => `${t.id}:${t.status}`)).toEqual(["plan:completed", "left:completed", "right:completed"]);

	const replayed = await ok(client, "crew_replay", { runId, session: "pi-7" });
	expect(replayed.of).toBe(runId);
	const replayId = String(replayed.runId);
	expect((await untilEnded(client, replayId)).run.status).toBe("completed");

	const callers = read(repo.dir, (reader) => [forkId, replayId].map((id) => reader.run(id).options.caller));
	expect(callers).toEqual([{ session: "pi-7" }, { session: "pi-7" }]);
	const mine = await ok(client, "crew_runs", { session: "pi-7" });
	expect((mine.runs as { id: string }[]).map((r) => r.id)).toEqual([replayId, forkId]);

	const refused = async (tool: string, args: Record<string, unknown>, message: string) => {
		const answer = await call(client, tool, args);
		expect(answer.isError, `${tool} ${JSON.stringify(args)}`).toBe(true);
		expect(answer.text).toContain(message);
	};
	const before = read(repo.dir, (reader) => reader.repo.runs().length);
	await refused("crew_fork", { runId, from: ["ghost"] }, "ghost");
	await refused("crew_fork", { runId, from: [] }, "from");
	await refused("crew_fork", { runId: "r-nosuch" }, "no run 'r-nosuch'");
	await refused("crew_fork", { runId: "../x" }, 'invalid run id "../x"');
	await refused("crew_replay", { runId: "r-nosuch" }, "no run 'r-nosuch'");
	await refused("crew_replay", { runId, liveOnDivergence: "yes" }, "liveOnDivergence");
	expect(read(repo.dir, (reader) => reader.repo.runs().length)).toBe(before);
});
