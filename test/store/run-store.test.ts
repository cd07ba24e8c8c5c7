// @module-tag node22
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, test } from "vitest";
import { CrewError } from "../../src/core/errors.js";
import type { Usage } from "../../src/core/usage.js";
import { ArtifactFiles } from "../../src/store/artifact-files.js";
import { type Db, openReader, openWriter } from "../../src/store/database.js";
import type { Lease } from "../../src/store/lease.js";
import { MIGRATIONS } from "../../src/store/migrations.js";
import { currentProcess } from "../../src/store/process-identity.js";
import { RunQueries } from "../../src/store/run-queries.js";
import { RunStore } from "../../src/store/run-store.js";
import { taskSpec } from "./view-fixture.js";

const open: Db[] = [];
afterEach(() => {
	for (const db of open.splice(0)) db.close();
});

function freshStore(): { store: RunStore; file: string; dir: string } {
	const dir = mkdtempSync(join(tmpdir(), "crew-store-"));
	const file = join(dir, "crew.db");
	const db = openWriter(file);
	open.push(db);
	return { store: new RunStore(db), file, dir };
}

const task = taskSpec;

function createRun(store: RunStore, id = "run-1"): void {
	store.createRun({
		id,
		goal: "g",
		team: null,
		workflow: "w",
		options: { concurrency: 2, failure: "drain", roleLimits: {}, retries: 0, cwd: "/tmp" },
		tasks: [task("a"), task("b", "a")],
	});
}

const lease = { holder: currentProcess(), cause: "dispatch" as const, staleAfterMs: 30_000 };

function complete(store: RunStore, l: Lease, attemptId: number): void {
	store.attempts.settle(l, {
		taskId: "a",
		attemptId,
		attemptStatus: "completed",
		taskStatus: "completed",
		cause: "settle",
	});
}

/** The identity of a process that has exited: a runner that died. */
function deadHolder() {
	const child = spawnSync(process.execPath, ["-e", "console.log(process.pid)"], { encoding: "utf8" });
	return { pid: Number(child.stdout.trim()), host: hostname(), startTime: "1" };
}

test("the store uses WAL, foreign keys and records its migrations", () => {
	const { file } = freshStore();
	const db = openWriter(file);
	open.push(db);
	expect(db.pragma("journal_mode", { simple: true })).toBe("wal");
	expect(db.pragma("foreign_keys", { simple: true })).toBe(1);
	expect(db.prepare("SELECT version FROM migrations").all()).toEqual(MIGRATIONS.map(({ version }) => ({ version })));
});

test("a status change, its attempt record and its event commit together or not at all", () => {
	const { store } = freshStore();
	createRun(store);
	const l = store.acquireLease("run-1", lease);
	const attempt = store.attempts.start(l, "a", "dry-run");
	const seqBefore = store.queries.eventsAfter("run-1", 0).length;
	expect(() =>
		store.attempts.settle(l, {
			taskId: "a",
			attemptId: attempt.id,
			attemptStatus: "completed",
			taskStatus: "skipped",
			cause: "settle",
		}),
	).toThrow(/cannot go from running to skipped/);
	expect(store.queries.attempts("run-1")[0]?.status).toBe("running");
	expect(store.queries.eventsAfter("run-1", 0)).toHaveLength(seqBefore);
	complete(store, l, attempt.id);
	const events = store.queries.eventsAfter("run-1", 0);
	expect(events.map((e) => e.type)).toEqual(["run.created", "run.running", "task.running", "task.completed"]);
	expect(events.map((e) => e.seq)).toEqual([1, 2, 3, 4]);
	expect(store.queries.attempts("run-1")[0]?.status).toBe("completed");
	expect(store.queries.findTask("run-1", "a")).toMatchObject({ status: "completed", attempts: 1 });
});

test("a completed task cannot be started again", () => {
	const { store } = freshStore();
	createRun(store);
	const l = store.acquireLease("run-1", lease);
	const attempt = store.attempts.start(l, "a", "dry-run");
	complete(store, l, attempt.id);
	expect(() => store.attempts.start(l, "a", "dry-run")).toThrow(/cannot go from completed to running/);
	expect(() => store.transitionTasks(l, [{ taskId: "a", to: "queued", cause: "resume" }])).toThrow(CrewError);
});

