// The Codex agent CLI: its app server's command line, sandbox modes, thinking levels and system prompt.

import { homedir } from "node:os";
import { join } from "node:path";
import { replacesSystemPrompt, unsetKeys } from "../../core/agent-setup.js";
import { isConfined } from "../../core/sandbox-level.js";
import type { ThinkingLevel } from "../../core/thinking.js";
import type { AgentCli, ThinkingSetting } from "../agent/agent-cli.js";
import { codexCredentials } from "../agent/credentials.js";
import { codexHosts } from "../agent/provider-hosts.js";
import { CodexConversation } from "./conversation.js";
import { codexSessions } from "./session.js";
import { CodexStream } from "./stream.js";

/** crew's permission levels as Codex sandbox modes: `workspace` writes in the task's workspace only. */
const SANDBOX: Readonly<Record<string, string>> = {
	workspace: "workspace-write",
	"read-only": "read-only",
	full: "danger-full-access",
};

/**
 * Thinking levels as Codex's reasoning efforts (`model_reasoning_effort`), `off` as `none`; it has
 * nothing above `xhigh`.
 */
function codexThinking(level: ThinkingLevel): ThinkingSetting | undefined {
	if (level === "max") return undefined;
	const effort = level === "off" ? "none" : level;
	return { args: config("model_reasoning_effort", effort) };
}

/** What tells a Codex agent that it may ask a person, and how. */
const CODEX_ASK_HINT =
	"When you cannot go on without a decision or a fact that only the person who runs this task has, find the tool `ask` of the MCP server `crew` with tool_search and call it with your question; its result is their answer.";

/** A TOML value for `--config`: a JSON string, or list of strings, is one. */
function config(key: string, value: unknown): string[] {
	return ["--config", `${key}=${JSON.stringify(value)}`];
}

/**
 * Codex's app server, each attempt's thread kept (`codexSessions`), asking no one's approval:
 * the agent's model and sandbox, and its system prompt in place of Codex's own or after it (as
 * developer instructions), as its `systemPromptMode` says. Codex has no
 * per-tool allowlist, so an agent's `tools:` does not reach it. The prompt and any messages go as
 * requests on its stdin (`CodexConversation`): any length, kept as they are.
 */
export const codexCli: AgentCli = {
	name: "codex",
	defaultCommand: () => ["codex"],
	args(request, { asks }) {
		const { agent } = request;
		const setup = agent.setup ?? {};
		// In crew's sandbox, that is the boundary: Codex's own would nest a second one inside it.
		const confined = isConfined(request.sandbox);
		const sandbox = confined ? "danger-full-access" : (SANDBOX[agent.permissions ?? "workspace"] ?? "workspace-write");
		const args = ["app-server", ...config("sandbox_mode", sandbox), ...config("approval_policy", "never")];
		if (agent.model) args.push(...config("model", agent.model));
		// A system prompt that replaces Codex's own goes with the thread (`CodexConversation`).
		const appended = replacesSystemPrompt(setup) ? "" : agent.systemPrompt.trim();
		// Codex offers an MCP server's tools only through its tool search: the agent is told to look.
		const instructions = [appended, ...(asks ? [CODEX_ASK_HINT] : [])].filter((t) => t !== "");
		if (instructions.length > 0) args.push(...config("developer_instructions", instructions.join("\n\n")));
		// No bytes of AGENTS.md: none is read.
		if (!setup.inheritProjectContext) args.push(...config("project_doc_max_bytes", 0));
		return args;
	},
	// maxTurns: crew counts Codex's model responses and holds it to them (see TurnLimit).
	ignores: (setup) => unsetKeys(setup, ["inheritSkills", "skills", "extensions", "excludeExtensions"]),
	// It writes sessions, logs, history and its databases in place: only what it reads is linked.
	home: (env) => ({
		dir: env.CODEX_HOME || join(env.HOME || homedir(), ".codex"),
		variable: "CODEX_HOME",
		through: ["auth.json"],
		links: { only: ["auth.json", "config.toml", "AGENTS.md", "AGENTS.override.md", "prompts", "skills", "rules"] },
	}),
	conversation: (request, resume) => {
		const prompt = request.agent.systemPrompt.trim();
		const instructions = replacesSystemPrompt(request.agent.setup) && prompt !== "" ? prompt : undefined;
		return new CodexConversation(instructions, resume);
	},
	askTool: {
		via: "mcp",
		args: (server, waitMs) => [
			...config("mcp_servers.crew.command", server[0]),
			...config("mcp_servers.crew.args", server.slice(1)),
			...config("mcp_servers.crew.tool_timeout_sec", Math.ceil(waitMs / 1000)),
			// Approved ahead: asking a person is all it does, and no one is there to approve a call.
			...config("mcp_servers.crew.default_tools_approval_mode", "approve"),
		],
	},
	credentials: (_request, env) => codexCredentials(env),
	thinking: codexThinking,
	hosts: (_request, env) => codexHosts(env),
	stream: () => new CodexStream(),
	sessions: codexSessions,
};
