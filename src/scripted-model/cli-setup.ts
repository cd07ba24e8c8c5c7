// Configuration that points pi, Claude Code or Codex at the scripted model server and nothing else.

import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export type ScriptedCliName = "pi" | "claude" | "codex";

/** What an agent CLI needs to talk to the scripted server only: its variables and a model name. */
export interface ScriptedCli {
	/** `HOME`, the CLI's config folder and credentials; add `PATH` to run it. */
	readonly env: Readonly<Record<string, string>>;
	/** The model an agent names (`model:`) to use the server. */
	readonly model: string;
	/** A second model of the server, for fallbacks. */
	readonly fallbackModel: string;
}

const API_KEY = "scripted-key";

/**
 * Writes a configuration for `cli` under `dir` (used as its HOME too, so no personal config is
 * read or written) whose only provider is the scripted server at `url`, with the CLI's own
 * retries off and its other outside traffic disabled.
 */
export function scriptedCliSetup(cli: ScriptedCliName, url: string, dir: string): ScriptedCli {
	mkdirSync(dir, { recursive: true });
	if (cli === "pi") {
		const agentDir = join(dir, "pi-agent");
		mkdirSync(agentDir, { recursive: true });
		const provider = {
			baseUrl: `${url}/v1`,
			api: "openai-completions",
			apiKey: API_KEY,
			// Reasoning models that take an effort: a thinking level reaches the request.
			compat: { supportsDeveloperRole: false, supportsReasoningEffort: true },
			models: ["scripted-1", "scripted-2"].map((id) => ({
				id,
				reasoning: true,
				contextWindow: 128000,
				maxTokens: 4096,
				cost: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
			})),
		};
		writeFileSync(join(agentDir, "models.json"), JSON.stringify({ providers: { scripted: provider } }));
		writeFileSync(
			join(agentDir, "settings.json"),
			JSON.stringify({ retry: { enabled: false, provider: { maxRetries: 0 } } }),
		);
		return {
			env: { HOME: dir, PI_CODING_AGENT_DIR: agentDir },
			model: "scripted/scripted-1",
			fallbackModel: "scripted/scripted-2",
		};
	}
	if (cli === "claude") {
		// Its folder is there, as a user's is: a confined attempt then gets one of its own in its place.
		mkdirSync(join(dir, "claude"), { recursive: true });
		return {
			env: {
				HOME: dir,
				ANTHROPIC_BASE_URL: url,
				ANTHROPIC_API_KEY: API_KEY,
				CLAUDE_CONFIG_DIR: join(dir, "claude"),
				CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
				CLAUDE_CODE_MAX_RETRIES: "0",
				// Lets `permissions: full` (bypassPermissions) work when the tests run as root.
				IS_SANDBOX: "1",
			},
			model: "claude-sonnet-4-5",
			fallbackModel: "claude-haiku-4-5",
		};
	}
	const home = join(dir, "codex");
	mkdirSync(home, { recursive: true });
	const config = [
		'model_provider = "scripted"',
		'approval_policy = "never"',
		"[model_providers.scripted]",
		'name = "scripted"',
		`base_url = "${url}/v1"`,
		'env_key = "SCRIPTED_API_KEY"',
		'wire_api = "responses"',
		"request_max_retries = 0",
		"stream_max_retries = 0",
		// Without these two Codex contacts outside hosts and stalls at exit.
		"[analytics]",
		"enabled = false",
		"[features]",
		"plugins = false",
	];
	writeFileSync(join(home, "config.toml"), `${config.join("\n")}\n`);
	// A model of Codex's own catalog; for one it does not know (the fallback) it notes an error
	// item and offers a shell but no apply_patch.
	return {
		env: { HOME: dir, CODEX_HOME: home, SCRIPTED_API_KEY: API_KEY },
		model: "gpt-5.5",
		fallbackModel: "scripted-fallback",
	};
}
