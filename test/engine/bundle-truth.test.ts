import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { openReader } from "../../src/store/database.js";
import { crew, crewProcess, exitOf, gitRepo, waitFor } from "../helpers.js";

test("a bundle carries its run's messages, and imports into a store whose own attempts and messages took the same ids", async () => {
	const first = gitRepo();
	const gates = join(first.dir, "gates");
	mkdirSync(gates);
	first.agent("waiter", `--gate ${gates}`);
	first.workflow("one", [{ id: "a", role: "waiter" }]);
	const runner = crewProcess(first.dir, ["run", "goal", "--workflow", "one"]);
	await waitFor("task a running", () => first.starts("a")[0]);
	const [run] = JSON.parse((await crew(first.dir, ["runs", "--json"])).stdout) as { id: string }[];
	const runId = run?.id as string;
	// A command agent takes no messages: this one is recorded, refused.
	await crew(first.dir, ["steer", runId, "a", "look at the tests too"]);
	writeFileSync(join(gates, "a"), "");
	await exitOf(runner);
	const bundle = join(first.dir, "run.json");
	expect((await crew(first.dir, ["export", runId, "-o", bundle])).code).toBe(0);

	// Another repository, whose store has an attempt and a message of its own.
	const second = gitRepo();
	const secondGates = join(second.dir, "gates");
	mkdirSync(secondGates);
	second.agent("waiter", `--gate ${secondGates}`);
	second.workflow("one", [{ id: "a", role: "waiter" }]);
	const own = crewProcess(second.dir, ["run", "goal", "--workflow", "one"]);
	await waitFor("its task a running", () => second.starts("a")[0]);
	const [mine] = JSON.parse((await crew(second.dir, ["runs", "--json"])).stdout) as { id: string }[];
	await crew(second.dir, ["steer", mine?.id as string, "a", "a message of this store"]);
	writeFileSync(join(secondGates, "a"), "");
	await exitOf(own);

	const imported = await crew(second.dir, ["import", bundle]);
	expect(imported.code, imported.stderr).toBe(0);
	const db = openReader(join(second.dir, ".crew", "crew.db"));
	if (!db) throw new Error("no store");
	try {
		const texts = (runOf: string) =>
			(db.prepare("SELECT text FROM messages WHERE run_id = ?").pluck().all(runOf) as string[]).join("|");
		expect(texts(runId)).toBe("look at the tests too");
		expect(texts(mine?.id as string)).toBe("a message of this store");
		const attempts = db.prepare("SELECT count(*) FROM attempts WHERE run_id = ?").pluck();
		expect([attempts.get(runId), attempts.get(mine?.id)]).toEqual([1, 1]);
	} finally {
		db.close();
	}
});
