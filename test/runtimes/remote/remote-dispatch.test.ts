// @module-tag redis
import { Redis } from "ioredis";
import { expect, test } from "vitest";
import { crew, read, TestRepo } from "../../helpers.js";
import { remoteFixture } from "./remote-fixture.js";

const remote = remoteFixture();

test("a coordinator that never hears its jobs' events settles each attempt from the job's stored state", async () => {
	const repo = remote.keep(new TestRepo());
	repo.agent("w", "--answer --sleep 300");
	repo.workflow("relay", [
		{ id: "a", role: "w" },
		{ id: "b", role: "w", dependsOn: ["a"] },
	]);
	await remote.worker("A", repo.dir);
	// The queue's Redis refuses stream reads: the coordinator's event subscription gets nothing
	// (no progress, no `completed`), while workers take and finish jobs as ever.
	const admin = new Redis(remote.url);
	await admin.call("ACL", "SETUSER", "default", "-xread");
	try {
		const run = await crew(repo.dir, ["run", "g", "--workflow", "relay", "--queue", remote.url, "--json"], 45_000);
		expect(run.code, `${run.stderr}\n${run.stdout}`).toBe(0);
		const { runId } = JSON.parse(run.stdout.trim().split("\n").at(-1) as string) as { runId: string };
		const { tasks } = read(repo.dir, (r) => r.status(runId));
		expect(tasks.map((t) => [t.id, t.status, t.attempts])).toEqual([
			["a", "completed", 1],
			["b", "completed", 1],
		]);
		expect(repo.ends().map((e) => e.task)).toEqual(["a", "b"]);
		expect((await crew(repo.dir, ["result", runId, "b"])).stdout).toMatch(/^answer: Do b for g/);
		// No worker event reached the coordinator: only the jobs' stored results did.
		const events = read(repo.dir, (r) => r.events(runId)).map((e) => e.type);
		expect(events.filter((type) => type.startsWith("worker."))).toEqual([]);
	} finally {
		await admin.call("ACL", "SETUSER", "default", "+xread");
		admin.disconnect();
	}
});
