// Where each agent CLI reaches its model, as hosts and ports a confined attempt's network gate lets through.

import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { HostPort } from "../../core/sandbox-level.js";
import { codexConfig } from "../codex/config.js";
import { piAgentDir, piDefault } from "./credentials.js";

/**
 * The hosts each of pi's built-in providers is reached at (its model catalog's base URLs), and
 * where its subscription logins renew their tokens. Providers whose host depends on the user's
 * account or region (Azure, Vertex, Bedrock, Cloudflare's gateway) are not here: the user allows
 * their host in `sandbox.hosts`.
 */
const PI_PROVIDER_HOSTS: Readonly<Record<string, readonly string[]>> = {
	anthropic: ["api.anthropic.com", "platform.claude.com"],
	openai: ["api.openai.com"],
	"openai-codex": ["chatgpt.com", "auth.openai.com"],
	google: ["generativelanguage.googleapis.com"],
	"github-copilot": ["api.individual.githubcopilot.com", "api.github.com"],
	cerebras: ["api.cerebras.ai"],
	"cloudflare-workers-ai": ["api.cloudflare.com"],
	deepseek: ["api.deepseek.com"],
	fireworks: ["api.fireworks.ai"],
	groq: ["api.groq.com"],
	huggingface: ["router.huggingface.co"],
	"kimi-coding": ["api.kimi.com"],
	minimax: ["api.minimax.io"],
	"minimax-cn": ["api.minimaxi.com"],
	mistral: ["api.mistral.ai"],
	moonshotai: ["api.moonshot.ai"],
	"moonshotai-cn": ["api.moonshot.cn"],
	opencode: ["opencode.ai"],
	"opencode-go": ["opencode.ai"],
	openrouter: ["openrouter.ai"],
	"vercel-ai-gateway": ["ai-gateway.vercel.sh"],
	xai: ["api.x.ai"],
	xiaomi: ["api.xiaomimimo.com"],
	"xiaomi-token-plan-ams": ["token-plan-ams.xiaomimimo.com"],
	"xiaomi-token-plan-cn": ["token-plan-cn.xiaomimimo.com"],
	"xiaomi-token-plan-sgp": ["token-plan-sgp.xiaomimimo.com"],
	zai: ["api.z.ai"],
};

/** Claude Code's API, and where its subscription login renews its token. */
const CLAUDE_HOSTS = ["api.anthropic.com", "platform.claude.com"];
/** OpenAI's API, the ChatGPT backend Codex uses under a ChatGPT login, and where that login renews. */
const OPENAI_HOSTS = ["api.openai.com", "chatgpt.com", "auth.openai.com"];
/** Codex's built-in local providers, by `model_provider`. */
const CODEX_LOCAL: Readonly<Record<string, string>> = {
	ollama: "http://localhost:11434",
	lmstudio: "http://localhost:1234",
};

/** The host and port of `url`, its scheme's port when it names none; undefined when it is not a URL. */
export function urlHost(url: string): HostPort | undefined {
	try {
		const parsed = new URL(url);
		const port = Number(parsed.port || (parsed.protocol === "http:" ? 80 : 443));
		return { host: parsed.hostname.replace(/^\[|\]$/g, "").toLowerCase(), port };
	} catch {
		return undefined;
	}
}

const https = (hosts: readonly string[]): HostPort[] => hosts.map((host) => ({ host, port: 443 }));

/** A custom provider or model of pi's `models.json`, as far as its address goes. */
interface PiProvider {
	readonly baseUrl?: unknown;
	readonly models?: readonly { readonly id?: unknown; readonly baseUrl?: unknown }[];
}

/**
 * Where pi reaches `model` (`provider/id`): the base URLs `models.json` gives its provider (and
 * that provider's models), else the provider's built-in hosts. Without a model, pi's default
 * model's provider; without one, every provider pi knows.
 */
export function piHosts(model: string | undefined, env: NodeJS.ProcessEnv): HostPort[] {
	const chosen = model ?? piDefault(env);
	const provider = chosen?.includes("/") ? chosen.slice(0, chosen.indexOf("/")) : undefined;
	const custom = piCustomProviders(env);
	const names = provider ? [provider] : [...new Set([...Object.keys(PI_PROVIDER_HOSTS), ...Object.keys(custom)])];
	return names.flatMap((name) => {
		const own = custom[name];
		const urls = [own?.baseUrl, ...(Array.isArray(own?.models) ? own.models.map((m) => m?.baseUrl) : [])];
		const given = urls.flatMap((url) => (typeof url === "string" ? [urlHost(url)].filter((h) => h !== undefined) : []));
		return given.length > 0 ? given : https(PI_PROVIDER_HOSTS[name] ?? []);
	});
}

/** The models of the providers pi's `models.json` adds, as `provider/id`: known to pi without asking it. */
export function piCustomModels(env: NodeJS.ProcessEnv): string[] {
	return Object.entries(piCustomProviders(env)).flatMap(([provider, given]) =>
		Array.isArray(given?.models)
			? given.models.flatMap((m) => (typeof m?.id === "string" ? [`${provider}/${m.id}`] : []))
			: [],
	);
}

function piCustomProviders(env: NodeJS.ProcessEnv): Readonly<Record<string, PiProvider>> {
	const dir = piAgentDir(env);
	const file = dir ? join(dir, "models.json") : undefined;
	if (!file || !existsSync(file)) return {};
	try {
		const providers = (JSON.parse(readFileSync(file, "utf8")) as { providers?: unknown }).providers;
		return typeof providers === "object" && providers !== null ? (providers as Record<string, PiProvider>) : {};
	} catch {
		// A models.json pi cannot read either: pi reports it; it names no host.
		return {};
	}
}

/** Where Claude Code reaches its model: `ANTHROPIC_BASE_URL`, else Anthropic's API and login. */
export function claudeHosts(env: NodeJS.ProcessEnv): HostPort[] {
	const base = env.ANTHROPIC_BASE_URL ? urlHost(env.ANTHROPIC_BASE_URL) : undefined;
	return base ? [base] : https(CLAUDE_HOSTS);
}

/**
 * Where Codex reaches its model: its configured provider's `base_url`, a built-in local provider's
 * server, or (the `openai` provider) `OPENAI_BASE_URL`, else OpenAI's API and ChatGPT login.
 */
export function codexHosts(env: NodeJS.ProcessEnv): HostPort[] {
	const config = codexConfig(env);
	const base =
		config.baseUrl ?? CODEX_LOCAL[config.provider] ?? (config.provider === "openai" ? env.OPENAI_BASE_URL : undefined);
	const given = base ? urlHost(base) : undefined;
	return given ? [given] : https(OPENAI_HOSTS);
}
