import { basename } from "node:path";
import type { RoutingHints } from "../core/routing.js";
import { IntegrationMode } from "../core/types.js";
import { type Diagnostic, list, parseDocument } from "./frontmatter.js";

export interface TeamRole {
	readonly name: string;
	readonly agent: string;
	readonly model?: string;
	readonly fallbackModels?: readonly string[];
	readonly maxConcurrency?: number;
	readonly description: string;
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
	readonly roles: readonly TeamRole[];
	readonly hints: RoutingHints;
	readonly file: string;
}

const ROLE_LINE = /^\s*[-*]\s*([A-Za-z0-9_][A-Za-z0-9_.-]*)\s*:\s*(.*)$/;
const OVERRIDE = /^([A-Za-z][A-Za-z0-9_]*)=(\S*)$/;

export function parseTeam(text: string, file: string): { team: TeamResource; diagnostics: Diagnostic[] } {
	const { fields, body } = parseDocument(text);
	const diagnostics: Diagnostic[] = [];
	const roles: TeamRole[] = [];
	for (const line of body.split("\n")) {
		const match = ROLE_LINE.exec(line);
		if (!match?.[1]) continue;
		const overrides: Record<string, string> = {};
		const words: string[] = [];
		for (const token of (match[2] ?? "").split(/\s+/).filter(Boolean)) {
			const kv = OVERRIDE.exec(token);
			if (kv?.[1]) overrides[kv[1]] = kv[2] ?? "";
			else words.push(token);
		}
		const limit = overrides.maxConcurrency === undefined ? undefined : Number(overrides.maxConcurrency);
		if (limit !== undefined && !(Number.isInteger(limit) && limit >= 1)) {
			diagnostics.push({
				level: "error",
				file,
				message: `role '${match[1]}' has maxConcurrency=${overrides.maxConcurrency}; expected an integer >= 1`,
			});
		}
		roles.push({
			name: match[1],
			agent: overrides.agent || match[1],
			...(overrides.model && overrides.model !== "false" ? { model: overrides.model } : {}),
			...(overrides.fallbackModels ? { fallbackModels: list(overrides.fallbackModels) } : {}),
			...(limit !== undefined && Number.isInteger(limit) && limit >= 1 ? { maxConcurrency: limit } : {}),
			description: words.join(" "),
			overrides,
		});
	}
	const mode = fields.workspaceMode ?? "single";
	if (!["single", "shared", "worktree"].includes(mode)) {
		diagnostics.push({ level: "error", file, message: `workspaceMode '${mode}': expected single, shared or worktree` });
	}
	const max = fields.maxConcurrency === undefined ? undefined : Number(fields.maxConcurrency);
	if (max !== undefined && !(Number.isInteger(max) && max >= 1)) {
		diagnostics.push({
			level: "error",
			file,
			message: `maxConcurrency '${fields.maxConcurrency}': expected an integer >= 1`,
		});
	}
	const integration = fields.integration;
	const modes: readonly string[] = Object.values(IntegrationMode);
	if (integration !== undefined && !modes.includes(integration)) {
		diagnostics.push({ level: "error", file, message: `integration '${integration}': expected ${modes.join(" or ")}` });
	}
	if (roles.length === 0)
		diagnostics.push({ level: "error", file, message: "team has no role lines ('- role: agent=...')" });
	return {
		team: {
			name: fields.name || basename(file).replace(/(\.team)?\.md$/, ""),
			description: fields.description ?? "",
			...(fields.defaultWorkflow ? { defaultWorkflow: fields.defaultWorkflow } : {}),
			workspaceMode: mode === "worktree" ? "worktree" : "shared",
			...(max !== undefined && Number.isInteger(max) && max >= 1 ? { maxConcurrency: max } : {}),
			...(integration !== undefined && modes.includes(integration)
				? { integration: integration as IntegrationMode }
				: {}),
			roles,
			hints: { triggers: list(fields.triggers), useWhen: fields.useWhen ?? "", avoidWhen: fields.avoidWhen ?? "" },
			file,
		},
		diagnostics,
	};
}
