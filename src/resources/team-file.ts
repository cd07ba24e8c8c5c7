// Team files: frontmatter and `- role: agent=...` lines read into a team resource, with diagnostics.

import { basename } from "node:path";
import { typoOf } from "../core/near-names.js";
import type { RoutingHints } from "../core/routing.js";
import type { SandboxLevel } from "../core/sandbox-level.js";
import { type ThinkingLevel, thinkingProblem } from "../core/thinking.js";
import { IntegrationMode } from "../core/types.js";
import { FieldReader } from "./field-reader.js";
import { byLine, type Diagnostic, list, parseDocument } from "./frontmatter.js";

export interface TeamRole {
	readonly name: string;
	readonly agent: string;
	readonly model?: string;
	readonly fallbackModels?: readonly string[];
	readonly thinking?: ThinkingLevel;
	readonly maxConcurrency?: number;
	/** Skills the role's agent is given beside its own (`skills=a,b`); empty (`skills=false`): none at all. */
	readonly skills?: readonly string[];
	readonly description: string;
	/** The file's line the role is on. */
	readonly line?: number;
	/** Every `key=value` written on the role line. */
	readonly overrides: Readonly<Record<string, string>>;
}

export interface TeamResource {
	readonly name: string;
	readonly description: string;
	readonly defaultWorkflow?: string;
	readonly workspaceMode: "shared" | "worktree";
	readonly maxConcurrency?: number;
	/** How conflicts between a worktree run's branches are settled; absent means `auto`. */
	readonly integration?: IntegrationMode;
	/** The sandbox of the team's tasks, unless their agent or step asks for another. */
	readonly sandbox?: SandboxLevel;
	readonly roles: readonly TeamRole[];
	readonly hints: RoutingHints;
	readonly file: string;
	/** The file's line of each frontmatter key. */
	readonly lines?: Readonly<Record<string, number>>;
}

const ROLE_LINE = /^\s*[-*]\s*([A-Za-z0-9_][A-Za-z0-9_.-]*)\s*:\s*(.*)$/;
const OVERRIDE = /^([A-Za-z][A-Za-z0-9_]*)=(\S*)$/;

const KNOWN: ReadonlySet<string> = new Set([
	"name",
	"description",
	"defaultWorkflow",
	"workspaceMode",
	"maxConcurrency",
	"integration",
	"sandbox",
	"triggers",
	"useWhen",
	"avoidWhen",
	"cost",
	"category",
]);

/** The `key=` words of a role line. */
const ROLE_KEYS: ReadonlySet<string> = new Set([
	"agent",
	"model",
	"fallbackModels",
	"thinking",
	"skills",
	"tools",
	"maxConcurrency",
]);

export function parseTeam(text: string, file: string): { team: TeamResource; diagnostics: Diagnostic[] } {
	const diagnostics: Diagnostic[] = [];
	const { fields, body, bodyLine } = parseDocument(text, file, diagnostics);
	const read = new FieldReader(fields, file, diagnostics);
	read.checkKeys(KNOWN, "team field");
	const roles: TeamRole[] = [];
	for (const [i, line] of body.split("\n").entries()) {
		const match = ROLE_LINE.exec(line);
		if (!match?.[1]) continue;
		const role = roleOf(match[1], match[2] ?? "", file, bodyLine + i, diagnostics);
		if (roles.some((r) => r.name === role.name)) {
			diagnostics.push({ level: "error", file, line: bodyLine + i, message: `role '${role.name}' is given twice` });
		}
		roles.push(role);
	}
	const mode = read.text("workspaceMode") ?? "single";
	if (!["single", "shared", "worktree"].includes(mode)) {
		read.error("workspaceMode", `workspaceMode '${mode}': expected single, shared or worktree`);
	}
	const max = read.integer("maxConcurrency", 1);
	const integration = read.text("integration");
	const modes: readonly string[] = Object.values(IntegrationMode);
	if (integration !== undefined && !modes.includes(integration)) {
		read.error("integration", `integration '${integration}': expected ${modes.join(" or ")}`);
	}
	if (roles.length === 0)
		diagnostics.push({ level: "error", file, message: "team has no role lines ('- role: agent=...')" });
	const defaultWorkflow = read.text("defaultWorkflow");
	return {
		team: {
			name: read.text("name") || basename(file).replace(/(\.team)?\.md$/, ""),
			description: read.text("description") ?? "",
			...(defaultWorkflow ? { defaultWorkflow } : {}),
			workspaceMode: mode === "worktree" ? "worktree" : "shared",
			...(max !== undefined ? { maxConcurrency: max } : {}),
			...(integration !== undefined && modes.includes(integration)
				? { integration: integration as IntegrationMode }
				: {}),
			...read.sandbox(),
			roles,
			hints: {
				triggers: read.list("triggers") ?? [],
				// pi-crew documents these as lists; matching reads their words either way.
				useWhen: (read.list("useWhen") ?? []).join(", "),
				avoidWhen: (read.list("avoidWhen") ?? []).join(", "),
			},
			file,
			lines: read.lines(),
		},
		diagnostics: byLine(diagnostics),
	};
}

/** One `- <role>: agent=<agent> key=value… description` line. */
function roleOf(name: string, rest: string, file: string, line: number, diagnostics: Diagnostic[]): TeamRole {
	const overrides: Record<string, string> = {};
	const words: string[] = [];
	const problem = (level: Diagnostic["level"], message: string) =>
		diagnostics.push({ level, file, line, message: `role '${name}': ${message}` });
	for (const token of rest.split(/\s+/).filter(Boolean)) {
		const kv = OVERRIDE.exec(token);
		if (!kv?.[1]) {
			words.push(token);
			continue;
		}
		overrides[kv[1]] = kv[2] ?? "";
		if (ROLE_KEYS.has(kv[1])) continue;
		const meant = typoOf(kv[1], ROLE_KEYS);
		if (meant !== undefined) problem("error", `unknown key '${kv[1]}='; did you mean \`${meant}=\`?`);
		else problem("warning", `unknown key '${kv[1]}=' kept`);
	}
	const limit = overrides.maxConcurrency === undefined ? undefined : Number(overrides.maxConcurrency);
	const limitOk = limit !== undefined && Number.isInteger(limit) && limit >= 1;
	if (limit !== undefined && !limitOk) {
		problem("error", `maxConcurrency=${overrides.maxConcurrency}: expected an integer >= 1`);
	}
	const thinking = overrides.thinking && overrides.thinking !== "false" ? overrides.thinking : undefined;
	const thinkingError = thinking === undefined ? undefined : thinkingProblem(thinking);
	if (thinkingError) problem("error", thinkingError);
	return {
		name,
		agent: overrides.agent || name,
		...(overrides.model && overrides.model !== "false" ? { model: overrides.model } : {}),
		...(overrides.fallbackModels ? { fallbackModels: list(overrides.fallbackModels) } : {}),
		...(thinking !== undefined && !thinkingError ? { thinking: thinking as ThinkingLevel } : {}),
		...(limitOk ? { maxConcurrency: limit } : {}),
		...(overrides.skills !== undefined ? { skills: list(overrides.skills) } : {}),
		description: words.join(" "),
		line,
		overrides,
	};
}
