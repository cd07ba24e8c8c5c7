import { basename } from "node:path";
import { parseLimit } from "../core/duration.js";
import { errorMessage } from "../core/errors.js";
import { isKnownTool } from "../core/tools.js";
import { PERMISSIONS, type Permissions } from "../core/types.js";
import { type Diagnostic, list, parseDocument } from "./frontmatter.js";

export interface AgentResource {
	readonly name: string;
	readonly description: string;
	readonly runtime: string;
	readonly command?: string;
	/** Undefined means "inherit the caller's model" (`model: false`). */
	readonly model?: string;
	readonly fallbackModels?: readonly string[];
	readonly tools?: readonly string[];
	readonly permissions?: Permissions;
	readonly maxTokens?: number;
	/** Limits on each attempt of the agent's tasks, in ms; 0: none. A step's own limit wins. */
	readonly timeoutMs?: number;
	readonly stallTimeoutMs?: number;
	readonly systemPrompt: string;
	readonly file: string;
}

/** Agents without `runtime:` are pi agents, as in pi-crew. */
export const DEFAULT_AGENT_RUNTIME = "pi";

const KNOWN: ReadonlySet<string> = new Set([
	"name",
	"description",
	"model",
	"fallbackModels",
	"thinking",
	"tools",
	"extensions",
	"excludeExtensions",
	"skills",
	"systemPromptMode",
	"inheritProjectContext",
	"inheritSkills",
	"triggers",
	"useWhen",
	"avoidWhen",
	"cost",
	"category",
	"maxTurns",
	"maxTokens",
	"effort",
	"disabled",
	"enabled",
	"runtime",
	"command",
	"permissions",
	"timeout",
	"stallTimeout",
]);

export function parseAgent(text: string, file: string): { agent: AgentResource; diagnostics: Diagnostic[] } {
	const { fields, body } = parseDocument(text);
	const diagnostics: Diagnostic[] = [];
	for (const key of Object.keys(fields)) {
		if (!KNOWN.has(key)) diagnostics.push({ level: "warning", file, message: `unknown agent field '${key}' kept` });
	}
	const model = fields.model && fields.model !== "false" ? fields.model : undefined;
	const tools = fields.tools === undefined ? undefined : list(fields.tools);
	for (const tool of tools ?? []) {
		if (!isKnownTool(tool)) {
			diagnostics.push({
				level: "warning",
				file,
				message: `tool '${tool}' is not one crew's runtimes have; it is left out`,
			});
		}
	}
	const fallbackModels = fields.fallbackModels ? list(fields.fallbackModels) : [];
	const maxTokens = fields.maxTokens ? Number(fields.maxTokens) : undefined;
	if (maxTokens !== undefined && !(Number.isInteger(maxTokens) && maxTokens > 0)) {
		diagnostics.push({ level: "error", file, message: `maxTokens '${fields.maxTokens}': expected an integer > 0` });
	}
	const permissions = fields.permissions || undefined;
	if (permissions !== undefined && !(PERMISSIONS as readonly string[]).includes(permissions)) {
		diagnostics.push({
			level: "error",
			file,
			message: `permissions '${permissions}': expected one of ${PERMISSIONS.join(", ")}`,
		});
	}
	const limits = agentLimits(fields, file, diagnostics);
	return {
		agent: {
			name: fields.name || basename(file).replace(/\.md$/, ""),
			description: fields.description ?? "",
			runtime: fields.runtime || DEFAULT_AGENT_RUNTIME,
			...(fields.command ? { command: fields.command } : {}),
			...(model ? { model } : {}),
			...(fallbackModels.length > 0 ? { fallbackModels } : {}),
			...(maxTokens !== undefined && Number.isInteger(maxTokens) && maxTokens > 0 ? { maxTokens } : {}),
			...(tools ? { tools } : {}),
			...(permissions && (PERMISSIONS as readonly string[]).includes(permissions)
				? { permissions: permissions as Permissions }
				: {}),
			...limits,
			systemPrompt: body.trim(),
			file,
		},
		diagnostics,
	};
}

/** The agent's `timeout:` and `stallTimeout:`; a value that is not 0 or a duration is an error naming it. */
function agentLimits(
	fields: Readonly<Record<string, string>>,
	file: string,
	diagnostics: Diagnostic[],
): Pick<AgentResource, "timeoutMs" | "stallTimeoutMs"> {
	const limits: { timeoutMs?: number; stallTimeoutMs?: number } = {};
	for (const [key, field] of [
		["timeout", "timeoutMs"],
		["stallTimeout", "stallTimeoutMs"],
	] as const) {
		const value = fields[key];
		if (value === undefined || value === "") continue;
		try {
			limits[field] = parseLimit(key, value);
		} catch (error) {
			diagnostics.push({ level: "error", file, message: errorMessage(error) });
		}
	}
	return limits;
}