test("event sequence numbers increase per run", () => {
	const { store } = freshStore();
	createRun(store, "run-1");
	createRun(store, "run-2");
	store.acquireLease("run-2", lease);
	expect(store.queries.eventsAfter("run-1", 0).map((e) => e.seq)).toEqual([1]);
	expect(store.queries.eventsAfter("run-2", 0).map((e) => e.seq)).toEqual([1, 2]);
});

test("a live runner's lease cannot be taken", () => {
	const { store } = freshStore();
	createRun(store);
	store.acquireLease("run-1", lease);
	expect(() => store.acquireLease("run-1", lease)).toThrow(/already being run by pid/);
});

test("a runner whose lease was taken over cannot write", () => {
	const { store } = freshStore();
	createRun(store);
	const old = store.acquireLease("run-1", { ...lease, holder: deadHolder() });
	const fresh = store.acquireLease("run-1", { ...lease, cause: "resume" });
	expect(fresh.epoch).toBe(old.epoch + 1);
	expect(() => store.attempts.start(old, "a", "dry-run")).toThrow(/taken over by another runner/);
	expect(() => store.heartbeat(old)).toThrow(/taken over/);
	expect(store.queries.attempts("run-1")).toEqual([]);
	const types = store.queries.eventsAfter("run-1", 0).map((e) => e.type);
	expect(types).toEqual(["run.created", "run.running", "run.interrupted", "run.running"]);
	store.attempts.start(fresh, "a", "dry-run");
});

test("a read-only connection reads what the writer committed", () => {
	const { store, file } = freshStore();
	createRun(store);
	const reader = openReader(file) as Db;
	open.push(reader);
	const queries = new RunQueries(reader);
	expect(queries.snapshot("run-1").tasks.map((t) => t.status)).toEqual(["queued", "queued"]);
	expect(() => reader.prepare("DELETE FROM runs").run()).toThrow(/readonly/);
});

test("artifact names that could leave the run folder are refused", () => {
	const { dir } = freshStore();
	const files = new ArtifactFiles(join(dir, "runs"));
	for (const bad of ["../x", "/etc/passwd", "a/../../b", "a//b", ".hidden", "a/./b", "", "tasks/a b"]) {
		expect(() => files.path("run-1", bad), bad).toThrow(/invalid artifact name/);
	}
	expect(() => files.path("../run", "x")).toThrow(/invalid run id/);
	const record = files.write("run-1", "a", "tasks/a/result.md", "result", "hello");
	expect(record).toMatchObject({ path: "tasks/a/result.md", size: 5 });
	expect(record.sha256).toBe("2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824");
	expect(files.read("run-1", "tasks/a/result.md")).toBe("hello");
});

test("a file that is not a crew store gives an error naming the file", () => {
	const dir = mkdtempSync(join(tmpdir(), "crew-store-"));
	const file = join(dir, "crew.db");
	writeFileSync(file, "this is not a database, just some text long enough to look like a header".repeat(20));
	expect(() => openWriter(file)).toThrow(new RegExp(`cannot use the crew store ${file}`));
});

test("a batch commits its changes together; a change that fails inside leaves no trace", () => {
	const dir = mkdtempSync(join(tmpdir(), "crew-store-"));
	const db = openWriter(join(dir, "crew.db"));
	open.push(db);
	const heard: string[] = [];
	const store = new RunStore(db, { onEvent: (_run, event) => heard.push(event.type) });
	createRun(store);
	const l = store.acquireLease("run-1", lease);
	heard.length = 0;
	store.batch(() => {
		store.attempts.start(l, "a", "dry-run");
		expect(() => store.attempts.start(l, "b", "dry-run")).not.toThrow();
		expect(() => store.transitionTasks(l, [{ taskId: "a", to: "skipped", cause: "drain" }])).toThrow(/cannot go/);
		expect(heard).toEqual([]);
	});
	expect(heard).toEqual(["task.running", "task.running"]);
	expect(store.queries.listTasks("run-1").map((t) => t.status)).toEqual(["running", "running"]);
	expect(() =>
		store.batch(() => {
			store.transitionTasks(l, [{ taskId: "a", to: "completed", cause: "settle" }]);
			throw new Error("runner fell over");
		}),
	).toThrow("runner fell over");
	expect(store.queries.findTask("run-1", "a").status).toBe("running");
	expect(heard).toEqual(["task.running", "task.running"]);
});

const used = (input: number, output: number, more: Partial<Usage> = {}): Usage => ({
	input,
	output,
	cacheRead: 0,
	cacheWrite: 0,
	cost: 0,
	...more,
});

