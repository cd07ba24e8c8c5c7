import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, test } from "vitest";
import type { TaskSpec } from "../../src/core/types.js";
import { ZERO_USAGE } from "../../src/core/usage.js";
import { type Db, openReader, openWriter } from "../../src/store/database.js";
import { HISTORY_RUNS, HistoryQueries } from "../../src/store/history-queries.js";
import { currentProcess } from "../../src/store/process-identity.js";
import { RunStore } from "../../src/store/run-store.js";
import { claimStore } from "../../src/store/store-origin.js";

const open: Db[] = [];
afterEach(() => {
	for (const db of open.splice(0)) db.close();
});

const lease = { holder: currentProcess(), cause: "dispatch" as const, staleAfterMs: 30_000 };

const task = (id: string, model?: string, dependsOn: string[] = []): TaskSpec => ({
	id,
	stepId: id,
	role: "worker",
	agent: { name: "worker", runtime: "pi", systemPrompt: "", ...(model ? { model } : {}) },
	text: `do ${id}`,
	dependsOn,
});

/** A run whose task `a` completes having used `tokens` (partial as asked), and whose `b` never starts. */
function pastRun(store: RunStore, id: string, tokens: number, partial = false): void {
	store.createRun({
		id,
		goal: "g",
		team: null,
		workflow: "w",
		options: { concurrency: 2, failure: "drain", roleLimits: {}, retries: 0, cwd: "/tmp" },
		tasks: [task("a", "m1"), task("b", undefined, ["a"])],
	});
	const l = store.acquireLease(id, lease);
	const attempt = store.attempts.start(l, "a", "pi", "m1");
	store.attempts.settle(l, {
		taskId: "a",
		attemptId: attempt.id,
		attemptStatus: "completed",
		taskStatus: "completed",
		cause: "settle",
		usage: { ...ZERO_USAGE, input: tokens - 10, output: 10, cost: tokens / 1e6, ...(partial ? { partial } : {}) },
	});
}

function freshStore(): { store: RunStore; db: Db; file: string; dir: string } {
	const dir = mkdtempSync(join(tmpdir(), "crew-history-"));
	const file = join(dir, "crew.db");
	const db = openWriter(file);
	open.push(db);
	return { store: new RunStore(db), db, file, dir };
}

function samplesOf(file: string) {
	const reader = openReader(file) as Db;
	open.push(reader);
	return new HistoryQueries(reader).samples();
}

test("the history is the completed tasks of the latest runs made here, with their agent, runtime, model and usage", () => {
	const { store, file } = freshStore();
	const made = Array.from({ length: HISTORY_RUNS + 5 }, (_, n) => `run-${String(n + 1).padStart(2, "0")}`);
	for (const [n, id] of made.entries()) pastRun(store, id, 100 * (n + 1));
	// Usage that is a lower bound says nothing reliable.
	pastRun(store, "partial", 5, true);

	const samples = samplesOf(file);
	const latest = made.slice(-(HISTORY_RUNS - 1));
	expect(samples.map((s) => s.runId).sort()).toEqual(latest);
	expect(samples.find((s) => s.runId === made.at(-1))).toMatchObject({
		workflow: "w",
		taskId: "a",
		stepId: "a",
		agent: "worker",
		runtime: "pi",
		model: "m1",
		plannedBy: null,
		tokens: 100 * made.length,
		costUsd: (100 * made.length) / 1e6,
	});
	for (const s of samples) {
		expect(s.durationMs).toBeGreaterThanOrEqual(0);
		expect(Number.isFinite(s.finishedAt)).toBe(true);
	}
});

test("runs of a store made elsewhere are records here, not this repository's history", () => {
	const { store, db, file, dir } = freshStore();
	claimStore(db, join(dir, "elsewhere"), new Date().toISOString());
	pastRun(store, "copied", 999);
	// The store found in another repository: what it holds was made there.
	claimStore(db, dir, new Date().toISOString());
	pastRun(store, "here", 100);
	expect(samplesOf(file).map((s) => s.runId)).toEqual(["here"]);
});
