// The few settings crew reads from Codex's `config.toml`: the model, its provider, key variable and base URL.

import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** What Codex's configuration says about the model it reaches, as far as crew reads it. */
export interface CodexConfig {
	/** `$CODEX_HOME/config.toml` (default `~/.codex/config.toml`), whether it exists or not. */
	readonly file: string | undefined;
	/** `model_provider`; Codex's default is `openai`. */
	readonly provider: string;
	/** `model`, when the file sets one. */
	readonly model?: string;
	/** The variable the provider's key is read from (`env_key` of `[model_providers.<provider>]`). */
	readonly envKey?: string;
	/** Where the provider is reached (`base_url` of `[model_providers.<provider>]`). */
	readonly baseUrl?: string;
}

/**
 * Reads the few settings crew looks at from Codex's `config.toml`: top-level `model_provider` and
 * `model`, and the chosen provider's `env_key` and `base_url`, each a quoted string on a line of its own. Other
 * TOML is left to Codex, which reports its own errors when it runs.
 */
export function codexConfig(env: NodeJS.ProcessEnv): CodexConfig {
	const home = env.CODEX_HOME || (env.HOME ? join(env.HOME, ".codex") : undefined);
	const file = home ? join(home, "config.toml") : undefined;
	const sections = new Map<string, Map<string, string>>([["", new Map()]]);
	if (file && existsSync(file)) {
		let section = sections.get("") as Map<string, string>;
		for (const raw of readFileSync(file, "utf8").split("\n")) {
			const line = raw.trim();
			const header = /^\[([^\]]+)\]$/.exec(line);
			if (header) {
				section = new Map();
				sections.set((header[1] as string).trim(), section);
				continue;
			}
			const pair = /^([A-Za-z0-9_]+)\s*=\s*"([^"]*)"/.exec(line);
			if (pair) section.set(pair[1] as string, pair[2] as string);
		}
	}
	const top = sections.get("") as Map<string, string>;
	const provider = top.get("model_provider") ?? "openai";
	const model = top.get("model");
	const section = sections.get(`model_providers.${provider}`);
	const envKey = section?.get("env_key");
	const baseUrl = section?.get("base_url");
	return {
		file,
		provider,
		...(model ? { model } : {}),
		...(envKey ? { envKey } : {}),
		...(baseUrl ? { baseUrl } : {}),
	};
}
