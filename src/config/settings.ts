// Settings from the user's and the project's `config.json`, checked, and the keys only the user may set.

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { BUDGET_KEYS, type BudgetLimits, budgetProblem } from "../core/budget.js";
import { parseDuration, parseLimit } from "../core/duration.js";
import { CrewError, ErrorCode, errorMessage } from "../core/errors.js";
import { parseJsonText } from "../core/json-text.js";
import { type NestingSettings, readNesting } from "../core/nesting.js";
import { REGISTRIES, registryHosts } from "../core/registries.js";
import { isSandboxLevel, parseHostPort, SANDBOX_LEVELS, type SandboxLevel } from "../core/sandbox-level.js";
import { CREDENTIAL_ENV } from "../core/url-credentials.js";
import { type NotifyTarget, readNotifyTargets } from "./notify-targets.js";
import type { Project } from "./project.js";
import { userConfigDir } from "./resource-layers.js";

/** Settings from `config.json` files: the user's, then the project's on top. */
export interface Settings {
	readonly budget?: BudgetLimits;
	/** Limits on each attempt where no step, agent or flag sets one, in ms; 0: none. */
	readonly limits?: RunLimits;
	/** A command run in each new task worktree (user config only), and its time limit. */
	readonly setup?: SetupHook;
	/** The program of each agent CLI, by runtime name (user config only). */
	readonly programs?: Readonly<Partial<Record<AgentCliName, string>>>;
	/** Variable names (or prefixes ending in `*`) agents get beyond the allowlist (user config only). */
	readonly passEnv?: readonly string[];
	/** Most tasks at once a project's own team or workflow may ask for (user config only). */
	readonly maxConcurrency: number;
	/** The Redis URL runs hand their attempts to `crew worker`s through (user config only). */
	readonly queue?: string;
	/** How deep runs may nest, how many run below one run at once, and whether deep ones write (user config only). */
	readonly nesting?: NestingSettings;
	/** Whether a pi session is told when delegating to crew pays off (user config only; default off). */
	readonly delegation?: Delegation;
	/** The sandbox level of runs that ask for none (user config only). */
	readonly sandbox?: SandboxLevel;
	/** Hosts (`host:port`) confined agents may reach beside their model provider's (user config only). */
	readonly sandboxHosts?: readonly string[];
	/** Where runners tell of runs' ends and waits (user config only). */
	readonly notify?: readonly NotifyTarget[];
	/** What the project's config asked for that only the user's config may set: ignored. */
	readonly warnings: readonly string[];
}

export type AgentCliName = "pi" | "claude" | "codex";

/** `suggest`: delegate when it pays off; `auto`: delegate such work without asking first. */
export const DELEGATION = ["off", "suggest", "auto"] as const;
export type Delegation = (typeof DELEGATION)[number];

/** A run's limits on each attempt, in ms; 0: none. */
export interface RunLimits {
	readonly timeoutMs?: number;
	readonly stallTimeoutMs?: number;
}

/** The keys of `"limits"` in config.json, and the limit each sets. */
const LIMIT_KEYS = { timeout: "timeoutMs", stallTimeout: "stallTimeoutMs" } as const;

/** The concurrency cap for projects' own teams and workflows when the user's config sets none. */
export const DEFAULT_MAX_CONCURRENCY = 16;

/** Keys only the user's config may set: each makes crew run, reveal or start more than a project should decide. */
const USER_ONLY: readonly string[] = [
	"worktree",
	"runtimes",
	"passEnv",
	"maxConcurrency",
	"queue",
	"nesting",
	"delegation",
	"sandbox",
	"notify",
];

export interface SetupHook {
	readonly command: string;
	readonly timeoutMs: number;
}

/** How long a setup hook may take when its config does not say. */
const DEFAULT_SETUP_TIMEOUT_MS = 10 * 60_000;

function readSetup(file: string, worktree: unknown): SetupHook | undefined {
	if (worktree === undefined) return undefined;
	const w = worktree as { setup?: unknown; setupTimeout?: unknown };
	if (typeof worktree !== "object" || worktree === null || typeof w.setup !== "string" || w.setup.trim() === "") {
		throw new CrewError(
			ErrorCode.InvalidInput,
			`${file}: "worktree" must be {"setup": "<command>", "setupTimeout": "5m"}`,
		);
	}
	const timeoutMs =
		w.setupTimeout === undefined
			? DEFAULT_SETUP_TIMEOUT_MS
			: parseDuration(`${file}: worktree.setupTimeout`, String(w.setupTimeout));
	return { command: w.setup, timeoutMs };
}

