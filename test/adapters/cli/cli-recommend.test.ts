import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "vitest";
import { crew, TestRepo } from "../../helpers.js";

test("crew recommend picks the builtin team whose hints fit, says why, and falls back to default", async () => {
	const repo = new TestRepo();
	const bug = await crew(repo.dir, ["recommend", "fix the broken login bug", "--json"]);
	expect(bug.code).toBe(0);
	expect(JSON.parse(bug.stdout)).toMatchObject({
		team: "fast-fix",
		workflow: "fast-fix",
		reason: "the goal mentions 'bug', 'fix', 'broken'; it fits \"the fix is small and local\"",
	});
	const vague = await crew(repo.dir, ["recommend", "make it nicer"]);
	expect(vague.stdout).toMatch(/^team default, workflow default: no team's hints match the goal/);
	expect(vague.stdout).toContain('run it: crew run "make it nicer" --team default --workflow default');
	expect((await crew(repo.dir, ["recommend", "  "])).stderr).toMatch(/the goal is empty/);
});

test("a user's team with matching triggers is recommended over the builtins", async () => {
	const repo = new TestRepo();
	const home = mkdtempSync(join(tmpdir(), "crew-home-"));
	mkdirSync(join(home, "crew", "teams"), { recursive: true });
	writeFileSync(
		join(home, "crew", "teams", "docs.team.md"),
		"---\nname: docs\ndefaultWorkflow: research\ntriggers: docs, readme\n---\n- writer: agent=writer writes\n",
	);
	const env = { ...process.env, XDG_CONFIG_HOME: home };
	const result = JSON.parse(
		(await crew(repo.dir, ["recommend", "update the readme docs", "--json"], 60_000, env)).stdout,
	);
	expect(result).toMatchObject({ team: "docs", workflow: "research" });
});
