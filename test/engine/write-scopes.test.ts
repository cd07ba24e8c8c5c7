import { expect, test } from "vitest";
import { scopesOverlap } from "../../src/core/write-scopes.js";
import { TestRepo } from "../helpers.js";
import { runWorkflow } from "./engine-helpers.js";

test("write scopes overlap when one covers the other", () => {
	expect(scopesOverlap(["src"], ["src/api"])).toBe(true);
	expect(scopesOverlap(["src/api.ts"], ["src/api.ts"])).toBe(true);
	expect(scopesOverlap(["."], ["docs"])).toBe(true);
	expect(scopesOverlap(["src/api"], ["src/apiary"])).toBe(false);
	expect(scopesOverlap(["docs"], ["src"])).toBe(false);
});

test("in the shared checkout, tasks whose write scopes overlap never run at the same time", async () => {
	const repo = new TestRepo().agent("worker", "--sleep 300");
	repo.workflow("writers", [
		{ id: "a", extra: { writes: "src" } },
		{ id: "b", extra: { writes: "./src/api/" } },
		{ id: "c", extra: { writes: "docs" } },
		{ id: "d" },
	]);
	const outcome = await runWorkflow(repo, { workflow: "writers", concurrency: 4 });
	expect(outcome.status).toBe("completed");
	const span = (task: string) => {
		const start = repo.starts(task)[0]?.time ?? 0;
		const end = repo.ends(task)[0]?.time ?? 0;
		return [start, end] as const;
	};
	const [aStart, aEnd] = span("a");
	const [bStart, bEnd] = span("b");
	expect(bStart >= aEnd || aStart >= bEnd).toBe(true);
	// c and d share nothing with a: they ran beside it.
	const [cStart] = span("c");
	const [dStart] = span("d");
	expect(cStart).toBeLessThan(aEnd);
	expect(dStart).toBeLessThan(aEnd);
});

test("a write scope outside the repository is refused", async () => {
	const repo = new TestRepo().agent("worker");
	repo.workflow("bad", [{ id: "a", extra: { writes: "../elsewhere" } }]);
	await expect(runWorkflow(repo, { workflow: "bad" })).rejects.toThrow(/invalid write scope '\.\.\/elsewhere'/);
});
