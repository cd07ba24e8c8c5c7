import { mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach } from "vitest";
import { type Project, projectAt } from "../../src/config/project.js";
import type { TaskSpec } from "../../src/core/types.js";
import { openWriter } from "../../src/store/database.js";
import type { Lease } from "../../src/store/lease.js";
import { currentProcess, type ProcessIdentity } from "../../src/store/process-identity.js";
import { RunStore } from "../../src/store/run-store.js";

const closers: (() => void)[] = [];
afterEach(() => {
	for (const close of closers.splice(0)) close();
});

/** Closes `closable` after the test. */
export function closeLater<T extends { close(): unknown }>(closable: T): T {
	closers.push(() => closable.close());
	return closable;
}

export const taskSpec = (id: string, ...dependsOn: string[]): TaskSpec => ({
	id,
	stepId: id,
	role: "worker",
	agent: { name: "worker", runtime: "dry-run", systemPrompt: "" },
	text: `do ${id}`,
	dependsOn,
});

/** A project whose store holds run `runId` with `tasks`, its lease held by `holder` (this process). */
export function storeWithRun(
	tasks: readonly TaskSpec[],
	runId = "run-1",
	holder: ProcessIdentity = currentProcess(),
): { project: Project; store: RunStore; lease: Lease } {
	const project = projectAt(mkdtempSync(join(tmpdir(), "crew-views-")));
	mkdirSync(project.crewDir, { recursive: true });
	const db = closeLater(openWriter(project.dbFile));
	const store = new RunStore(db);
	store.createRun({
		id: runId,
		goal: "g",
		team: null,
		workflow: "w",
		options: { concurrency: 2, failure: "drain", roleLimits: {}, retries: 0, cwd: "/tmp" },
		tasks,
	});
	const lease = store.acquireLease(runId, { holder, cause: "dispatch", staleAfterMs: 30_000 });
	return { project, store, lease };
}
