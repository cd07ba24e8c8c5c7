// `crew doctor`'s checks of agent CLIs: their agents' models and credentials, without a model call.

import { spawn } from "node:child_process";
import { join } from "node:path";
import { codexConfig } from "../codex/config.js";
import {
	claudeCredentials,
	codexCredentials,
	piAgentDir,
	piCredentials,
	piDefault,
	piProviderKey,
} from "./credentials.js";
import { agentEnvironment } from "./environment.js";
import { failureLine } from "./failure-lines.js";

/** One finding of `crew doctor`; `fix` says what to do when it is not ok. */
export interface Check {
	readonly name: string;
	readonly ok: boolean;
	readonly detail: string;
	readonly fix?: string;
}

/** An agent CLI as a repository's agents use it. */
export interface RuntimeUse {
	readonly runtime: "pi" | "claude" | "codex";
	/** The program and its first arguments. */
	readonly command: readonly string[];
	/** Each model the agents name, with the agents naming it; `undefined`: the CLI's own default. */
	readonly models: ReadonlyMap<string | undefined, readonly string[]>;
}

interface ProgramOutput {
	readonly code: number | null;
	readonly stdout: string;
	readonly stderr: string;
	readonly error?: Error;
}

/**
 * Runs a program with stdin closed and waits for it, for at most `timeoutMs` (default 30 s), in
 * `cwd` (default: this process's).
 */
export function runProgram(
	command: readonly string[],
	args: readonly string[],
	env: NodeJS.ProcessEnv,
	timeoutMs = 30_000,
	cwd?: string,
): Promise<ProgramOutput> {
	const [file, ...lead] = command;
	return new Promise((resolve) => {
		const child = spawn(file as string, [...lead, ...args], {
			env,
			...(cwd !== undefined ? { cwd } : {}),
			stdio: ["ignore", "pipe", "pipe"],
			signal: AbortSignal.timeout(timeoutMs),
		});
		let stdout = "";
		let stderr = "";
		child.stdout.on("data", (chunk: Buffer) => {
			stdout += chunk.toString("utf8");
		});
		child.stderr.on("data", (chunk: Buffer) => {
			stderr += chunk.toString("utf8");
		});
		child.once("error", (error) => resolve({ code: null, stdout, stderr, error }));
		child.once("close", (code) => resolve({ code, stdout, stderr }));
	});
}

/** Why a program's run failed, in one line. */
export function whyFailed(runtime: string, out: ProgramOutput): string {
	if (out.error) return out.error.message;
	return failureLine(runtime, { head: out.stderr, tail: out.stderr }) ?? `exit code ${out.code}`;
}

/** "model (agent a, agent b)", or the CLI's default for agents that name none. */
function described(model: string | undefined, agents: readonly string[], fallback: string): string {
	const who = agents.length > 3 ? `${agents.length} agents` : agents.map((a) => `agent ${a}`).join(", ");
	return who === "" ? (model ?? fallback) : `${model ?? fallback} (${who})`;
}

/** The models each agent CLI would run for these agents, as a check: every CLI has a default. */
function modelCheck(use: RuntimeUse, fallback: string): Check {
	const detail = [...use.models].map(([model, agents]) => described(model, agents, fallback)).join("; ");
	return { name: `${use.runtime} model`, ok: true, detail };
}

/**
 * What pi lists as the models it has credentials for, as `provider/id`: the rows after its
 * table's header, on whichever stream pi wrote it (0.73 writes it to stderr).
 */
function listedModels(output: string): string[] {
	const lines = output.split("\n");
	const header = lines.findIndex((line) => /^provider\s+model\b/.test(line.trim()));
	if (header < 0) return [];
	return lines
		.slice(header + 1)
		.map((line) => line.trim().split(/\s+/))
		.filter((cols) => cols.length >= 2 && cols[0] !== "")
		.map(([provider, id]) => `${provider}/${id}`);
}

/**
 * The models pi started by `command` has credentials for, as `provider/id`, from `pi
 * --list-models` in the environment its agents get; else why it could not say.
 */
export async function piModels(command: readonly string[], env: NodeJS.ProcessEnv): Promise<string[] | string> {
	const out = await runProgram(command, ["--list-models"], agentEnvironment(env, {}, piCredentials(undefined, env)));
	if (out.error || out.code !== 0) return whyFailed("pi", out);
	return listedModels(`${out.stdout}\n${out.stderr}`);
}

/** Whether `models` (pi's, as `provider/id`) hold `model`, given with its provider or without. */
export function piHas(models: readonly string[], model: string): boolean {
	return models.some((m) => m === model || m.endsWith(`/${model}`));
}

/**
 * pi: the models the agents use, pi's default for those that name none, and whether pi has
 * credentials for each, from `pi --list-models` (which lists only models with credentials).
 */
