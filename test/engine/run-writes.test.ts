// @slow: another process holds the store's write lock for 10 s, and past a runner's lease, on purpose
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, expect, test } from "vitest";
import type { EventRecord } from "../../src/core/records.js";
import { cancelLiveRuns, isAlive, ROOT, read, TestRepo, waitFor } from "../helpers.js";
import { runWorkflow } from "./engine-helpers.js";

const LOCKER = join(ROOT, "test", "fixtures", "store-locker.mjs");

const lockers: ChildProcess[] = [];
const repos: TestRepo[] = [];

afterEach(async () => {
	for (const locker of lockers.splice(0)) if (locker.exitCode === null) locker.kill("SIGKILL");
	for (const repo of repos.splice(0)) await cancelLiveRuns(repo.dir);
});

/** Another process holding the store's write lock for `holdMs`; resolves with when it took and let go of it. */
function holdLock(repo: TestRepo, holdMs: number): { locked: Promise<number>; released: Promise<number> } {
	const child = spawn(process.execPath, [LOCKER, join(repo.dir, ".crew", "crew.db"), String(holdMs)], {
		stdio: ["ignore", "pipe", "inherit"],
	});
	lockers.push(child);
	let out = "";
	const said = (word: string) =>
		new Promise<number>((resolve, reject) => {
			const look = () => {
				const match = new RegExp(`${word} (\\d+)`).exec(out);
				if (match) resolve(Number(match[1]));
			};
			child.stdout?.on("data", (chunk: Buffer) => {
				out += chunk.toString();
				look();
			});
			child.once("exit", () => {
				look();
				reject(new Error(`the locker exited without saying '${word}': ${out}`));
			});
		});
	return { locked: said("locked"), released: said("released") };
}

function outputOf(events: readonly EventRecord[], taskId: string): string {
	return events
		.filter((e) => e.type === "worker.output" && e.taskId === taskId)
		.map((e) => `${String(e.data.text)}\n`)
		.join("");
}

test("another process holding the store's write lock for 10 s does not fail a run: it completes, each task once, every event in order", async () => {
	const repo = new TestRepo();
	repos.push(repo);
	repo
		.agent("talker", "--chatty --chatty-ms 3000")
		.agent("stuck-once", "--tick-forever-first")
		.workflow("busy", [
			{ id: "a", role: "talker" },
			{ id: "b", role: "talker" },
			{ id: "late", role: "talker", dependsOn: ["a", "b"] },
			// Its first attempt prints until its 2 s limit ends it: that limit must act while the lock is held.
			{ id: "timed", role: "stuck-once", extra: { timeout: "2s", retries: "1" } },
		]);
	const running = runWorkflow(repo, { workflow: "busy" });
	await waitFor("a, b and timed to start", () => repo.starts().length >= 3);
	const lock = holdLock(repo, 10_000);
	const locked = await lock.locked;
	const outcome = await running;
	const released = await lock.released;

	expect(outcome.runError).toBeNull();
	expect(outcome.status).toBe("completed");
	for (const task of outcome.tasks.values()) expect(task.status).toBe("completed");
	for (const id of ["a", "b", "late"]) expect(repo.starts(id)).toHaveLength(1);
	expect(repo.starts("timed").map((s) => s.attempt)).toEqual([1, 2]);

	// The lock was really in the way: a and b ended while it was held, and were recorded after.
	for (const id of ["a", "b"]) {
		const end = repo.ends(id)[0]?.time ?? 0;
		expect(end).toBeGreaterThan(locked);
		expect(end).toBeLessThan(released);
		const completed = outcome.events.find((e) => e.type === "task.completed" && e.taskId === id);
		expect(Date.parse(completed?.time ?? "")).toBeGreaterThanOrEqual(released - 1000);
	}
	// The runner's event loop kept turning: the wall-clock limit ended the first attempt of timed
	// about 2 s in, long before the lock was let go.
	const ticks = repo.entries().filter((e) => e.event === "tick" && e.task === "timed" && e.attempt === 1);
	expect(ticks.length).toBeGreaterThan(0);
	expect(Math.max(...ticks.map((t) => t.time))).toBeLessThan(released - 4000);

	// Every event is there once, in order, and each task's output is whole and before its end.
	expect(outcome.events.map((e) => e.seq)).toEqual(outcome.events.map((_, i) => i + 1));
	for (const id of ["a", "b", "late"]) {
		const own = outcome.events.filter((e) => e.taskId === id).map((e) => e.type);
		expect(own[0]).toBe("task.running");
		expect(own.at(-1)).toBe("task.completed");
		expect(own.filter((t) => t === "task.completed")).toHaveLength(1);
		const result = readFileSync(join(repo.dir, ".crew", "runs", outcome.runId, "tasks", id, "result.md"), "utf8");
		expect(outputOf(outcome.events, id)).toBe(result);
	}
});

