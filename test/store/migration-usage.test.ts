// @module-tag node22
import { mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { expect, test } from "vitest";
import { projectAt } from "../../src/config/project.js";
import { RunReader } from "../../src/engine/views/reader.js";
import { MIGRATIONS } from "../../src/store/migrations.js";
import { closeLater } from "./view-fixture.js";

const TIME = "2026-01-01T00:00:00.000Z";

/** A store as crew wrote it at schema version 9: a run whose attempts reported usage. */
function storeAtVersion9(file: string): void {
	const db = new Database(file);
	db.exec("CREATE TABLE migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)");
	for (const m of MIGRATIONS.filter((m) => m.version <= 9)) {
		db.exec(m.sql);
		db.prepare("INSERT INTO migrations VALUES (?, ?, ?)").run(m.version, m.name, TIME);
	}
	db.pragma("user_version = 9");
	db.prepare(
		"INSERT INTO runs (id, goal, team, workflow, status, options, created_at, updated_at) VALUES ('run-1', 'g', NULL, 'w', 'completed', '{}', ?, ?)",
	).run(TIME, TIME);
	// [task, role, tokens in, out, cost, partial]
	const tasks = [
		["a", "worker", 300, 30, 0.3, 1],
		["b", "reviewer", 50, 5, 0.05, 0],
		["c", "planner", 0, 0, 0, 0],
	] as const;
	for (const [idx, [id, role, input, output, cost, partial]] of tasks.entries()) {
		db.prepare(
			"INSERT INTO tasks (run_id, idx, id, step_id, role, status, tokens_in, tokens_out, cost, usage_partial) VALUES ('run-1', ?, ?, ?, ?, 'completed', ?, ?, ?, ?)",
		).run(idx, id, id, role, input, output, cost, partial);
	}
	// a waits for c, which joined after it: views list it after c.
	db.prepare("INSERT INTO task_details (run_id, task_id, depends_on) VALUES ('run-1', 'a', '[\"c\"]')").run();
	// [task, number, runtime, model, usage]
	const attempts = [
		["a", 1, "pi", "m1", { input: 100, output: 10, cacheRead: 0, cacheWrite: 0, cost: 0.1 }],
		["a", 2, "pi", "m1", { input: 200, output: 20, cacheRead: 0, cacheWrite: 0, cost: 0.2, partial: true }],
		["b", 1, "command", null, { input: 50, output: 5, cacheRead: 0, cacheWrite: 0, cost: 0.05 }],
	] as const;
	for (const [task, number, runtime, model, usage] of attempts) {
		db.prepare(
			"INSERT INTO attempts (run_id, task_id, number, epoch, runtime, model, status, started_at, usage) VALUES ('run-1', ?, ?, 1, ?, ?, 'completed', ?, ?)",
		).run(task, number, runtime, model, TIME, JSON.stringify(usage));
	}
	db.close();
}

const used = (input: number, output: number, cost: number, partial = false) => ({
	input,
	output,
	cacheRead: 0,
	cacheWrite: 0,
	cost: expect.closeTo(cost, 10),
	...(partial ? { partial: true } : {}),
});

test("a store made at schema version 9 gets each run's usage by role and by model, and its task order, when brought up to date", () => {
	const project = projectAt(mkdtempSync(join(tmpdir(), "crew-v9-")));
	mkdirSync(project.crewDir, { recursive: true });
	storeAtVersion9(project.dbFile);
	const reader = closeLater(new RunReader(project));
	expect(reader.repo.health().schemaVersion).toBe(MIGRATIONS.at(-1)?.version);
	expect(reader.usageBy("run-1")).toEqual({
		role: { planner: used(0, 0, 0), reviewer: used(50, 5, 0.05), worker: used(300, 30, 0.3, true) },
		model: { command: used(50, 5, 0.05), m1: used(300, 30, 0.3, true) },
	});
	const json = JSON.parse(reader.statusJson("run-1"));
	expect(json.run.usage).toMatchObject({ inputTokens: 350, outputTokens: 35, partial: true });
	expect(json.tasks.map((t: { id: string }) => t.id)).toEqual(["b", "c", "a"]);
});
