import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, test } from "vitest";
import type { TaskStatus } from "../../src/core/status.js";
import type { RunOptions, TaskSpec } from "../../src/core/types.js";
import { ZERO_USAGE } from "../../src/core/usage.js";
import { type Db, openReader, openWriter } from "../../src/store/database.js";
import { InsightQueries, insightWindow } from "../../src/store/insight-queries.js";
import type { Lease } from "../../src/store/lease.js";
import { currentProcess } from "../../src/store/process-identity.js";
import { RunStore } from "../../src/store/run-store.js";
import { claimStore } from "../../src/store/store-origin.js";

const open: Db[] = [];
afterEach(() => {
	for (const db of open.splice(0)) db.close();
});

const OPTIONS: RunOptions = { concurrency: 1, failure: "drain", roleLimits: {}, retries: 1, cwd: "/tmp" };
const NOW = Date.parse("2025-03-10T12:00:00.000Z");

/** A step of a past run: its agent and model, and each of its attempts in turn; `left`, how one that never ran ended. */
interface Step {
	readonly id: string;
	readonly agent: string;
	readonly model?: string;
	readonly tries: readonly Try[];
	readonly left?: "skipped" | "cancelled";
}

/** An attempt: how long it ran, what it used, and how it left its task (`retry`: queued again). */
interface Try {
	readonly ms: number;
	readonly tokens: number;
	readonly cost: number;
	readonly ends: TaskStatus | "retry" | "still-running" | "lost";
	/** What its attempt's failure said. */
	readonly error?: string;
}

/**
 * A store written through RunStore on a clock the test moves, as a runner writes it: each run is
 * created at its time, its steps' attempts run one after another, and the run ends as told.
 */
class PastRuns {
	readonly store: RunStore;
	readonly db: Db;
	readonly dir: string;
	clock = 0;

	constructor() {
		this.dir = mkdtempSync(join(tmpdir(), "crew-insights-"));
		this.db = openWriter(join(this.dir, "crew.db"));
		open.push(this.db);
		this.store = new RunStore(this.db, { now: () => this.clock });
	}

	run(
		id: string,
		workflow: string,
		at: string,
		steps: readonly Step[],
		ends: "completed" | "failed" | "cancelled" | "running",
		options: Partial<RunOptions> = {},
		before: (lease: Lease) => void = () => {},
	): void {
		this.clock = Date.parse(at);
		const tasks = steps.map(
			(s): TaskSpec => ({
				id: s.id,
				stepId: s.id,
				role: s.agent,
				agent: { name: s.agent, runtime: "pi", systemPrompt: "", ...(s.model ? { model: s.model } : {}) },
				text: `do ${s.id}`,
				dependsOn: [],
			}),
		);
		this.store.createRun({ id, goal: "g", team: null, workflow, options: { ...OPTIONS, ...options }, tasks });
		const lease = this.store.acquireLease(id, { holder: currentProcess(), cause: "dispatch", staleAfterMs: 30_000 });
		before(lease);
		for (const step of steps) this.#play(lease, step);
		if (ends !== "running") this.store.finishRun(lease, ends, "settle");
	}

	#play(lease: Lease, step: Step): void {
		for (const t of step.tries) {
			const attempt = this.store.attempts.start(lease, step.id, "pi", step.model);
			const usage = { ...ZERO_USAGE, input: t.tokens, cost: t.cost };
			this.clock += t.ms;
			if (t.ends === "still-running") {
				this.store.attempts.usage(lease, attempt.id, step.id, usage);
			} else if (t.ends === "lost") {
				this.store.attempts.usage(lease, attempt.id, step.id, usage);
				this.store.attempts.lose(lease, [{ id: attempt.id, taskId: step.id }], "runner gone");
			} else {
				this.store.attempts.settle(lease, {
					taskId: step.id,
					attemptId: attempt.id,
					attemptStatus: t.ends === "retry" ? "failed" : t.ends,
					taskStatus: t.ends === "retry" ? "queued" : t.ends,
					cause: t.ends === "retry" ? "backoff" : "settle",
					usage,
					...(t.error ? { error: t.error } : {}),
				});
			}
		}
		if (step.left) {
			const cause = step.left === "skipped" ? "dependency-failed" : "cancel";
			this.store.transitionTasks(lease, [{ taskId: step.id, to: step.left, cause }]);
		}
	}

	insights(days: number) {
		const reader = openReader(join(this.dir, "crew.db")) as Db;
		open.push(reader);
		return new InsightQueries(reader).read(insightWindow(NOW, days));
	}
}

