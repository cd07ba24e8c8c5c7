import { expect, test } from "vitest";
import { agentEnvironment } from "../../src/runtimes/agent-environment.js";

const source = {
	PATH: "/bin",
	HOME: "/home/u",
	LC_ALL: "C",
	ANTHROPIC_API_KEY: "a",
	CLAUDE_CODE_MAX_RETRIES: "0",
	CODEX_HOME: "/c",
	OPENAI_BASE_URL: "http://x",
	PI_CODING_AGENT_DIR: "/p",
	GEMINI_API_KEY: "g",
	IS_SANDBOX: "1",
	AWS_SECRET_ACCESS_KEY: "secret",
	DATABASE_URL: "postgres://",
	HTTPS_PROXY: "http://proxy",
	MY_TOOL_TOKEN: "t",
	MY_TOOLBOX: "b",
};

test("an agent sees the base allowlist and the CLIs' own variables, nothing else", () => {
	expect(Object.keys(agentEnvironment(source, { CREW_RUN_ID: "r" })).sort()).toEqual([
		"ANTHROPIC_API_KEY",
		"CLAUDE_CODE_MAX_RETRIES",
		"CODEX_HOME",
		"CREW_RUN_ID",
		"GEMINI_API_KEY",
		"HOME",
		"IS_SANDBOX",
		"LC_ALL",
		"OPENAI_BASE_URL",
		"PATH",
		"PI_CODING_AGENT_DIR",
	]);
});

test("CREW_PASS_ENV adds names and prefixes; crew's own variables win", () => {
	const env = agentEnvironment(
		{ ...source, CREW_PASS_ENV: " HTTPS_PROXY , MY_TOOL_*,,", PATH: "/bin" },
		{ PATH: "/x" },
	);
	expect(env.HTTPS_PROXY).toBe("http://proxy");
	expect(env.MY_TOOL_TOKEN).toBe("t");
	expect(env.MY_TOOLBOX).toBeUndefined();
	expect(env.AWS_SECRET_ACCESS_KEY).toBeUndefined();
	expect(env.CREW_PASS_ENV).toBeUndefined();
	expect(env.PATH).toBe("/x");
});