interface FileSettings {
	readonly budget?: BudgetLimits;
	readonly limits?: RunLimits;
	readonly setup?: SetupHook;
	readonly programs?: Partial<Record<AgentCliName, string>>;
	readonly passEnv?: string[];
	readonly maxConcurrency?: number;
	readonly queue?: string;
	readonly nesting?: NestingSettings;
	readonly delegation?: Delegation;
	readonly sandbox?: SandboxLevel;
	readonly sandboxHosts?: readonly string[];
	readonly notify?: readonly NotifyTarget[];
	readonly warnings: string[];
}

function readLimits(file: string, value: unknown): RunLimits | undefined {
	if (value === undefined) return undefined;
	if (typeof value !== "object" || value === null || Array.isArray(value)) {
		throw new CrewError(ErrorCode.InvalidInput, `${file}: "limits" must be {"timeout": "2h", "stallTimeout": "10m"}`);
	}
	const limits: { timeoutMs?: number; stallTimeoutMs?: number } = {};
	for (const [key, limit] of Object.entries(value)) {
		const field = LIMIT_KEYS[key as keyof typeof LIMIT_KEYS];
		if (!field) {
			throw new CrewError(
				ErrorCode.InvalidInput,
				`${file}: unknown limits key "${key}": expected ${Object.keys(LIMIT_KEYS).join(" or ")}`,
			);
		}
		limits[field] = parseLimit(`${file}: limits.${key}`, limit as string | number);
	}
	return limits;
}

function readPrograms(file: string, value: unknown): Partial<Record<AgentCliName, string>> | undefined {
	if (value === undefined) return undefined;
	const names: readonly string[] = ["pi", "claude", "codex"];
	if (typeof value !== "object" || value === null || Array.isArray(value)) {
		throw new CrewError(ErrorCode.InvalidInput, `${file}: "runtimes" must be {"pi": "<program>", …}`);
	}
	for (const [name, program] of Object.entries(value)) {
		if (!names.includes(name) || typeof program !== "string" || program.trim() === "") {
			throw new CrewError(
				ErrorCode.InvalidInput,
				`${file}: runtimes.${name} ${JSON.stringify(program)}: expected a program path for pi, claude or codex`,
			);
		}
	}
	return value as Partial<Record<AgentCliName, string>>;
}

function readPassEnv(file: string, value: unknown): string[] | undefined {
	if (value === undefined) return undefined;
	if (!Array.isArray(value) || !value.every((v) => typeof v === "string" && /^[A-Za-z_][A-Za-z0-9_]*\*?$/.test(v))) {
		throw new CrewError(
			ErrorCode.InvalidInput,
			`${file}: "passEnv" ${JSON.stringify(value)}: expected a list of variable names, or prefixes ending in *`,
		);
	}
	return value as string[];
}

function readMaxConcurrency(file: string, value: unknown): number | undefined {
	if (value === undefined) return undefined;
	if (typeof value !== "number" || !Number.isInteger(value) || value < 1) {
		throw new CrewError(
			ErrorCode.InvalidInput,
			`${file}: maxConcurrency ${JSON.stringify(value)}: expected an integer >= 1`,
		);
	}
	return value;
}

function readQueue(file: string, value: unknown): string | undefined {
	if (value === undefined) return undefined;
	const url = (value as { url?: unknown } | null)?.url;
	if (typeof value !== "object" || typeof url !== "string" || !url.startsWith("redis://")) {
		throw new CrewError(ErrorCode.InvalidInput, `${file}: "queue" must be {"url": "redis://host:port"}`);
	}
	return url;
}

function readDelegation(file: string, value: unknown): Delegation | undefined {
	if (value === undefined) return undefined;
	if (!(DELEGATION as readonly unknown[]).includes(value)) {
		throw new CrewError(
			ErrorCode.InvalidInput,
			`${file}: "delegation" ${JSON.stringify(value)}: expected ${DELEGATION.map((d) => `"${d}"`).join(", ")}`,
		);
	}
	return value as Delegation;
}

/**
 * `"sandbox"`: a level, or `{"level": …, "hosts": ["host:port", …], "registries": ["npm", …]}`; the
 * hosts of the registries named are among those it allows.
 */
