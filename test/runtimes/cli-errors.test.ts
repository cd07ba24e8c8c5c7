// @module-tag agent-cli
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "vitest";
import { projectAt } from "../../src/config/project.js";
import { Crew } from "../../src/engine/crew.js";
import { RuntimeRegistry } from "../../src/runtimes/runtime-registry.js";
import { ROOT, TestRepo } from "../helpers.js";

/** An empty folder used as HOME and as the CLI's configuration folder: no keys, no login. */
function emptyHome(): string {
	return mkdtempSync(join(tmpdir(), "crew-empty-home-"));
}

/**
 * Runs one task of an agent of `runtime` (with `fields` in its frontmatter) and returns the
 * task's error and the absolute path of its first attempt's stderr log.
 */
async function failedTask(
	runtime: "pi" | "claude" | "codex",
	env: NodeJS.ProcessEnv,
	fields = "",
): Promise<{ error: string; log: string }> {
	const repo = new TestRepo();
	repo.writeFile(".crew/agents/scribe.md", `---\nname: scribe\nruntime: ${runtime}\n${fields}---\nYou write.\n`);
	repo.workflow("one", [{ id: "a", role: "scribe", text: "write a.txt" }]);
	const command = runtime === "pi" ? {} : { command: [join(ROOT, "node_modules", ".bin", runtime)] };
	const crew = new Crew({
		project: projectAt(repo.dir),
		runtimes: RuntimeRegistry.standard({
			graceMs: 500,
			[runtime]: { env: { PATH: process.env.PATH, ...env }, ...command },
		}),
		pollMs: 20,
	});
	try {
		const runId = crew.create(await crew.plan({ goal: "g", workflow: "one", retries: 0, timeoutMs: 60_000 }));
		expect(await crew.execute(runId)).toBe("failed");
		const [task] = crew.snapshot(runId).tasks;
		return {
			error: task?.error ?? "",
			log: join(repo.dir, ".crew", "runs", runId, "tasks", task?.id ?? "", "attempt-1.stderr.log"),
		};
	} finally {
		crew.close();
	}
}

test("pi with an empty configuration fails the task with pi's own words about the missing key and its log's path", async () => {
	const home = emptyHome();
	const { error, log } = await failedTask("pi", { HOME: home, PI_CODING_AGENT_DIR: home });
	expect(error).toMatch(/^pi refused the prompt: No API key found for the selected model\. \(log: /);
	expect(error).toContain(log);
	expect(existsSync(log)).toBe(true);
	expect(error).not.toMatch(/models\.md/);
});

test("pi asked for a provider it has no key for names that provider", async () => {
	const home = emptyHome();
	const { error, log } = await failedTask(
		"pi",
		{ HOME: home, PI_CODING_AGENT_DIR: home },
		"model: anthropic/claude-sonnet-4-5\n",
	);
	expect(error).toMatch(/^pi refused the prompt: No API key found for anthropic\. \(log: /);
	expect(error).toContain(log);
});

test("Claude Code without credentials fails the task with its own words and its log's path", async () => {
	const home = emptyHome();
	const { error, log } = await failedTask("claude", {
		HOME: home,
		CLAUDE_CONFIG_DIR: home,
		CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
		CLAUDE_CODE_MAX_RETRIES: "0",
	});
	expect(error).toMatch(/^Not logged in · Please run \/login \(log: /);
	expect(error).toContain(log);
});

test("Codex whose provider's key variable is unset fails the task naming the variable, with its log's path", async () => {
	const home = emptyHome();
	const codexHome = join(home, "codex");
	mkdirSync(codexHome);
	writeFileSync(
		join(codexHome, "config.toml"),
		[
			'model_provider = "scripted"',
			"[model_providers.scripted]",
			'name = "scripted"',
			'base_url = "http://127.0.0.1:9/v1"',
			'env_key = "SCRIPTED_API_KEY"',
			'wire_api = "responses"',
			"[analytics]",
			"enabled = false",
			"[features]",
			"plugins = false",
			"",
		].join("\n"),
	);
	const { error, log } = await failedTask("codex", { HOME: home, CODEX_HOME: codexHome }, "model: gpt-5.5\n");
	expect(error).toMatch(/^Missing environment variable: `SCRIPTED_API_KEY`\. \(log: /);
	expect(error).toContain(log);
});

test("Codex that cannot start names the reason from its stderr, not its warnings", async () => {
	const home = emptyHome();
	const { error, log } = await failedTask("codex", { HOME: home, CODEX_HOME: join(home, "missing") });
	expect(error).toMatch(
		/^codex exited with code 1: Error: CODEX_HOME points to .*missing.*, but that path does not exist \(log: /,
	);
	expect(error).toContain(log);
});
