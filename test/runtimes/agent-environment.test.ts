import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "vitest";
import { claudeCredentials, codexCredentials, piCredentials } from "../../src/runtimes/agent/credentials.js";
import { agentEnvironment } from "../../src/runtimes/agent/environment.js";

const source = {
	PATH: "/bin",
	HOME: "/home/u",
	LC_ALL: "C",
	ANTHROPIC_API_KEY: "a",
	CLAUDE_CODE_MAX_RETRIES: "0",
	CODEX_HOME: "/c",
	OPENAI_BASE_URL: "http://x",
	OPENAI_API_KEY: "o",
	PI_CODING_AGENT_DIR: "/p",
	GEMINI_API_KEY: "g",
	IS_SANDBOX: "1",
	AWS_SECRET_ACCESS_KEY: "secret",
	DATABASE_URL: "postgres://",
	HTTPS_PROXY: "http://proxy",
	MY_TOOL_TOKEN: "t",
	MY_TOOLBOX: "b",
	SOME_OTHER_API_KEY: "x",
};

const names = (env: Record<string, string>) => Object.keys(env).sort();
/** `${name}` as pi 1.x reads it in models.json. */
const braced = (name: string) => `\${${name}}`;
const BASE = ["HOME", "IS_SANDBOX", "LC_ALL", "PATH"];

test("each agent CLI sees the base allowlist, its own variables and its provider's keys, nothing else", () => {
	const pi = agentEnvironment(source, { CREW_RUN_ID: "r" }, piCredentials("anthropic/claude-sonnet-4-5", source));
	expect(names(pi)).toEqual([...BASE, "ANTHROPIC_API_KEY", "CREW_RUN_ID", "PI_CODING_AGENT_DIR"].sort());
	const gemini = agentEnvironment(source, {}, piCredentials("google/gemini-2.5-pro", source));
	expect(names(gemini)).toEqual([...BASE, "GEMINI_API_KEY", "PI_CODING_AGENT_DIR"].sort());
	const claude = agentEnvironment(source, {}, claudeCredentials());
	expect(names(claude)).toEqual([...BASE, "ANTHROPIC_API_KEY", "CLAUDE_CODE_MAX_RETRIES"].sort());
	const codex = agentEnvironment(source, {}, codexCredentials(source));
	expect(names(codex)).toEqual([...BASE, "CODEX_HOME", "OPENAI_API_KEY", "OPENAI_BASE_URL"].sort());
	// A pi with no model picks one from its own settings: every known provider's keys, no others.
	const anyModel = agentEnvironment(source, {}, piCredentials(undefined, source));
	expect(names(anyModel)).toEqual(
		[
			...BASE,
			"ANTHROPIC_API_KEY",
			"AWS_SECRET_ACCESS_KEY",
			"GEMINI_API_KEY",
			"OPENAI_API_KEY",
			"OPENAI_BASE_URL",
			"PI_CODING_AGENT_DIR",
		].sort(),
	);
});

test("the variables a CLI's own config names for a custom provider pass to it", () => {
	const dir = mkdtempSync(join(tmpdir(), "crew-credentials-"));
	mkdirSync(join(dir, "pi"));
	writeFileSync(
		join(dir, "pi", "models.json"),
		JSON.stringify({
			providers: { mine: { apiKey: "MINE_KEY" }, theirs: { apiKey: "THEIRS_KEY" }, plain: { apiKey: "sk-literal" } },
		}),
	);
	mkdirSync(join(dir, "codex"));
	writeFileSync(join(dir, "codex", "config.toml"), '[model_providers.local]\nenv_key = "LOCAL_KEY"\n');
	const env = {
		...source,
		PI_CODING_AGENT_DIR: join(dir, "pi"),
		CODEX_HOME: join(dir, "codex"),
		MINE_KEY: "m",
		THEIRS_KEY: "t",
		LOCAL_KEY: "l",
	};
	expect(names(agentEnvironment(env, {}, piCredentials("mine/model-1", env)))).toContain("MINE_KEY");
	expect(names(agentEnvironment(env, {}, piCredentials("mine/model-1", env)))).not.toContain("THEIRS_KEY");
	expect(names(agentEnvironment(env, {}, codexCredentials(env)))).toContain("LOCAL_KEY");
	expect(names(agentEnvironment(env, {}, claudeCredentials()))).not.toContain("LOCAL_KEY");
});

test("pi 1.x's $NAME and $-braced names in a custom provider's apiKey and headers pass those variables; $$ is a dollar", () => {
	const dir = mkdtempSync(join(tmpdir(), "crew-credentials-"));
	writeFileSync(
		join(dir, "models.json"),
		JSON.stringify({
			providers: {
				mine: {
					apiKey: "$MINE_TOKEN",
					headers: { "x-team": `team-${braced("MINE_TEAM")}`, "x-price": "$$NOT_A_VARIABLE" },
				},
				theirs: { apiKey: braced("THEIRS_TOKEN") },
				run: { apiKey: "!print-key --for $MINE_TEAM" },
			},
		}),
	);
	const env = {
		PATH: "/bin",
		PI_CODING_AGENT_DIR: dir,
		MINE_TOKEN: "m",
		MINE_TEAM: "t",
		THEIRS_TOKEN: "x",
		NOT_A_VARIABLE: "n",
	};
	const mine = names(agentEnvironment(env, {}, piCredentials("mine/model-1", env)));
	expect(mine).toEqual(["MINE_TEAM", "MINE_TOKEN", "PATH", "PI_CODING_AGENT_DIR"]);
	expect(names(agentEnvironment(env, {}, piCredentials("theirs/model-1", env)))).toContain("THEIRS_TOKEN");
	expect(names(agentEnvironment(env, {}, piCredentials(undefined, env)))).toEqual([
		"MINE_TEAM",
		"MINE_TOKEN",
		"PATH",
		"PI_CODING_AGENT_DIR",
		"THEIRS_TOKEN",
	]);
});

test("CREW_PASS_ENV adds names and prefixes; crew's own variables win", () => {
	const env = agentEnvironment(
		{ ...source, CREW_PASS_ENV: " HTTPS_PROXY , MY_TOOL_*,,", PATH: "/bin" },
		{ PATH: "/x" },
		claudeCredentials(),
	);
	expect(env.HTTPS_PROXY).toBe("http://proxy");
	expect(env.MY_TOOL_TOKEN).toBe("t");
	expect(env.MY_TOOLBOX).toBeUndefined();
	expect(env.AWS_SECRET_ACCESS_KEY).toBeUndefined();
	expect(env.CREW_PASS_ENV).toBeUndefined();
	expect(env.PATH).toBe("/x");
});
