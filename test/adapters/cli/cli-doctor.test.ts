// @module-tag agent-cli
// @slow: each crew doctor run starts pi, Claude Code and Codex several times, and --smoke makes real calls
import { execFile } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, test } from "vitest";
import { scriptedCliSetup } from "../../../src/scripted-model/cli-setup.js";
import { ScriptedModelServer } from "../../../src/scripted-model/scripted-model-server.js";
import { CLI, ROOT, TestRepo } from "../../helpers.js";

interface Check {
	readonly name: string;
	readonly ok: boolean;
	readonly detail: string;
	readonly fix?: string;
}

function doctor(
	cwd: string,
	env: NodeJS.ProcessEnv,
	flags: readonly string[] = [],
): Promise<{ code: number; checks: Check[]; text: string }> {
	return new Promise((resolve) => {
		execFile(process.execPath, [CLI, "doctor", "--json", ...flags], { cwd, env, timeout: 120_000 }, (error, stdout) => {
			const code = error ? Number(error.code ?? 1) : 0;
			resolve({ code, checks: stdout.trim() ? JSON.parse(stdout).checks : [], text: stdout });
		});
	});
}

/** The doctor's text output, as a user reads it. */
function doctorText(cwd: string, env: NodeJS.ProcessEnv): Promise<{ code: number; stdout: string }> {
	return new Promise((resolve) => {
		execFile(process.execPath, [CLI, "doctor"], { cwd, env, timeout: 120_000 }, (error, stdout) => {
			resolve({ code: error ? Number(error.code ?? 1) : 0, stdout });
		});
	});
}

const servers: ScriptedModelServer[] = [];
afterEach(async () => {
	for (const server of servers.splice(0)) await server.close();
});

/** This PATH without the folders of crew's own programs, where the pi crew bundles is `pi`. */
const WITHOUT_PI = (process.env.PATH ?? "")
	.split(":")
	.filter((dir) => !dir.includes("node_modules"))
	.join(":");

/** Claude Code and Codex from crew's own node_modules. */
const PROGRAMS = {
	CREW_CLAUDE: join(ROOT, "node_modules", ".bin", "claude"),
	CREW_CODEX: join(ROOT, "node_modules", ".bin", "codex"),
};