async function piReadiness(use: RuntimeUse, env: NodeJS.ProcessEnv): Promise<Check[]> {
	const listed = await piModels(use.command, env);
	if (typeof listed === "string")
		return [{ name: "pi credentials", ok: false, detail: `pi --list-models failed: ${listed}` }];
	const available = listed;
	const has = (model: string) => piHas(available, model);
	const fallback = piDefault(env);
	const missing: string[] = [];
	const providers = new Set<string>();
	for (const [model, agents] of use.models) {
		const resolved = model ?? fallback;
		if (resolved === undefined ? available.length > 0 : has(resolved)) continue;
		if (resolved !== undefined) missing.push(described(resolved, agents, ""));
		if (resolved?.includes("/")) providers.add(resolved.slice(0, resolved.indexOf("/")));
	}
	const checks = [modelCheck(use, fallback ? `${fallback}, pi's default` : "pi's choice")];
	if (available.length > 0 && missing.length === 0) {
		checks.push({
			name: "pi credentials",
			ok: true,
			detail: `found for ${available.length} models, those used among them`,
		});
		return checks;
	}
	const detail =
		available.length === 0
			? `pi has credentials for no model${missing.length > 0 ? `, so none for ${missing.join("; ")}` : ""}`
			: `pi has no credentials for ${missing.join("; ")}`;
	const keys = [...providers].map((p) => piProviderKey(p)).filter((k): k is string => k !== undefined);
	const key =
		keys.length > 0
			? keys.join(" and ")
			: "a provider's API key (ANTHROPIC_API_KEY, OPENAI_API_KEY, GEMINI_API_KEY, …)";
	const dir = piAgentDir(env) ?? "~/.pi/agent";
	const fix = `set ${key} in the environment crew runs in, or run \`pi\` and log in with /login, or add the provider to ${join(dir, "models.json")} (pi's docs/providers.md and docs/models.md)`;
	checks.push({ name: "pi credentials", ok: false, detail, fix });
	return checks;
}

/** Claude Code: its models, and whether it is logged in (`claude auth status`, no model call). */
async function claudeReadiness(use: RuntimeUse, env: NodeJS.ProcessEnv): Promise<Check[]> {
	const checks = [modelCheck(use, "Claude Code's default")];
	const out = await runProgram(use.command, ["auth", "status"], agentEnvironment(env, {}, claudeCredentials()));
	let status: { loggedIn?: unknown; authMethod?: unknown; apiKeySource?: unknown } | undefined;
	try {
		status = JSON.parse(out.stdout);
	} catch {
		// Not its JSON answer: reported below with what it said.
		status = undefined;
	}
	if (!status) {
		const detail = `claude auth status failed: ${whyFailed("claude", out)}`;
		checks.push({ name: "claude credentials", ok: false, detail });
	} else if (status.loggedIn === true) {
		const source = typeof status.apiKeySource === "string" ? `, from ${status.apiKeySource}` : "";
		checks.push({ name: "claude credentials", ok: true, detail: `logged in (${String(status.authMethod)}${source})` });
	} else {
		checks.push({
			name: "claude credentials",
			ok: false,
			detail: "Claude Code is not logged in",
			fix: "set ANTHROPIC_API_KEY in the environment crew runs in, or run `claude` and log in with /login (kept in CLAUDE_CONFIG_DIR, default ~/.claude)",
		});
	}
	return checks;
}

/**
 * Codex: its models, and its provider's credentials: the variable a custom provider's `env_key`
 * names, else a login (`codex login status`) or `CODEX_API_KEY`.
 */
async function codexReadiness(use: RuntimeUse, env: NodeJS.ProcessEnv): Promise<Check[]> {
	const config = codexConfig(env);
	const checks = [modelCheck(use, config.model ? `${config.model}, Codex's configured model` : "Codex's default")];
	const file = config.file ?? "~/.codex/config.toml";
	if (config.envKey) {
		const key = config.envKey;
		checks.push(
			env[key]
				? { name: "codex credentials", ok: true, detail: `${key} is set (provider ${config.provider})` }
				: {
						name: "codex credentials",
						ok: false,
						detail: `${key} is not set: provider ${config.provider} reads its key from it`,
						fix: `set ${key} in the environment crew runs in, or change env_key of [model_providers.${config.provider}] in ${file}`,
					},
		);
		return checks;
	}
	if (env.CODEX_API_KEY) {
		checks.push({ name: "codex credentials", ok: true, detail: "CODEX_API_KEY is set" });
		return checks;
	}
	const out = await runProgram(use.command, ["login", "status"], agentEnvironment(env, {}, codexCredentials(env)));
	checks.push(
		out.code === 0
			? { name: "codex credentials", ok: true, detail: `logged in (provider ${config.provider})` }
			: {
					name: "codex credentials",
					ok: false,
					detail: `Codex is not logged in (provider ${config.provider})${out.error ? `: ${out.error.message}` : ""}`,
					fix: "run `codex login` (or pipe a key to `codex login --with-api-key`), or set CODEX_API_KEY in the environment crew runs in",
				},
	);
	return checks;
}

/** Whether a runtime's agents can run here: its models and credentials, checked without a model call. */
export function readiness(use: RuntimeUse, env: NodeJS.ProcessEnv): Promise<Check[]> {
	if (use.runtime === "pi") return piReadiness(use, env);
	if (use.runtime === "claude") return claudeReadiness(use, env);
	return codexReadiness(use, env);
}
