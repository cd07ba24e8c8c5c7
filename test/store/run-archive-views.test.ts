import { expect, test } from "vitest";
import { RunReader } from "../../src/engine/run-reader.js";
import { openWriter } from "../../src/store/database.js";
import { RunArchive } from "../../src/store/run-archive.js";
import { closeLater, storeWithRun, taskSpec } from "./view-fixture.js";

test("a run moved to another store through its rows shows there as it did here, activity and details included", () => {
	const from = storeWithRun([taskSpec("a"), taskSpec("b", "a")]);
	from.store.startAttempt(from.lease, "a", "dry-run", "m1");
	from.store.appendEvent(from.lease, "worker.assistant", "a", { text: "reading the parser" });
	from.store.appendEvent(from.lease, "worker.usage", "a", { usage: { input: 1 } });
	const rows = new RunArchive(closeLater(openWriter(from.project.dbFile))).rows("run-1");
	expect(Object.keys(rows.tasks[0] ?? {})).not.toContain("activity");

	const to = storeWithRun([taskSpec("other")], "run-2");
	new RunArchive(closeLater(openWriter(to.project.dbFile))).insert("run-1", rows);
	const before = closeLater(new RunReader(from.project)).view("run-1");
	const after = closeLater(new RunReader(to.project)).view("run-1");
	expect(after.tasks).toEqual(before.tasks);
	expect(after.tasks.map((t) => [t.id, t.activity, t.model, t.dependsOn])).toEqual([
		["a", "reading the parser", "m1", []],
		["b", null, null, ["a"]],
	]);
});