test("usage is on record as it is reported, with its event; the attempt's final total counts it once", () => {
	const { store, file } = freshStore();
	createRun(store);
	const l = store.acquireLease("run-1", lease);
	const reader = openReader(file) as Db;
	open.push(reader);
	const queries = new RunQueries(reader);
	const attemptsOf = (taskId: string) =>
		queries
			.attempts("run-1")
			.filter((a) => a.taskId === taskId)
			.map((a) => a.usage);

	// Reported twice, then the runtime's total of the same work: 1200, not 2400.
	const first = store.attempts.start(l, "a", "pi");
	store.attempts.usage(l, first.id, "a", used(500, 100, { cost: 0.01 }));
	store.attempts.usage(l, first.id, "a", used(500, 100, { cost: 0.01 }));
	expect(queries.findTask("run-1", "a").usage).toEqual(used(1000, 200, { cost: 0.02 }));
	expect(queries.eventsAfter("run-1", 0).filter((e) => e.type === "worker.usage")).toHaveLength(2);
	const settled = { taskId: "a", attemptStatus: "failed", taskStatus: "queued", cause: "backoff" } as const;
	expect(store.attempts.settle(l, { ...settled, attemptId: first.id, usage: used(1000, 200, { cost: 0.02 }) })).toEqual(
		used(0, 0),
	);
	expect(attemptsOf("a")).toEqual([used(1000, 200, { cost: 0.02 })]);

	// Cut without a result: what it reported stays, still a lower bound.
	const second = store.attempts.start(l, "a", "claude");
	store.attempts.usage(l, second.id, "a", used(800, 1, { partial: true }));
	store.attempts.settle(l, { ...settled, attemptId: second.id, attemptStatus: "timed-out" });
	expect(attemptsOf("a")[1]).toEqual(used(800, 1, { partial: true }));
	expect(queries.findTask("run-1", "a").usage).toEqual(used(1800, 201, { cost: 0.02, partial: true }));
	expect(queries.usage("run-1")).toEqual(used(1800, 201, { cost: 0.02, partial: true }));

	// A result's total beyond the lower bounds reported replaces them: whole again.
	const third = store.attempts.start(l, "b", "claude");
	store.attempts.usage(l, third.id, "b", used(800, 1, { partial: true }));
	const total = used(800, 40, { cost: 0.05 });
	const added = store.attempts.settle(l, { ...settled, taskId: "b", attemptId: third.id, usage: total });
	expect(added).toEqual(used(0, 39, { cost: 0.05 }));
	expect(queries.findTask("run-1", "b").usage).toEqual(total);
	// A total short of what was reported (a worker that took the attempt over) drops nothing.
	const fourth = store.attempts.start(l, "b", "pi");
	store.attempts.usage(l, fourth.id, "b", used(300, 30));
	store.attempts.usage(l, fourth.id, "b", used(300, 30));
	store.attempts.settle(l, { ...settled, taskId: "b", attemptId: fourth.id, usage: used(300, 30) });
	expect(attemptsOf("b")[1]).toEqual(used(600, 60));
	expect(queries.usageBy("run-1").role).toEqual({
		worker: used(3200, 301, { cost: expect.closeTo(0.07, 10), partial: true }),
	});
	// By model (the runtime's name when an attempt has none): partial while one of its attempts is.
	expect(queries.usageBy("run-1").model).toEqual({
		claude: used(1600, 41, { cost: expect.closeTo(0.05, 10), partial: true }),
		pi: used(1600, 260, { cost: expect.closeTo(0.02, 10) }),
	});
});

test("an attempt lost with its runner keeps the usage it reported", () => {
	const { store } = freshStore();
	createRun(store);
	const dead = store.acquireLease("run-1", { ...lease, holder: deadHolder() });
	const attempt = store.attempts.start(dead, "a", "pi");
	store.attempts.usage(dead, attempt.id, "a", used(500, 100));
	const l = store.acquireLease("run-1", { ...lease, cause: "resume" });
	store.attempts.lose(l, [{ id: attempt.id, taskId: "a" }], "its runner was lost");
	expect(store.queries.attempts("run-1")[0]).toMatchObject({ status: "lost", usage: used(500, 100) });
	expect(store.queries.usage("run-1")).toEqual(used(500, 100));
	expect(() => store.attempts.usage(dead, attempt.id, "a", used(1, 1))).toThrow(CrewError);
});
