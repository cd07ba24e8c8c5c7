// The variables each agent CLI reads for its settings and its model provider's keys, and pi's own settings.

import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

/**
 * The variables each model provider's keys and settings are read from, as pi documents them
 * (its providers guide), by pi's provider name: names, or prefixes ending in `*`.
 */
const PROVIDER_VARIABLES: Readonly<Record<string, readonly string[]>> = {
	anthropic: ["ANTHROPIC_*"],
	openai: ["OPENAI_*"],
	"azure-openai-responses": ["AZURE_OPENAI_*"],
	google: ["GEMINI_*", "GOOGLE_API_KEY"],
	"google-vertex": ["GOOGLE_CLOUD_*", "GOOGLE_APPLICATION_CREDENTIALS"],
	"amazon-bedrock": ["AWS_*"],
	deepseek: ["DEEPSEEK_*"],
	mistral: ["MISTRAL_*"],
	groq: ["GROQ_*"],
	cerebras: ["CEREBRAS_*"],
	"cloudflare-ai-gateway": ["CLOUDFLARE_*"],
	"cloudflare-workers-ai": ["CLOUDFLARE_*"],
	xai: ["XAI_*"],
	openrouter: ["OPENROUTER_*"],
	"vercel-ai-gateway": ["AI_GATEWAY_*"],
	zai: ["ZAI_*"],
	opencode: ["OPENCODE_*"],
	"opencode-go": ["OPENCODE_*"],
	fireworks: ["FIREWORKS_*"],
	"kimi-coding": ["KIMI_*"],
	minimax: ["MINIMAX_API_KEY"],
	"minimax-cn": ["MINIMAX_CN_*"],
	xiaomi: ["XIAOMI_API_KEY"],
	"xiaomi-token-plan-cn": ["XIAOMI_TOKEN_PLAN_CN_*"],
	"xiaomi-token-plan-ams": ["XIAOMI_TOKEN_PLAN_AMS_*"],
	"xiaomi-token-plan-sgp": ["XIAOMI_TOKEN_PLAN_SGP_*"],
};

/**
 * A part of a variable's name (between `_`s) that says the variable holds a credential (a key,
 * token, secret or password) or says where one is (a credentials file, a profile).
 */
const CREDENTIAL_PART = /^(KEYS?|TOKENS?|SECRETS?|PASSWORDS?|PASSWD|CREDENTIALS?|PROFILE)$/;

/**
 * Of the variables an agent CLI would see (`visible`), those that are credentials: named outright
 * in its rules (`credentials`: a provider's key, a variable a config file names as a key), or whose
 * name says they are (`ANTHROPIC_API_KEY`, `AWS_SESSION_TOKEN`). What else a provider's prefix
 * passes is a setting (`AWS_CA_BUNDLE`, `ANTHROPIC_BASE_URL`), and so is the base environment.
 */
export function credentialVariables(credentials: readonly string[], visible: readonly string[]): string[] {
	const named = new Set(credentials.filter((entry) => !entry.endsWith("*")));
	return visible.filter((key) => named.has(key) || key.split("_").some((part) => CREDENTIAL_PART.test(part)));
}

/** A variable's name as a CLI's config may give it, rather than a key written out. */
const VARIABLE_NAME = /^[A-Z][A-Z0-9_]*$/;

/**
 * What pi needs to reach the model it runs: its own variables, and the variables of the model's
 * provider (`provider/id`). Without a model pi picks one from its own settings, so every provider's
 * variables pass. A custom provider in pi's `models.json` whose `apiKey` names a variable gets it.
 */
export function piCredentials(model: string | undefined, env: NodeJS.ProcessEnv): string[] {
	const provider = model?.includes("/") ? model.slice(0, model.indexOf("/")) : undefined;
	const known = provider ? (PROVIDER_VARIABLES[provider] ?? []) : Object.values(PROVIDER_VARIABLES).flat();
	return ["PI_*", ...known, ...piCustomKeys(provider, env)];
}

/** A provider of pi's `models.json`, as far as it names variables. */
interface CustomProvider {
	readonly apiKey?: unknown;
	readonly headers?: unknown;
}

