// Agent files: a markdown file's frontmatter and system prompt read into an agent resource, with diagnostics.

import { basename } from "node:path";
import { type AgentSetup, SYSTEM_PROMPT_MODES, type SystemPromptMode } from "../core/agent-setup.js";
import type { SandboxLevel } from "../core/sandbox-level.js";
import { type ThinkingLevel, thinkingProblem } from "../core/thinking.js";
import { isExtensionTool, isKnownTool } from "../core/tools.js";
import { PERMISSIONS, type Permissions } from "../core/types.js";
import { FieldReader } from "./field-reader.js";
import { byLine, type Diagnostic, parseDocument } from "./frontmatter.js";

export interface AgentResource {
	readonly name: string;
	readonly description: string;
	readonly runtime: string;
	readonly command?: string;
	/** Undefined means "inherit the caller's model" (`model: false`). */
	readonly model?: string;
	readonly fallbackModels?: readonly string[];
	/** Undefined means "inherit the caller's thinking level" (`thinking: false`, or none). */
	readonly thinking?: ThinkingLevel;
	readonly tools?: readonly string[];
	readonly permissions?: Permissions;
	readonly sandbox?: SandboxLevel;
	readonly maxTokens?: number;
	/** Limits on each attempt of the agent's tasks, in ms; 0: none. A step's own limit wins. */
	readonly timeoutMs?: number;
	readonly stallTimeoutMs?: number;
	/** pi-crew's keys for the CLI's system prompt, context, skills, extensions and turns. */
	readonly setup?: AgentSetup;
	/** `false`: a retry of its task starts it afresh rather than continue its session. */
	readonly continue?: false;
	readonly systemPrompt: string;
	readonly file: string;
	/** The file's line of each frontmatter key. */
	readonly lines?: Readonly<Record<string, number>>;
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
	"sandbox",
	"timeout",
	"stallTimeout",
	"continue",
]);

export function parseAgent(text: string, file: string): { agent: AgentResource; diagnostics: Diagnostic[] } {
	const diagnostics: Diagnostic[] = [];
	const { fields, body } = parseDocument(text, file, diagnostics);
	const read = new FieldReader(fields, file, diagnostics);
	read.checkKeys(KNOWN, "agent field");
	const name = read.text("name");
	const modelField = read.text("model");
	const model = modelField && modelField !== "false" ? modelField : undefined;
	const tools = read.list("tools");
	// Another name may be a tool of the agent's own pi extensions.
	const extended = (read.list("extensions")?.length ?? 0) > 0;
	for (const tool of tools ?? []) {
		if (!isKnownTool(tool) && !(extended && isExtensionTool(tool)))
			read.warning("tools", `tool '${tool}' is not one crew's runtimes have; it is left out`);
	}
	const fallbackModels = read.list("fallbackModels") ?? [];
	const thinkingField = read.text("thinking");
	const thinking = thinkingField && thinkingField !== "false" ? thinkingField : undefined;
	const thinkingError = thinking === undefined ? undefined : thinkingProblem(thinking);
	if (thinkingError) read.error("thinking", thinkingError);
	const maxTokensField = read.text("maxTokens");
	const maxTokens = maxTokensField ? Number(maxTokensField) : undefined;
	const maxTokensOk = maxTokens !== undefined && Number.isInteger(maxTokens) && maxTokens > 0;
	if (maxTokens !== undefined && !maxTokensOk) {
		read.error("maxTokens", `maxTokens '${maxTokensField}': expected an integer > 0`);
	}
	const permissions = read.text("permissions") || undefined;
	const permitted = permissions !== undefined && (PERMISSIONS as readonly string[]).includes(permissions);
	if (permissions !== undefined && !permitted) {
		read.error("permissions", `permissions '${permissions}': expected one of ${PERMISSIONS.join(", ")}`);
	}
	const setup = readSetup(read);
	const runtime = read.text("runtime");
	const command = read.text("command");
	const description = read.text("description");
	const continues = read.flag("continue");
	return {
		agent: {
			name: name || basename(file).replace(/\.md$/, ""),
			description: description ?? "",
			runtime: runtime || DEFAULT_AGENT_RUNTIME,
			...(command ? { command } : {}),
			...(model ? { model } : {}),
			...(fallbackModels.length > 0 ? { fallbackModels } : {}),
			...(thinking !== undefined && !thinkingError ? { thinking: thinking as ThinkingLevel } : {}),
			...(maxTokensOk ? { maxTokens } : {}),
			...(tools ? { tools } : {}),
			...(permitted ? { permissions: permissions as Permissions } : {}),
			...read.sandbox(),
			...read.limits(),
			...(Object.keys(setup).length > 0 ? { setup } : {}),
			...(continues === false ? { continue: false as const } : {}),
			systemPrompt: body.trim(),
			file,
			lines: read.lines(),
		},
		diagnostics: byLine(diagnostics),
	};
}

/** The agent's setup keys as written (`skills: false`, like `none`, is an empty list). */
function readSetup(read: FieldReader): AgentSetup {
	const mode = read.text("systemPromptMode") || undefined;
	const modeOk = mode === undefined || (SYSTEM_PROMPT_MODES as readonly string[]).includes(mode);
	if (!modeOk)
		read.error("systemPromptMode", `systemPromptMode '${mode}': expected one of ${SYSTEM_PROMPT_MODES.join(", ")}`);
	const setup: { -readonly [K in keyof AgentSetup]: AgentSetup[K] } = {
		systemPromptMode: modeOk ? (mode as SystemPromptMode | undefined) : undefined,
		inheritProjectContext: read.flag("inheritProjectContext"),
		inheritSkills: read.flag("inheritSkills"),
		skills: read.list("skills"),
		extensions: read.list("extensions"),
		excludeExtensions: read.list("excludeExtensions"),
		maxTurns: read.integer("maxTurns", 1),
	};
	return Object.fromEntries(Object.entries(setup).filter(([, v]) => v !== undefined)) as AgentSetup;
}
