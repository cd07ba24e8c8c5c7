import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { BudgetLimits } from "../core/budget.js";
import { parseDuration } from "../core/duration.js";
import { CrewError, ErrorCode, errorMessage } from "../core/errors.js";
import type { Project } from "./project.js";
import { userConfigDir } from "./resource-layers.js";

/** Settings from `config.json` files: the user's, then the project's on top. */
export interface Settings {
	readonly budget?: BudgetLimits;
	/** A command run in each new task worktree (user config only), and its time limit. */
	readonly setup?: SetupHook;
}

export interface SetupHook {
	readonly command: string;
	readonly timeoutMs: number;
}

/** How long a setup hook may take when its config does not say. */
const DEFAULT_SETUP_TIMEOUT_MS = 10 * 60_000;

const BUDGET_KEYS: readonly (keyof BudgetLimits)[] = ["tokens", "usd", "reserveTokens", "reserveUsd"];

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

function read(file: string, mayHaveHooks: boolean): Settings {
	let text: string;
	try {
		text = readFileSync(file, "utf8");
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code === "ENOENT") return {};
		throw new CrewError(ErrorCode.InvalidInput, `cannot read ${file}: ${errorMessage(error)}`);
	}
	let value: unknown;
	try {
		value = JSON.parse(text);
	} catch (error) {
		throw new CrewError(ErrorCode.InvalidInput, `${file} is not valid JSON: ${errorMessage(error)}`);
	}
	if (typeof value !== "object" || value === null || Array.isArray(value)) {
		throw new CrewError(ErrorCode.InvalidInput, `${file} must hold a JSON object`);
	}
	const worktree = (value as { worktree?: unknown }).worktree;
	if (worktree !== undefined && !mayHaveHooks) {
		throw new CrewError(
			ErrorCode.InvalidInput,
			`${file} may not set "worktree": setup hooks run commands, so only your user config may set them`,
		);
	}
	const setup = readSetup(file, worktree);
	const hooks = setup ? { setup } : {};
	const budget = (value as { budget?: unknown }).budget;
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
		if (typeof amount !== "number" || !Number.isFinite(amount) || amount < 0) {
			throw new CrewError(
				ErrorCode.InvalidInput,
				`${file}: budget ${key} ${JSON.stringify(amount)}: expected a number >= 0`,
			);
		}
		limits[key] = amount;
	}
	return { ...hooks, budget: limits };
}

/**
 * The settings a run starts from: `config.json` in the user's config folder, then the project's
 * `.crew/config.json`, whose values win. Flags on the command line win over both.
 */
export function loadSettings(project: Project, env: NodeJS.ProcessEnv = process.env): Settings {
	const user = read(join(userConfigDir(env), "config.json"), true);
	const own = read(join(project.crewDir, "config.json"), false);
	const budget = { ...user.budget, ...own.budget };
	return { ...(Object.keys(budget).length > 0 ? { budget } : {}), ...(user.setup ? { setup: user.setup } : {}) };
}