/**
 * Variables named by pi's custom providers (`models.json`): of `provider`, or of all of them. An
 * `apiKey` may be a variable's name (pi 0.73); it and header values may hold `$NAME` or `${NAME}`
 * (pi 1.x), where `$$` is a `$` written out.
 */
function piCustomKeys(provider: string | undefined, env: NodeJS.ProcessEnv): string[] {
	const dir = piAgentDir(env);
	const file = dir ? join(dir, "models.json") : undefined;
	if (!file || !existsSync(file)) return [];
	let providers: Record<string, CustomProvider>;
	try {
		providers = (JSON.parse(readFileSync(file, "utf8")) as { providers?: typeof providers }).providers ?? {};
	} catch {
		// A models.json pi cannot read either: pi reports it; no variable is named by it.
		return [];
	}
	return Object.entries(providers)
		.filter(([name]) => provider === undefined || name === provider)
		.flatMap(([, p]) => {
			const headers = typeof p.headers === "object" && p.headers !== null ? Object.values(p.headers) : [];
			const bare = typeof p.apiKey === "string" && VARIABLE_NAME.test(p.apiKey) ? [p.apiKey] : [];
			return [...bare, ...[p.apiKey, ...headers].flatMap(interpolated)];
		});
}

/** The variables `$NAME` and `${NAME}` in `value` names, past each `$$`. */
function interpolated(value: unknown): string[] {
	if (typeof value !== "string") return [];
	return [...value.replaceAll("$$", "").matchAll(/\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))/g)].map(
		(m) => (m[1] ?? m[2]) as string,
	);
}

/** pi's configuration folder: `PI_CODING_AGENT_DIR`, else `~/.pi/agent`. */
export function piAgentDir(env: NodeJS.ProcessEnv): string | undefined {
	return env.PI_CODING_AGENT_DIR || (env.HOME ? join(env.HOME, ".pi", "agent") : undefined);
}

/** pi's default model from its settings (`defaultProvider`, `defaultModel`), when set. */
export function piDefault(env: NodeJS.ProcessEnv): string | undefined {
	const dir = piAgentDir(env);
	const file = dir ? join(dir, "settings.json") : undefined;
	if (!file || !existsSync(file)) return undefined;
	try {
		const settings = JSON.parse(readFileSync(file, "utf8")) as { defaultProvider?: unknown; defaultModel?: unknown };
		if (typeof settings.defaultModel !== "string") return undefined;
		return typeof settings.defaultProvider === "string"
			? `${settings.defaultProvider}/${settings.defaultModel}`
			: settings.defaultModel;
	} catch {
		// A settings file pi cannot read either: pi reports it when it runs; no default is known.
		return undefined;
	}
}

/** Claude Code reads Anthropic's variables and its own. */
export function claudeCredentials(): string[] {
	return ["ANTHROPIC_*", "CLAUDE_*"];
}

/**
 * Codex reads OpenAI's variables and its own, and the variables its configured model providers
 * name (`env_key` in `$CODEX_HOME/config.toml`, default `~/.codex/config.toml`).
 */
export function codexCredentials(env: NodeJS.ProcessEnv): string[] {
	const home = env.CODEX_HOME || (env.HOME ? join(env.HOME, ".codex") : undefined);
	const file = home ? join(home, "config.toml") : undefined;
	const named =
		file && existsSync(file)
			? [...readFileSync(file, "utf8").matchAll(/^\s*env_key\s*=\s*"([A-Z][A-Z0-9_]*)"/gm)].map((m) => m[1] as string)
			: [];
	return ["OPENAI_*", "CODEX_*", ...named];
}

/**
 * The variable that holds a pi provider's API key, as pi's providers guide names it
 * (`<PREFIX>_API_KEY`); undefined for providers whose credentials are not one key (AWS, Vertex).
 */
export function piProviderKey(provider: string): string | undefined {
	if (provider === "amazon-bedrock" || provider === "google-vertex") return undefined;
	const first = PROVIDER_VARIABLES[provider]?.[0];
	if (!first) return undefined;
	return first.endsWith("_*") ? `${first.slice(0, -2)}_API_KEY` : first;
}
