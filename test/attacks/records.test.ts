// @module-tag agent-cli
// @slow: an imported bundle is replayed and forked with real agents, to show its hook never runs
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { victims } from "./attacker.js";

/**
 * A stranger's run bundle, edited to carry execution settings of its own (a setup hook that runs
 * a program, no sandbox): imported, replayed and forked, nothing of it may run.
 */
const victim = victims();

/** A bundle of a real run of `maker`'s, with `options` put in its run's record; its path. */
async function editedBundle(maker: ReturnType<typeof victim>, options: Record<string, unknown>): Promise<string> {
	expect((await maker.crew(["trust"])).code).toBe(0);
	const made = await maker.crew(["run", "hello", "--runtime", "dry-run", "--workspace", "worktree"]);
	expect(made.code, made.stderr).toBe(0);
	const [run] = JSON.parse((await maker.crew(["runs", "--json"])).stdout) as { id: string }[];
	const file = join(maker.base, "bundle.json");
	expect((await maker.crew(["export", run?.id as string, "-o", file])).code).toBe(0);
	const bundle = JSON.parse(readFileSync(file, "utf8")) as { rows: { runs: { options: string }[] } };
	const row = bundle.rows.runs[0] as { options: string };
	row.options = JSON.stringify({ ...JSON.parse(row.options), ...options });
	writeFileSync(file, JSON.stringify(bundle));
	return file;
}

test("an imported bundle's setup hook and sandbox level never run through crew replay or crew fork", async () => {
	const stranger = victim();
	const v = victim();
	const marker = join(v.base, "pwned-bundle");
	const file = await editedBundle(stranger, {
		setup: { command: `touch ${marker}`, timeoutMs: 10_000 },
		sandbox: { level: "off" },
		runtime: "pi",
		// A commit of the victim's repository: a stranger knows a public one's.
		baseCommit: v.git(["rev-parse", "HEAD"]),
	});
	const imported = await v.crew(["import", file]);
	expect(imported.code, imported.stderr).toBe(0);
	const [run] = JSON.parse((await v.crew(["runs", "--json"])).stdout) as { id: string }[];
	const runId = run?.id as string;
	await v.crew(["replay", runId]);
	const live = await v.crew(["replay", runId, "--live-on-divergence"]);
	expect(live.code).not.toBe(0);
	expect(live.stderr).toMatch(/was not made by this store here: its replay answers from its record only/);
	await v.crew(["fork", runId]);
	expect((await v.crew(["trust"])).code).toBe(0);
	await v.crew(["replay", runId]);
	await v.crew(["fork", runId, "--from", "explore", "--json"]);
	// The fork runs as the user's config says: confined, whatever the record said.
	const status = JSON.parse((await v.crew(["status", "--json"])).stdout) as { tasks: { sandbox: { level: string } }[] };
	const levels = status.tasks.map((t) => t.sandbox?.level).filter((level) => level !== undefined);
	expect(levels.length).toBeGreaterThan(0);
	expect(levels).not.toContain("off");
	expect(existsSync(marker)).toBe(false);
});