function readSandbox(file: string, value: unknown): { level?: SandboxLevel; hosts?: string[] } {
	const levels = SANDBOX_LEVELS.map((l) => `"${l}"`).join(", ");
	if (value === undefined) return {};
	if (isSandboxLevel(value)) return { level: value };
	if (typeof value !== "object" || value === null || Array.isArray(value)) {
		throw new CrewError(
			ErrorCode.InvalidInput,
			`${file}: "sandbox" ${JSON.stringify(value)}: expected ${levels}, or {"level": …, "hosts": ["host:port", …], "registries": ["npm", …]}`,
		);
	}
	const { level, hosts, registries, ...rest } = value as Record<string, unknown>;
	const unknown = Object.keys(rest)[0];
	if (unknown !== undefined)
		throw new CrewError(
			ErrorCode.InvalidInput,
			`${file}: "sandbox" has unknown key "${unknown}": expected level, hosts, registries`,
		);
	if (level !== undefined && !isSandboxLevel(level))
		throw new CrewError(
			ErrorCode.InvalidInput,
			`${file}: "sandbox" level ${JSON.stringify(level)}: expected ${levels}`,
		);
	if (hosts !== undefined && !Array.isArray(hosts))
		throw new CrewError(ErrorCode.InvalidInput, `${file}: "sandbox" hosts must be a list of "host:port"`);
	const bad = hosts?.find((h) => typeof h !== "string" || parseHostPort(h) === undefined);
	if (bad !== undefined)
		throw new CrewError(
			ErrorCode.InvalidInput,
			`${file}: "sandbox" host ${JSON.stringify(bad)}: expected "host:port", a port from 1 to 65535 (e.g. "api.example.com:443")`,
		);
	const allowed = [...((hosts as string[] | undefined) ?? []), ...registryHosts(readRegistries(file, registries))];
	return { ...(level ? { level } : {}), ...(allowed.length > 0 ? { hosts: [...new Set(allowed)] } : {}) };
}

/** `"registries"` of `"sandbox"`: names of `REGISTRIES`. */
function readRegistries(file: string, value: unknown): string[] {
	if (value === undefined) return [];
	const names = Object.keys(REGISTRIES);
	const expected = `expected a list of ${names.map((name) => `"${name}"`).join(", ")}`;
	if (!Array.isArray(value)) throw new CrewError(ErrorCode.InvalidInput, `${file}: "sandbox" registries: ${expected}`);
	const bad = value.find((name) => typeof name !== "string" || !names.includes(name));
	if (bad !== undefined)
		throw new CrewError(ErrorCode.InvalidInput, `${file}: "sandbox" registry ${JSON.stringify(bad)}: ${expected}`);
	return value as string[];
}

function read(file: string, isUser: boolean): FileSettings {
	let text: string;
	try {
		text = readFileSync(file, "utf8");
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code === "ENOENT") return { warnings: [] };
		throw new CrewError(ErrorCode.InvalidInput, `cannot read ${file}: ${errorMessage(error)}`);
	}
	const value = parseJsonText(text, file);
	if (typeof value !== "object" || value === null || Array.isArray(value)) {
		throw new CrewError(ErrorCode.InvalidInput, `${file} must hold a JSON object`);
	}
	const fields = value as Record<string, unknown>;
	const warnings: string[] = [];
	if (!isUser) {
		for (const key of USER_ONLY.filter((k) => fields[k] !== undefined)) {
			warnings.push(`${file}: "${key}" is ignored: only your user config may set it`);
		}
	}
	const own = (key: string) => (isUser ? fields[key] : undefined);
	const setup = readSetup(file, own("worktree"));
	const programs = readPrograms(file, own("runtimes"));
	const passEnv = readPassEnv(file, own("passEnv"));
	const maxConcurrency = readMaxConcurrency(file, own("maxConcurrency"));
	const queue = readQueue(file, own("queue"));
	const nesting = readNesting(file, own("nesting"));
	const delegation = readDelegation(file, own("delegation"));
	const sandbox = readSandbox(file, own("sandbox"));
	const notify = readNotifyTargets(file, own("notify"));
	const runLimits = readLimits(file, fields.limits);
	const hooks: FileSettings = {
		warnings,
		...(runLimits ? { limits: runLimits } : {}),
		...(setup ? { setup } : {}),
		...(programs ? { programs } : {}),
		...(passEnv ? { passEnv } : {}),
		...(maxConcurrency !== undefined ? { maxConcurrency } : {}),
		...(queue ? { queue } : {}),
		...(nesting ? { nesting } : {}),
		...(delegation ? { delegation } : {}),
		...(sandbox.level ? { sandbox: sandbox.level } : {}),
		...(sandbox.hosts ? { sandboxHosts: sandbox.hosts } : {}),
		...(notify ? { notify } : {}),
	};
	const budget = fields.budget;
	if (budget === undefined) return hooks;
	if (typeof budget !== "object" || budget === null || Array.isArray(budget)) {
		throw new CrewError(ErrorCode.InvalidInput, `${file}: "budget" must be an object`);
	}
	const limits: Record<string, number> = {};
	for (const [key, amount] of Object.entries(budget)) {
		if (!(BUDGET_KEYS as readonly string[]).includes(key)) {
			throw new CrewError(
				ErrorCode.InvalidInput,
				`${file}: unknown budget key "${key}": expected ${BUDGET_KEYS.join(", ")}`,
			);
		}
		const problem = budgetProblem(key, amount);
		if (problem)
			throw new CrewError(ErrorCode.InvalidInput, `${file}: budget ${key} ${JSON.stringify(amount)}: ${problem}`);
		limits[key] = amount;
	}
	return { ...hooks, budget: limits };
}