const ok = (ms: number, tokens: number, cost: number): Try => ({ ms, tokens, cost, ends: "completed" });

/**
 * Costs are sums of powers of two, so that every sum is exact. In the window of 30 days (from
 * 2025-02-09): runs r1, r2, r3, r4, r5 and the fork. Outside it: a run before the window, an
 * imported run, a replay, and the fork's inherited task.
 */
function pastRuns(): PastRuns {
	const past = new PastRuns();
	// Made in another repository's store, then found here: a record, not this repository's history.
	claimStore(past.db, join(past.dir, "elsewhere"), "2025-03-01T00:00:00.000Z");
	past.run(
		"imported",
		"review",
		"2025-03-08T08:00:00.000Z",
		[{ id: "draft", agent: "writer", model: "m-1", tries: [ok(100, 9999, 2)] }],
		"completed",
	);
	claimStore(past.db, past.dir, "2025-03-01T00:00:00.000Z");

	past.run(
		"old",
		"review",
		"2025-01-15T10:00:00.000Z",
		[{ id: "draft", agent: "writer", model: "m-1", tries: [ok(8000, 4000, 1)] }],
		"completed",
	);
	past.run(
		"r1",
		"review",
		"2025-03-08T09:00:00.000Z",
		[
			{ id: "draft", agent: "writer", model: "m-1", tries: [ok(2000, 1000, 0.25)] },
			{ id: "check", agent: "checker", tries: [{ ms: 500, tokens: 200, cost: 0.125, ends: "failed" }] },
		],
		"failed",
	);
	past.run(
		"r2",
		"review",
		"2025-03-09T09:00:00.000Z",
		[
			{
				id: "draft",
				agent: "writer",
				model: "m-1",
				tries: [{ ms: 1000, tokens: 300, cost: 0.125, ends: "retry" }, ok(4000, 700, 0.25)],
			},
			{ id: "check", agent: "checker", tries: [ok(1000, 100, 0.0625)] },
		],
		"completed",
	);
	// Answered from r2's records: no agent ran.
	past.run(
		"replay",
		"review",
		"2025-03-09T10:00:00.000Z",
		[{ id: "draft", agent: "writer", model: "m-1", tries: [ok(10, 77, 0.5)] }],
		"completed",
		{ replay: { of: "r2", live: false } },
	);
	// Takes r2's draft and archive as they were: they ran (and spent) in r2. Archive's agent and
	// model did nothing else in the window, so they have no row.
	const inherited = (taskId: string, cost: number) => ({
		taskId,
		outcome: { runId: "r2", taskId, usage: { ...ZERO_USAGE, input: 1000, cost } },
		resultChars: 0,
		startedAt: "2025-03-09T09:00:01.000Z",
		finishedAt: "2025-03-09T09:00:05.000Z",
		excerpt: null,
		evidence: null,
		artifacts: [],
	});
	past.run(
		"fork",
		"review",
		"2025-03-09T12:00:00.000Z",
		[
			{ id: "draft", agent: "writer", model: "m-1", tries: [] },
			{ id: "archive", agent: "archivist", model: "m-9", tries: [] },
			{ id: "check", agent: "checker", tries: [ok(1500, 100, 0.0625)] },
		],
		"completed",
		{},
		() => past.store.forks.record("fork", "r2", [inherited("draft", 0.375), inherited("archive", 0.5)]),
	);
	// Starts a second before midnight: its build's tokens are the 9th's, its vet's the 10th's.
	past.run(
		"r3",
		"ship",
		"2025-03-09T23:59:59.000Z",
		[
			{ id: "build", agent: "writer", model: "m-2", tries: [ok(3000, 50, 0.5)] },
			{ id: "vet", agent: "checker", tries: [{ ms: 100, tokens: 10, cost: 0.0625, ends: "needs_attention" }] },
			{ id: "publish", agent: "publisher", model: "m-2", tries: [], left: "skipped" },
		],
		"completed",
	);
	past.run(
		"r4",
		"ship",
		"2025-03-10T08:00:00.000Z",
		[
			{ id: "build", agent: "writer", model: "m-2", tries: [{ ms: 200, tokens: 20, cost: 0.25, ends: "cancelled" }] },
			{ id: "vet", agent: "checker", tries: [], left: "cancelled" },
			{ id: "publish", agent: "publisher", model: "m-2", tries: [], left: "cancelled" },
		],
		"cancelled",
	);
	past.run(
		"r5",
		"ship",
		"2025-03-10T11:00:00.000Z",
		[
			{ id: "vet", agent: "checker", tries: [{ ms: 300, tokens: 10, cost: 0.0625, ends: "lost" }] },
			{
				id: "build",
				agent: "writer",
				model: "m-2",
				tries: [{ ms: 50, tokens: 5, cost: 0.0625, ends: "still-running" }],
			},
		],
		"running",
	);
	return past;
}

