import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { openReader } from "../../src/store/database.js";
import { crew, crewProcess, exitOf, gitRepo, type TestRepo, waitFor } from "../helpers.js";

/**
 * A run of one command agent in a new repository, steered once while it runs: a command agent
 * takes no messages, so the message is recorded, refused. Returns the repository and the run's id.
 */
async function steeredRun(message: string): Promise<{ repo: TestRepo; runId: string }> {
	const repo = gitRepo();
	const gates = join(repo.dir, "gates");
	mkdirSync(gates);
	repo.agent("waiter", `--gate ${gates}`);
	repo.workflow("one", [{ id: "a", role: "waiter" }]);
	const runner = crewProcess(repo.dir, ["run", "goal", "--workflow", "one"]);
	await waitFor("task a running", () => repo.starts("a")[0]);
	const [run] = JSON.parse((await crew(repo.dir, ["runs", "--json"])).stdout) as { id: string }[];
	const runId = run?.id as string;
	await crew(repo.dir, ["steer", runId, "a", message]);
	writeFileSync(join(gates, "a"), "");
	await exitOf(runner);
	return { repo, runId };
}

test("a bundle carries its run's messages, and imports into a store whose own attempts and messages took the same ids", async () => {
	const { repo: first, runId } = await steeredRun("look at the tests too");
	const bundle = join(first.dir, "run.json");
	expect((await crew(first.dir, ["export", runId, "-o", bundle])).code).toBe(0);

	// Another repository, whose store has an attempt and a message of its own.
	const { repo: second, runId: mine } = await steeredRun("a message of this store");

	const imported = await crew(second.dir, ["import", bundle]);
	expect(imported.code, imported.stderr).toBe(0);
	const db = openReader(join(second.dir, ".crew", "crew.db"));
	if (!db) throw new Error("no store");
	try {
		const texts = (runOf: string) =>
			(db.prepare("SELECT text FROM messages WHERE run_id = ?").pluck().all(runOf) as string[]).join("|");
		expect(texts(runId)).toBe("look at the tests too");
		expect(texts(mine)).toBe("a message of this store");
		const attempts = db.prepare("SELECT count(*) FROM attempts WHERE run_id = ?").pluck();
		expect([attempts.get(runId), attempts.get(mine)]).toEqual([1, 1]);
	} finally {
		db.close();
	}
});
