import { join } from "node:path";
import { expect, test } from "vitest";
import { openReader } from "../../src/store/database.js";
import { HistoryQueries } from "../../src/store/history-queries.js";
import { MetricQueries } from "../../src/store/metric-queries.js";
import { crew, gitRepo, lastJson, type TestRepo } from "../helpers.js";

/** A repository that ran a two-task workflow once: the run a fork or replay is made of. */
async function ranDuo(): Promise<{ repo: TestRepo; source: string }> {
	const repo = gitRepo();
	repo.agent("worker");
	repo.workflow("duo", [
		{ id: "a", role: "worker" },
		{ id: "b", role: "worker", dependsOn: ["a"] },
	]);
	const source = lastJson((await crew(repo.dir, ["run", "goal", "--workflow", "duo", "--json"])).stdout).runId;
	return { repo, source };
}

test("a fork's reused tasks, which ran in the run it came from, are no second sample of estimates or task durations", async () => {
	const { repo, source } = await ranDuo();
	const fork = lastJson((await crew(repo.dir, ["fork", source, "--from", "b", "--json"])).stdout).runId;
	const db = openReader(join(repo.dir, ".crew", "crew.db"));
	if (!db) throw new Error("no store");
	try {
		const samples = new HistoryQueries(db)
			.samples()
			.map((s) => `${s.runId === source ? "source" : "fork"}:${s.taskId}`);
		expect(samples.sort()).toEqual(["fork:b", "source:a", "source:b"]);
		expect(fork).not.toBe(source);
		expect(new MetricQueries(db).taskDurations()).toHaveLength(3);
	} finally {
		db.close();
	}
});

test("a replay's tasks, answered from the run it replays, are no sample of estimates or task durations", async () => {
	const { repo, source } = await ranDuo();
	const replay = lastJson((await crew(repo.dir, ["replay", source, "--json"])).stdout).runId;
	const db = openReader(join(repo.dir, ".crew", "crew.db"));
	if (!db) throw new Error("no store");
	try {
		const samples = new HistoryQueries(db)
			.samples()
			.map((s) => `${s.runId === source ? "source" : s.runId}:${s.taskId}`);
		expect(samples.sort()).toEqual(["source:a", "source:b"]);
		expect(replay).not.toBe(source);
		expect(new MetricQueries(db).taskDurations()).toHaveLength(2);
	} finally {
		db.close();
	}
});