/** The figures of a row of a table: ended and completed, their median time, and spending in all and per completed. */
const figures = (ended: number, completed: number, medianMs: number | null, tokens: number, costUsd: number) => ({
	ended,
	completed,
	successRate: ended === 0 ? null : completed / ended,
	medianMs,
	tokens,
	costUsd,
	tokensPerCompleted: completed === 0 ? null : tokens / completed,
	costPerCompleted: completed === 0 ? null : costUsd / completed,
	specCheckFailures: 0,
});

test("insights count the runs made here in the window by UTC day, each attempt's tokens and cost on the day it started", () => {
	const insights = pastRuns().insights(30);
	expect(insights.window).toEqual({ days: 30, from: "2025-02-09", to: "2025-03-10" });
	expect(insights.daily).toHaveLength(30);
	expect(insights.daily[0]).toEqual({ day: "2025-02-09", runs: 0, tokens: 0, costUsd: 0 });
	expect(insights.daily.filter((d) => d.runs > 0 || d.tokens > 0 || d.costUsd > 0)).toEqual([
		{ day: "2025-03-08", runs: 1, tokens: 1200, costUsd: 0.375 },
		{ day: "2025-03-09", runs: 3, tokens: 1250, costUsd: 1 },
		{ day: "2025-03-10", runs: 2, tokens: 45, costUsd: 0.4375 },
	]);
});

test("each workflow's runs, each agent's and each model's tasks: ended, success rate, median time of the completed ones, spending in all and per completed", () => {
	const insights = pastRuns().insights(30);
	// A run ends completed, failed or cancelled; r5 still runs.
	expect(insights.workflows).toEqual([
		{ workflow: "ship", ...figures(2, 1, 3100, 95, 0.9375) },
		{ workflow: "review", ...figures(3, 2, 3750, 2400, 0.875) },
	]);
	// A task ends completed, failed, cancelled or needs_attention once it has run: a task cancelled
	// or skipped before it ran, an interrupted one and a running one have not ended.
	expect(insights.agents).toEqual([
		{ agent: "writer", ...figures(4, 3, 3000, 2075, 1.4375) },
		{ agent: "checker", ...figures(4, 2, 1250, 420, 0.375) },
		{ agent: "publisher", ...figures(0, 0, null, 0, 0) },
	]);
	expect(insights.models).toEqual([
		{ model: "m-2", ...figures(2, 1, 3000, 75, 0.8125) },
		{ model: "m-1", ...figures(2, 2, 3000, 2000, 0.625) },
		{ model: null, ...figures(4, 2, 1250, 420, 0.375) },
	]);
	const all = (rows: readonly { tokens: number; costUsd: number }[]) => ({
		tokens: rows.reduce((n, r) => n + r.tokens, 0),
		costUsd: rows.reduce((n, r) => n + r.costUsd, 0),
	});
	const days = all(insights.daily);
	for (const table of [insights.workflows, insights.agents, insights.models]) expect(all(table)).toEqual(days);
});

test("the slowest steps by median time of their completed tasks and the costliest by cost per completed task, steps that never completed left out", () => {
	const insights = pastRuns().insights(30);
	const step = (workflow: string, id: string) => ({ workflow, step: id });
	expect(insights.slowestSteps).toEqual([
		{ ...step("review", "draft"), ...figures(2, 2, 3000, 2000, 0.625) },
		{ ...step("ship", "build"), ...figures(2, 1, 3000, 75, 0.8125) },
		{ ...step("review", "check"), ...figures(3, 2, 1250, 400, 0.25) },
	]);
	expect(insights.costliestSteps.map((s) => [s.workflow, s.step, s.costPerCompleted])).toEqual([
		["ship", "build", 0.8125],
		["review", "draft", 0.3125],
		["review", "check", 0.125],
	]);
});