test("doctor reports pi's version, credential names without values, and the store", async () => {
	const repo = new TestRepo();
	const { code, checks } = await doctor(repo.dir, {
		PATH: WITHOUT_PI,
		HOME: repo.dir,
		OPENAI_API_KEY: "sk-secret-value",
		ANTHROPIC_API_KEY: "sk-ant-secret-value",
		DATABASE_URL: "postgres://secret",
	});
	expect(code).toBe(0);
	const byName = new Map(checks.map((c) => [c.name, c]));
	// No pi on PATH: crew's own, which it says it is.
	expect(byName.get("runtime pi (default)")).toMatchObject({
		ok: true,
		detail: expect.stringMatching(
			/^0\.73\.1: \/.*\/@mariozechner\/pi-coding-agent\/dist\/cli\.js \(crew's own pi, as none is on PATH\)$/,
		),
	});
	// Each runtime is shown what it would get: pi with no model of its own, every provider's keys.
	expect(byName.get("credentials for pi")?.detail).toBe("ANTHROPIC_API_KEY, OPENAI_API_KEY");
	expect(byName.get("credentials for claude")?.detail).toBe("ANTHROPIC_API_KEY");
	expect(byName.get("credentials for codex")?.detail).toBe("OPENAI_API_KEY");
	expect(JSON.stringify(checks)).not.toMatch(/secret/);
	expect(byName.get("store")).toMatchObject({ ok: true, detail: expect.stringMatching(/crew\.db: not created yet$/) });
	// No registry allowed, and where package managers' caches go instead of the user's.
	expect(byName.get("sandbox")?.detail).toContain(
		`, and no package registry ("sandbox": {"registries": ["npm", …]} in your config.json allows them); package managers' caches are crew's own, under ${repo.dir}/.cache/crew/toolchains`,
	);
});

test("doctor counts as credentials only variables that hold one, not a provider's settings or the machine's", async () => {
	const repo = new TestRepo();
	const { checks } = await doctor(repo.dir, {
		PATH: WITHOUT_PI,
		HOME: repo.dir,
		IS_SANDBOX: "1",
		AWS_CA_BUNDLE: "/etc/ssl/corp-ca.pem",
		AWS_REGION: "eu-west-1",
		AWS_ACCESS_KEY_ID: "AKIA-secret-value",
		AWS_SECRET_ACCESS_KEY: "secret-value",
		AWS_PROFILE: "work",
		ANTHROPIC_BASE_URL: "http://127.0.0.1:9",
		ANTHROPIC_API_KEY: "sk-ant-secret-value",
		CLAUDE_CODE_OAUTH_TOKEN: "secret-value",
		CLAUDE_CODE_USE_BEDROCK: "1",
		OPENAI_ORG_ID: "org-1",
		GOOGLE_APPLICATION_CREDENTIALS: "/home/me/gcp.json",
		GOOGLE_CLOUD_PROJECT: "proj",
	});
	const byName = new Map(checks.map((c) => [c.name, c.detail]));
	const codex = checks.find((c) => c.name === "credentials for codex");
	expect(codex).toMatchObject({ ok: false, fix: expect.stringContaining("log in with codex itself") });
	expect(byName.get("credentials for pi")).toBe(
		"ANTHROPIC_API_KEY, AWS_ACCESS_KEY_ID, AWS_PROFILE, AWS_SECRET_ACCESS_KEY, GOOGLE_APPLICATION_CREDENTIALS",
	);
	expect(byName.get("credentials for claude")).toBe("ANTHROPIC_API_KEY, CLAUDE_CODE_OAUTH_TOKEN");
	expect(byName.get("credentials for codex")).toBe(
		"none in the environment; a login kept in the CLI's own files is not looked for here",
	);
});

test("doctor fails on a damaged store and names its file", async () => {
	const repo = new TestRepo();
	writeFileSync(join(repo.dir, ".crew", "crew.db"), "not a database at all ".repeat(200));
	const { code, checks } = await doctor(repo.dir, { PATH: process.env.PATH, HOME: repo.dir });
	expect(code).toBe(1);
	const store = checks.find((c) => c.name === "store");
	expect(store?.ok).toBe(false);
	expect(store?.detail).toMatch(/crew\.db/);
});

test("doctor fails when pi has no credentials, naming what is missing and how to fix it", async () => {
	const repo = new TestRepo();
	const home = mkdtempSync(join(tmpdir(), "crew-empty-home-"));
	const env = { PATH: process.env.PATH, HOME: home, PI_CODING_AGENT_DIR: home };
	const { code, checks } = await doctor(repo.dir, env);
	expect(code).toBe(1);
	const credentials = checks.find((c) => c.name === "pi credentials");
	expect(credentials?.ok).toBe(false);
	// The builtin agents leave the model to pi, which has none it could use.
	expect(credentials?.detail).toMatch(/^pi has credentials for no model/);
	expect(credentials?.fix).toMatch(/ANTHROPIC_API_KEY/);
	expect(credentials?.fix).toMatch(/\/login/);
	expect(credentials?.fix).toMatch(/models\.json/);
	const text = await doctorText(repo.dir, env);
	expect(text.code).toBe(1);
	expect(text.stdout).toMatch(
		/^-- {2}pi credentials: pi has credentials for no model.*\n {4}fix: .*ANTHROPIC_API_KEY/m,
	);
});

test("doctor checks a model an agent names against the models pi has credentials for", async () => {
	const repo = new TestRepo();
	repo.writeFile(".crew/agents/scribe.md", "---\nname: scribe\nmodel: anthropic/claude-sonnet-4-5\n---\nYou write.\n");
	const home = mkdtempSync(join(tmpdir(), "crew-empty-home-"));
	const base = { PATH: process.env.PATH, HOME: home, PI_CODING_AGENT_DIR: home };
	const missing = await doctor(repo.dir, { ...base, OPENAI_API_KEY: "sk-test" });
	expect(missing.code).toBe(1);
	const check = missing.checks.find((c) => c.name === "pi credentials");
	expect(check).toMatchObject({
		ok: false,
		detail: expect.stringMatching(/anthropic\/claude-sonnet-4-5 \(agent scribe\)/),
	});
	expect(check?.fix).toMatch(/ANTHROPIC_API_KEY/);
	const found = await doctor(repo.dir, { ...base, ANTHROPIC_API_KEY: "sk-ant-test" });
	expect(found.checks.find((c) => c.name === "pi credentials")?.ok).toBe(true);
	expect(found.code).toBe(0);
});

test("doctor checks each runtime the agents use: Claude Code not logged in, Codex's provider variable unset", async () => {
	const repo = new TestRepo();
	repo.writeFile(".crew/agents/c.md", "---\nname: c\nruntime: claude\nmodel: claude-sonnet-4-5\n---\nYou work.\n");
	repo.writeFile(".crew/agents/x.md", "---\nname: x\nruntime: codex\nmodel: gpt-5.5\n---\nYou work.\n");
	const dir = mkdtempSync(join(tmpdir(), "crew-doctor-"));
	const pi = scriptedCliSetup("pi", "http://127.0.0.1:9", dir).env;
	const codex = scriptedCliSetup("codex", "http://127.0.0.1:9", dir).env;
	const { code, checks } = await doctor(repo.dir, {
		PATH: process.env.PATH,
		...PROGRAMS,
		...pi,
		CODEX_HOME: codex.CODEX_HOME,
		CLAUDE_CONFIG_DIR: join(dir, "claude"),
	});
	expect(code).toBe(1);
	const byName = new Map(checks.map((c) => [c.name, c]));
	expect(byName.get("pi credentials")?.ok).toBe(true);
	expect(byName.get("claude credentials")).toMatchObject({ ok: false, detail: "Claude Code is not logged in" });
	expect(byName.get("claude credentials")?.fix).toMatch(/ANTHROPIC_API_KEY/);
	expect(byName.get("codex credentials")).toMatchObject({
		ok: false,
		detail: expect.stringMatching(/SCRIPTED_API_KEY is not set/),
	});
	expect(byName.get("codex credentials")?.fix).toMatch(/set SCRIPTED_API_KEY.*config\.toml/);
	expect(byName.get("codex model")).toMatchObject({ ok: true, detail: "gpt-5.5 (agent x)" });
});

test("doctor --smoke makes one small real call per runtime the agents use", async () => {
	const server = await ScriptedModelServer.start(() => ({ kind: "text", text: "OK" }));
	servers.push(server);
	const repo = new TestRepo();
	const dir = mkdtempSync(join(tmpdir(), "crew-doctor-"));
	const setups = {
		pi: scriptedCliSetup("pi", server.url, dir),
		claude: scriptedCliSetup("claude", server.url, dir),
		codex: scriptedCliSetup("codex", server.url, dir),
	};
	for (const [runtime, setup] of Object.entries(setups)) {
		repo.writeFile(
			`.crew/agents/${runtime}-agent.md`,
			`---\nname: ${runtime}-agent\nruntime: ${runtime}\nmodel: ${setup.model}\n---\nYou work.\n`,
		);
	}
	const env = { PATH: process.env.PATH, ...PROGRAMS, ...setups.pi.env, ...setups.claude.env, ...setups.codex.env };
	const plain = await doctor(repo.dir, env);
	expect(plain.code).toBe(0);
	expect(server.requests).toHaveLength(0);
	const { code, checks } = await doctor(repo.dir, env, ["--smoke"]);
	expect(code, JSON.stringify(checks)).toBe(0);
	for (const runtime of ["pi", "claude", "codex"]) {
		expect(checks.find((c) => c.name === `${runtime} smoke`)).toMatchObject({
			ok: true,
			detail: expect.stringMatching(/^answered "OK"/),
		});
	}
	const models = server.requests
		.filter((r) => r.messages.some((m) => m.text.includes("Reply with OK")))
		.map((r) => r.model);
	expect(models.sort()).toEqual(["claude-sonnet-4-5", "gpt-5.5", "scripted-1"]);
});

test("doctor --smoke fails and names the error when a runtime's call fails", async () => {
	const server = await ScriptedModelServer.start(() => ({ kind: "error", status: 401, message: "invalid x-api-key" }));
	servers.push(server);
	const repo = new TestRepo();
	const dir = mkdtempSync(join(tmpdir(), "crew-doctor-"));
	const pi = scriptedCliSetup("pi", server.url, dir);
	repo.writeFile(".crew/agents/scribe.md", `---\nname: scribe\nmodel: ${pi.model}\n---\nYou work.\n`);
	const { code, checks } = await doctor(repo.dir, { PATH: process.env.PATH, ...pi.env }, ["--smoke"]);
	expect(code).toBe(1);
	expect(checks.find((c) => c.name === "pi smoke")).toMatchObject({
		ok: false,
		detail: expect.stringMatching(/invalid x-api-key/),
	});
});
