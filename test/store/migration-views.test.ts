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

/** A store as crew wrote it at schema version 8: a run of three tasks with their events. */
function storeAtVersion8(file: string): void {
	const db = new Database(file);
	db.exec("CREATE TABLE migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)");
	for (const m of MIGRATIONS.filter((m) => m.version <= 8)) {
		db.exec(m.sql);
		db.prepare("INSERT INTO migrations VALUES (?, ?, ?)").run(m.version, m.name, "2026-01-01T00:00:00.000Z");
	}
	db.pragma("user_version = 8");
	const time = "2026-01-01T00:00:00.000Z";
	db.prepare(
		"INSERT INTO runs (id, goal, team, workflow, status, options, created_at, updated_at, last_seq) VALUES ('run-1', 'g', NULL, 'w', 'completed', ?, ?, ?, 8)",
	).run(JSON.stringify({ concurrency: 2, failure: "drain", roleLimits: {}, retries: 0, cwd: "/tmp" }), time, time);
	for (const [idx, id] of ["a", "b", "c"].entries()) {
		db.prepare(
			"INSERT INTO tasks (run_id, idx, id, step_id, role, status, attempts) VALUES ('run-1', ?, ?, ?, 'worker', 'completed', 1)",
		).run(idx, id, id);
		const spec = { id, stepId: id, role: "worker", agent: { name: "worker", runtime: "dry-run" }, dependsOn: [] };
		db.prepare("INSERT INTO task_data (run_id, task_id, spec) VALUES ('run-1', ?, ?)").run(id, JSON.stringify(spec));
	}
	const events: [string, string | null, object][] = [
		["run.created", null, {}],
		["task.running", "a", { attempt: 1 }],
		["worker.assistant", "a", { text: "thinking about a" }],
		["worker.tool-start", "b", { name: "read", args: { path: "x.ts" } }],
		["worker.usage", "a", { usage: { input: 1 } }],
		["worker.output", "b", { text: "second line of b\nmore" }],
		["task.completed", "a", {}],
		["run.completed", null, {}],
	];
	for (const [i, [type, task, data]] of events.entries()) {
		db.prepare("INSERT INTO events VALUES ('run-1', ?, ?, ?, ?, ?)").run(i + 1, time, type, task, JSON.stringify(data));
	}
	db.close();
}

test("a store made at schema version 8 gets each task's last activity from its events when brought up to date", () => {
	const project = projectAt(mkdtempSync(join(tmpdir(), "crew-v8-")));
	mkdirSync(project.crewDir, { recursive: true });
	storeAtVersion8(project.dbFile);
	const reader = closeLater(new RunReader(project));
	expect(reader.repo.health().schemaVersion).toBe(MIGRATIONS.at(-1)?.version);
	const view = reader.view("run-1");
	expect(view.tasks.map((t) => [t.id, t.activity])).toEqual([
		["a", "thinking about a"],
		["b", "second line of b"],
		["c", null],
	]);
	expect(reader.taskEvents("run-1", "b").events.map((e) => e.seq)).toEqual([4, 6]);
});
