import { expect, test } from "vitest";
import { RunReader } from "../../src/engine/views/reader.js";
import { openWriter } from "../../src/store/database.js";
import { RunArchive } from "../../src/store/run-archive.js";
import { closeLater, storeWithRun, taskSpec } from "./view-fixture.js";

test("a run moved to another store through its rows shows there as it did here, activity, details and usage included", () => {
	const from = storeWithRun([taskSpec("a"), taskSpec("b", "a")]);
	const attempt = from.store.attempts.start(from.lease, "a", "dry-run", "m1");
	from.store.attempts.usage(from.lease, attempt.id, "a", {
		input: 7,
		output: 3,
		cacheRead: 0,
		cacheWrite: 0,
		cost: 0.5,
	});
	from.store.appendEvent(from.lease, "worker.assistant", "a", { text: "reading the parser" });
	from.store.appendEvent(from.lease, "worker.usage", "a", { usage: { input: 1 } });
	const rows = new RunArchive(closeLater(openWriter(from.project.dbFile))).rows("run-1");
	expect(Object.keys(rows.tasks[0] ?? {})).not.toContain("activity");

	const to = storeWithRun([taskSpec("other")], "run-2");
	new RunArchive(closeLater(openWriter(to.project.dbFile))).insert("run-1", rows);
	const here = closeLater(new RunReader(from.project));
	const there = closeLater(new RunReader(to.project));
	const before = here.view("run-1");
	const after = there.view("run-1");
	expect(after.tasks).toEqual(before.tasks);
	expect(there.usageBy("run-1")).toEqual(here.usageBy("run-1"));
	expect(Object.keys(there.usageBy("run-1").model)).toEqual(["m1"]);
	expect(after.tasks.map((t) => [t.id, t.activity, t.model, t.dependsOn])).toEqual([
		["a", "reading the parser", "m1", []],
		["b", null, null, ["a"]],
	]);
});