test("a workflow script's own records made while another process holds the write lock are kept, in order, once it lets go", async () => {
	const repo = new TestRepo();
	repos.push(repo);
	const go = join(repo.dir, "locked");
	repo.agent("talker", "--chatty --chatty-ms 2000");
	repo.writeFile(
		".crew/workflows/notes.workflow.ts",
		`import { existsSync } from "node:fs";
import type { WorkflowContext } from "crew/script";
export default async (ctx: WorkflowContext) => {
	ctx.log("first");
	const talked = ctx.agent({ role: "talker", prompt: "Talk" });
	while (!existsSync(${JSON.stringify(go)})) await new Promise((resolve) => setTimeout(resolve, 50));
	ctx.log("while locked");
	const at = ctx.now();
	await talked;
	ctx.log("last");
	return { at };
};
`,
	);
	const running = runWorkflow(repo, { workflow: "notes" });
	await waitFor("the talker to start", () => repo.starts().length === 1);
	const lock = holdLock(repo, 6000);
	await lock.locked;
	writeFileSync(go, "");
	const outcome = await running;
	await lock.released;

	expect(outcome.runError).toBeNull();
	expect(outcome.status).toBe("completed");
	expect(outcome.events.map((e) => e.seq)).toEqual(outcome.events.map((_, i) => i + 1));
	const mine = outcome.events.filter((e) => e.type.startsWith("script.") || e.type === "task.completed");
	expect(mine.map((e) => (e.type === "script.log" ? `log ${String(e.data.message)}` : e.type))).toEqual([
		"log first",
		"script.tasks",
		"log while locked",
		"script.value",
		"task.completed",
		"log last",
		"script.completed",
	]);
	const result = JSON.parse(readFileSync(join(repo.dir, ".crew", "runs", outcome.runId, "result.json"), "utf8"));
	expect(result.at).toBe(mine[3]?.data.value);
});

test("a runner gives up once the write lock is held past the time its lease lasts without a heartbeat: its workers end then, and the run is recorded failed once the lock is let go", async () => {
	const repo = new TestRepo();
	repos.push(repo);
	repo.agent("talker", "--tick-forever-first").workflow("long", [{ id: "a", role: "talker" }]);
	const engine = { staleAfterMs: 1500, cleanupMs: 20_000 };
	let runId = "";
	const running = runWorkflow(repo, { workflow: "long" }, { engine, onRunId: (id) => (runId = id) });
	const failure = running.then(
		() => undefined,
		(error: unknown) => error as Error,
	);
	await waitFor("a to start", () => repo.starts("a").length === 1);
	const lock = holdLock(repo, 8000);
	await lock.locked;
	const error = await failure;
	const released = await lock.released;

	const reason =
		/another process has held the store's write lock for .*, past the 1.5s a lease lasts without a heartbeat/;
	expect(error?.message).toMatch(reason);
	// It gave up while the lock was still held: its worker was ended then, seconds before the lock was let go.
	const ticks = repo.entries().filter((e) => e.event === "tick" && e.task === "a");
	expect(Math.max(...ticks.map((t) => t.time))).toBeLessThan(released - 3000);
	const agent = repo.starts("a")[0];
	expect(agent && isAlive(agent.pid)).toBe(false);
	const run = read(repo.dir, (reader) => reader.run(runId));
	expect(run.status).toBe("failed");
	expect(run.error).toMatch(reason);
});

test("a runner whose run another runner took over stops at its next write: its agents end and it records nothing more", async () => {
	const repo = new TestRepo();
	repos.push(repo);
	repo.agent("talker", "--tick-forever-first").workflow("long", [{ id: "a", role: "talker" }]);
	const failure = runWorkflow(repo, { workflow: "long" }).then(
		() => undefined,
		(error: unknown) => error as Error,
	);
	await waitFor("a to start", () => repo.starts("a").length === 1);
	const db = new Database(join(repo.dir, ".crew", "crew.db"));
	// What another runner's taking of the lease does to the run's record (that runner is gone since).
	const { last } = db
		.prepare("UPDATE runs SET epoch = epoch + 1, lease_pid = 999999999 RETURNING last_seq AS last")
		.get() as { last: number };
	const error = await failure;

	expect(error?.message).toMatch(/was taken over by another runner/);
	const agent = repo.starts("a")[0];
	expect(agent && isAlive(agent.pid)).toBe(false);
	expect(db.prepare("SELECT max(seq) AS seq FROM events").get()).toEqual({ seq: last });
	db.close();
});
