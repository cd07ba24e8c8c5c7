import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "vitest";
import { projectAt } from "../../../src/config/project.js";
import { Crew } from "../../../src/engine/crew.js";
import { crew, TestRepo } from "../../helpers.js";

function userConfig(json: string): NodeJS.ProcessEnv {
	const home = mkdtempSync(join(tmpdir(), "crew-home-"));
	mkdirSync(join(home, "crew"), { recursive: true });
	writeFileSync(join(home, "crew", "config.json"), json);
	return { ...process.env, XDG_CONFIG_HOME: home };
}

test("budgets come from the user's config.json, the project's on top, and flags over both", async () => {
	const repo = new TestRepo().agent("worker");
	repo.workflow("one", [{ id: "a" }]);
	const env = userConfig('{"budget": {"tokens": 1000, "usd": 2}}');
	repo.writeFile(".crew/config.json", '{"budget": {"usd": 1.5, "reserveTokens": 10}}');
	// Trust lives in the user's config folder too.
	expect((await crew(repo.dir, ["trust"], 60_000, env)).code).toBe(0);
	const run = await crew(repo.dir, ["run", "g", "--workflow", "one", "--budget-tokens", "500", "--json"], 60_000, env);
	expect(run.code).toBe(0);
	const { runId } = JSON.parse(run.stdout.trim().split("\n").pop() ?? "{}");
	const reader = new Crew({ project: projectAt(repo.dir) });
	expect(reader.run(runId).options.budget).toEqual({ tokens: 500, usd: 1.5, reserveTokens: 10 });
	reader.close();
});

test("a bad config.json is refused with the file named, and nothing runs", async () => {
	const repo = new TestRepo().agent("worker");
	repo.workflow("one", [{ id: "a" }]);
	repo.writeFile(".crew/config.json", '{"budget": {"tokens": "lots"}}');
	const bad = await crew(repo.dir, ["run", "g", "--workflow", "one"]);
	expect(bad.code).toBe(1);
	expect(bad.stderr).toMatch(/config\.json: budget tokens "lots": expected a number > 0/);
	repo.writeFile(".crew/config.json", '{"budget": {"usd": 0}}');
	const zero = await crew(repo.dir, ["run", "g", "--workflow", "one"]);
	expect(zero.code).toBe(1);
	expect(zero.stderr).toMatch(/config\.json: budget usd 0: expected a number > 0/);
	repo.writeFile(".crew/config.json", '{"budget": {"tokens": 1000, "reserveTokens": -1}}');
	expect((await crew(repo.dir, ["run", "g", "--workflow", "one"])).stderr).toMatch(
		/config\.json: budget reserveTokens -1: expected a number >= 0/,
	);
	repo.writeFile(".crew/config.json", "{nope");
	expect((await crew(repo.dir, ["run", "g", "--workflow", "one"])).stderr).toMatch(/config\.json is not valid JSON/);
	expect(repo.starts()).toHaveLength(0);
});
