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
	expect(bad.code).toBe(2);
	expect(bad.stderr).toMatch(/config\.json: budget tokens "lots": expected a number > 0/);
	repo.writeFile(".crew/config.json", '{"budget": {"usd": 0}}');
	const zero = await crew(repo.dir, ["run", "g", "--workflow", "one"]);
	expect(zero.code).toBe(2);
	expect(zero.stderr).toMatch(/config\.json: budget usd 0: expected a number > 0/);
	repo.writeFile(".crew/config.json", '{"budget": {"tokens": 1000, "reserveTokens": -1}}');
	expect((await crew(repo.dir, ["run", "g", "--workflow", "one"])).stderr).toMatch(
		/config\.json: budget reserveTokens -1: expected a number >= 0/,
	);
	repo.writeFile(".crew/config.json", "{nope");
	expect((await crew(repo.dir, ["run", "g", "--workflow", "one"])).stderr).toMatch(/config\.json is not valid JSON/);
	expect(repo.starts()).toHaveLength(0);
});

test("limits come from the user's config.json, the project's on top, and flags over both; 0 turns one off; a bad one is named", async () => {
	const repo = new TestRepo().agent("worker");
	repo.workflow("one", [{ id: "a" }]);
	const env = userConfig('{"limits": {"timeout": "30m", "stallTimeout": "5m"}}');
	repo.writeFile(".crew/config.json", '{"limits": {"stallTimeout": 0}}');
	expect((await crew(repo.dir, ["trust"], 60_000, env)).code).toBe(0);
	const limitsOf = async (...flags: string[]) => {
		const run = await crew(repo.dir, ["run", "g", "--workflow", "one", "--json", ...flags], 60_000, env);
		expect(run.code, run.stderr).toBe(0);
		const { runId } = JSON.parse(run.stdout.trim().split("\n").pop() ?? "{}");
		const reader = new Crew({ project: projectAt(repo.dir) });
		const { timeoutMs, stallTimeoutMs } = reader.run(runId).options;
		reader.close();
		return { timeoutMs, stallTimeoutMs };
	};
	expect(await limitsOf()).toEqual({ timeoutMs: 30 * 60_000, stallTimeoutMs: 0 });
	expect(await limitsOf("--timeout", "0", "--stall-timeout", "90s")).toEqual({ timeoutMs: 0, stallTimeoutMs: 90_000 });

	repo.writeFile(".crew/config.json", '{"limits": {"timeout": "soon"}}');
	const bad = await crew(repo.dir, ["run", "g", "--workflow", "one"], 60_000, env);
	expect(bad.code).toBe(2);
	expect(bad.stderr).toMatch(/config\.json: limits\.timeout "soon": expected 0 \(no limit\) or a duration/);
	repo.writeFile(".crew/config.json", '{"limits": {"wall": "1h"}}');
	const unknown = await crew(repo.dir, ["run", "g", "--workflow", "one"], 60_000, env);
	expect(unknown.stderr).toMatch(/config\.json: unknown limits key "wall": expected timeout or stallTimeout/);
	repo.writeFile(".crew/config.json", "{}");
	const flag = await crew(repo.dir, ["run", "g", "--workflow", "one", "--timeout=-1"], 60_000, env);
	expect(flag.stderr).toMatch(/invalid timeout "-1": expected 0 \(no limit\) or a duration/);
});

test('"sandbox" in the user\'s config.json takes a level or {level, hosts, registries}; the hosts reach the run, a bad one is named and nothing runs', async () => {
	const repo = new TestRepo().agent("worker");
	repo.workflow("one", [{ id: "a" }]);
	const env = userConfig(
		'{"sandbox": {"level": "off", "hosts": ["api.example.com:443", "[::1]:8080"], "registries": ["npm", "pypi"]}}',
	);
	expect((await crew(repo.dir, ["trust"], 60_000, env)).code).toBe(0);
	const run = await crew(repo.dir, ["run", "g", "--workflow", "one", "--json"], 60_000, env);
	expect(run.code).toBe(0);
	const { runId } = JSON.parse(run.stdout.trim().split("\n").pop() ?? "{}");
	const reader = new Crew({ project: projectAt(repo.dir) });
	expect(reader.run(runId).options.sandbox).toEqual({
		level: "off",
		hosts: [
			"api.example.com:443",
			"[::1]:8080",
			"registry.npmjs.org:443",
			"pypi.org:443",
			"files.pythonhosted.org:443",
		],
	});
	reader.close();
	const bad: readonly [string, RegExp][] = [
		['{"sandbox": {"hosts": ["api.example.com"]}}', /"sandbox" host "api\.example\.com": expected "host:port"/],
		[
			'{"sandbox": {"hosts": ["a.com:70000"]}}',
			/"sandbox" host "a\.com:70000": expected "host:port", a port from 1 to 65535/,
		],
		['{"sandbox": {"level": "tight"}}', /"sandbox" level "tight": expected "off", "workspace", "strict"/],
		['{"sandbox": {"hostz": []}}', /"sandbox" has unknown key "hostz": expected level, hosts, registries/],
		[
			'{"sandbox": 3}',
			/"sandbox" 3: expected "off", "workspace", "strict", or \{"level": …, "hosts": \["host:port", …\], "registries": \["npm", …\]\}/,
		],
		[
			'{"sandbox": {"registries": ["npmjs"]}}',
			/"sandbox" registry "npmjs": expected a list of "npm", "yarn", "pypi", "crates", "go", "maven", "gradle"/,
		],
		['{"sandbox": {"registries": "npm"}}', /"sandbox" registries: expected a list of "npm"/],
	];
	for (const [json, message] of bad) {
		const refused = await crew(repo.dir, ["run", "g", "--workflow", "one"], 60_000, userConfig(json));
		expect(refused.code).toBe(2);
		expect(refused.stderr).toMatch(message);
	}
	expect(repo.starts()).toHaveLength(1);
});