test("a longer window takes in older runs, and only ten steps are ranked", () => {
	const past = pastRuns();
	const year = past.insights(365);
	expect(year.window).toEqual({ days: 365, from: "2024-03-11", to: "2025-03-10" });
	expect(year.daily).toHaveLength(365);
	expect(year.daily.find((d) => d.day === "2025-01-15")).toEqual({
		day: "2025-01-15",
		runs: 1,
		tokens: 4000,
		costUsd: 1,
	});
	expect(year.workflows.find((w) => w.workflow === "review")).toEqual({
		workflow: "review",
		...figures(4, 3, 6000, 6400, 1.875),
	});
	expect(past.insights(1).workflows).toEqual([{ workflow: "ship", ...figures(1, 0, null, 35, 0.375) }]);

	const many = Array.from(
		{ length: 12 },
		(_, n): Step => ({
			id: `s${String(n).padStart(2, "0")}`,
			agent: "writer",
			tries: [ok(1000 * (n + 1), 10, 0.0625 * (12 - n))],
		}),
	);
	past.run("wide", "wide", "2025-03-10T11:30:00.000Z", many, "completed");
	const ranked = past.insights(1);
	expect(ranked.slowestSteps.map((s) => s.step)).toEqual([
		"s11",
		"s10",
		"s09",
		"s08",
		"s07",
		"s06",
		"s05",
		"s04",
		"s03",
		"s02",
	]);
	expect(ranked.costliestSteps.map((s) => s.step)).toEqual([
		"s00",
		"s01",
		"s02",
		"s03",
		"s04",
		"s05",
		"s06",
		"s07",
		"s08",
		"s09",
	]);
});

test("each workflow's and each agent's attempts that failed their spec checks are counted, retried or not", () => {
	const past = new PastRuns();
	const failedCheck = (ends: Try["ends"]): Try => ({
		ms: 100,
		tokens: 1,
		cost: 0,
		ends,
		error: "the spec check failed: A1 of spec fix-spec: it exited 1, not 0",
	});
	past.run(
		"s1",
		"held",
		"2025-03-10T09:00:00.000Z",
		[
			{ id: "work", agent: "writer", tries: [failedCheck("retry"), failedCheck("failed")] },
			{ id: "other", agent: "checker", tries: [{ ms: 100, tokens: 1, cost: 0, ends: "failed", error: "exit code 1" }] },
		],
		"failed",
	);
	past.run(
		"s2",
		"held",
		"2025-03-10T10:00:00.000Z",
		[{ id: "work", agent: "writer", tries: [failedCheck("retry"), ok(100, 1, 0)] }],
		"completed",
	);
	const insights = past.insights(30);
	expect(insights.workflows.map((w) => [w.workflow, w.specCheckFailures])).toEqual([["held", 3]]);
	expect(insights.agents.map((a) => [a.agent, a.specCheckFailures]).sort()).toEqual([
		["checker", 0],
		["writer", 3],
	]);
});

test("a dry run, which started no agent, is not counted: neither its run nor its tasks", () => {
	const past = new PastRuns();
	past.run(
		"d1",
		"held",
		"2025-03-10T09:00:00.000Z",
		[{ id: "work", agent: "writer", tries: [ok(1, 0, 0)] }],
		"completed",
		{
			runtime: "dry-run",
		},
	);
	const insights = past.insights(30);
	expect(insights.workflows).toEqual([]);
	expect(insights.agents).toEqual([]);
	expect(insights.daily.reduce((n, d) => n + d.runs, 0)).toBe(0);
});

test("a store without runs in the window gives every day at zero and empty tables", () => {
	const past = new PastRuns();
	past.run(
		"r",
		"review",
		"2025-01-01T00:00:00.000Z",
		[{ id: "a", agent: "writer", tries: [ok(10, 1, 0.5)] }],
		"completed",
	);
	const insights = past.insights(7);
	expect(insights.daily.map((d) => d.day)).toEqual([
		"2025-03-04",
		"2025-03-05",
		"2025-03-06",
		"2025-03-07",
		"2025-03-08",
		"2025-03-09",
		"2025-03-10",
	]);
	expect(insights.daily.every((d) => d.runs === 0 && d.tokens === 0 && d.costUsd === 0)).toBe(true);
	expect(insights).toMatchObject({ workflows: [], agents: [], models: [], slowestSteps: [], costliestSteps: [] });
});
