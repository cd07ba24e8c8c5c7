// The Claude Code agent CLI: its command line, tools, permissions, thinking levels and stream-json input.

import { homedir } from "node:os";
import { join } from "node:path";
import { replacesSystemPrompt, unsetKeys } from "../../core/agent-setup.js";
import { ASK_TOOL } from "../../core/asked.js";
import { isConfined } from "../../core/sandbox-level.js";
import type { ThinkingLevel } from "../../core/thinking.js";
import { allTools } from "../../core/tools.js";
import type { AgentCli, ThinkingSetting } from "../agent/agent-cli.js";
import type { Conversation } from "../agent/conversation.js";
import { claudeCredentials } from "../agent/credentials.js";
import { claudeHosts } from "../agent/provider-hosts.js";
import { claudeSessions } from "./session.js";
import { ClaudeStream } from "./stream.js";

/** pi-crew's tool names as Claude Code calls them; names already in Claude's spelling pass as they are. */
const CLAUDE_TOOLS: Readonly<Record<string, string>> = {
	read: "Read",
	write: "Write",
	edit: "Edit",
	bash: "Bash",
	grep: "Grep",
	find: "Glob",
	ls: "Glob",
};

/** crew's permission levels as Claude Code's flags: `workspace` edits files and runs commands unasked. */
const PERMISSIONS: Readonly<Record<string, readonly string[]>> = {
	workspace: ["--permission-mode", "acceptEdits", "--allowedTools", "Bash"],
	"read-only": ["--permission-mode", "default"],
	full: ["--permission-mode", "bypassPermissions"],
};

/**
 * Thinking levels as Claude Code takes them: `--effort` for the levels it has, and no thinking at
 * all through its `MAX_THINKING_TOKENS`. It has nothing like `minimal`.
 */
function claudeThinking(level: ThinkingLevel): ThinkingSetting | undefined {
	if (level === "off") return { args: [], env: { MAX_THINKING_TOKENS: "0" } };
	if (level === "minimal") return undefined;
	return { args: ["--effort", level] };
}

/**
 * Claude Code's stream-json input: user messages on stdin, the prompt first. One sent while the
 * agent works reaches its model with the next request; its `result` line says the work is over.
 */
const claudeConversation: Conversation = {
	prompt: (text) => userLine(text),
	message: (text) => userLine(text),
	replies: false,
	read: (event) => (event.type === "result" ? { over: true } : undefined),
};

function userLine(text: string): string {
	return `${JSON.stringify({ type: "user", message: { role: "user", content: text } })}\n`;
}

/**
 * Claude Code in print mode with stream-json input and output: the agent's model, tools,
 * permissions and system prompt, each attempt's session kept (`claudeSessions`). The prompt goes on stdin as its first message:
 * any length (an argument is capped at 128 KiB), kept as it is, and no option can take it for a
 * value.
 */
export const claudeCli: AgentCli = {
	name: "claude",
	defaultCommand: () => ["claude"],
	args(request, { systemFile }) {
		const { agent } = request;
		const setup = agent.setup ?? {};
		const args = ["-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose"];
		args.push(...(PERMISSIONS[agent.permissions ?? "workspace"] ?? []));
		if (agent.model) args.push("--model", agent.model);
		if (!allTools(agent.tools)) {
			const tools = [
				...new Set(
					(agent.tools ?? []).map((t) => CLAUDE_TOOLS[t] ?? (/^[A-Z]/.test(t) ? t : "")).filter((t) => t !== ""),
				),
			];
			args.push("--tools", tools.length > 0 ? tools.join(",") : "");
		}
		if (systemFile)
			args.push(replacesSystemPrompt(setup) ? "--system-prompt-file" : "--append-system-prompt-file", systemFile);
		// Skills come with its slash commands, and go with them.
		if (!setup.inheritSkills) args.push("--disable-slash-commands");
		if (setup.maxTurns !== undefined) args.push("--max-turns", String(setup.maxTurns));
		// In crew's sandbox, that is the boundary: a user's own Claude sandbox would nest inside it.
		if (isConfined(request.sandbox)) args.push("--settings", JSON.stringify({ sandbox: { enabled: false } }));
		return args;
	},
	// It writes sessions, todos, snapshots and logs in place: only what it reads is linked. Its
	// account and projects file is beside the folder unless CLAUDE_CONFIG_DIR names one.
	home(env) {
		const home = env.HOME || homedir();
		const dir = env.CLAUDE_CONFIG_DIR || join(home, ".claude");
		return {
			dir,
			variable: "CLAUDE_CONFIG_DIR",
			through: [".credentials.json"],
			links: {
				only: [
					".credentials.json",
					".claude.json",
					"settings.json",
					"CLAUDE.md",
					"agents",
					"commands",
					"skills",
					"plugins",
					"output-styles",
				],
			},
			...(env.CLAUDE_CONFIG_DIR ? {} : { beside: { ".claude.json": join(home, ".claude.json") } }),
		};
	},
	conversation: () => claudeConversation,
	// It reads CLAUDE.md whatever it is told, finds skills only itself, and has no extensions.
	ignores: (setup) => unsetKeys(setup, ["inheritProjectContext", "skills", "extensions", "excludeExtensions"]),
	askTool: {
		via: "mcp",
		// Allowed by name: its permission mode would otherwise ask a person who is not there.
		args: (server) => [
			"--mcp-config",
			JSON.stringify({ mcpServers: { crew: { command: server[0], args: server.slice(1) } } }),
			"--allowedTools",
			`mcp__crew__${ASK_TOOL}`,
		],
		// Offered to the model from the start: deferred behind a tool search, an agent would not know it can ask.
		env: (waitMs) => ({ MCP_TOOL_TIMEOUT: String(waitMs), ENABLE_TOOL_SEARCH: "false" }),
	},
	credentials: () => claudeCredentials(),
	thinking: claudeThinking,
	hosts: (_request, env) => claudeHosts(env),
	stream: () => new ClaudeStream(),
	sessions: claudeSessions,
};