/**
 * The settings a run starts from: `config.json` in the user's config folder, then the project's
 * `.crew/config.json`, whose budget and limits win (a limit bounds what runs and lets nothing more
 * run; a project's own steps and agents may set limits anyway). Flags on the command line win
 * over both. Setup hooks, agent CLI programs, extra environment, the concurrency cap, the queue
 * and how deep runs may nest come from the user's config alone: a repository asking for them is ignored, with a warning.
 */
export function loadSettings(project: Project, env: NodeJS.ProcessEnv = process.env): Settings {
	const user = read(join(userConfigDir(env), "config.json"), true);
	const own = read(join(project.crewDir, "config.json"), false);
	const budget = { ...user.budget, ...own.budget };
	const limits = { ...user.limits, ...own.limits };
	return {
		...(Object.keys(budget).length > 0 ? { budget } : {}),
		...(Object.keys(limits).length > 0 ? { limits } : {}),
		...(user.setup ? { setup: user.setup } : {}),
		...(user.programs ? { programs: user.programs } : {}),
		...(user.passEnv ? { passEnv: user.passEnv } : {}),
		maxConcurrency: user.maxConcurrency ?? DEFAULT_MAX_CONCURRENCY,
		...(user.queue ? { queue: user.queue } : {}),
		...(user.nesting ? { nesting: user.nesting } : {}),
		...(user.delegation ? { delegation: user.delegation } : {}),
		...(user.sandbox ? { sandbox: user.sandbox } : {}),
		...(user.sandboxHosts ? { sandboxHosts: user.sandboxHosts } : {}),
		...(user.notify ? { notify: user.notify } : {}),
		warnings: own.warnings,
	};
}

/**
 * URLs whose credentials runs may need (the store keeps none): `CREW_QUEUE_URL`,
 * `CREW_REPOSITORY_URL`, then the user config's queue URL.
 */
export function credentialUrls(env: NodeJS.ProcessEnv = process.env): string[] {
	const fromEnv = [env[CREDENTIAL_ENV.queue], env[CREDENTIAL_ENV.repository]].filter((url): url is string => !!url);
	const queue = read(join(userConfigDir(env), "config.json"), true).queue;
	return [...fromEnv, ...(queue !== undefined ? [queue] : [])];
}

/**
 * A run's limits: each as given (a flag, a tool's argument: `0` or a duration), else as the
 * config sets it. A step's or an agent's own limit still wins over these when the run starts.
 */
export function runLimits(
	given: { readonly timeout?: string | number; readonly stallTimeout?: string | number },
	settings: Pick<Settings, "limits">,
): RunLimits {
	const timeoutMs = given.timeout === undefined ? settings.limits?.timeoutMs : parseLimit("timeout", given.timeout);
	const stallTimeoutMs =
		given.stallTimeout === undefined
			? settings.limits?.stallTimeoutMs
			: parseLimit("stall timeout", given.stallTimeout);
	return {
		...(timeoutMs !== undefined ? { timeoutMs } : {}),
		...(stallTimeoutMs !== undefined ? { stallTimeoutMs } : {}),
	};
}
