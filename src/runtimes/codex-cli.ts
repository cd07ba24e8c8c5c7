import { homedir } from "node:os";
import { join } from "node:path";
import { isConfined } from "../core/sandbox.js";
import type { ThinkingLevel } from "../core/thinking.js";
import type { AgentCli, ThinkingSetting } from "./agent-runtime.js";
import { CodexStream } from "./codex-stream.js";
import { codexCredentials } from "./credentials.js";
import { codexHosts } from "./provider-hosts.js";

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
	return { args: ["--config", `model_reasoning_effort=${JSON.stringify(effort)}`] };
}

/** What tells a Codex agent that it may ask a person, and how. */
const CODEX_ASK_HINT =
	"When you cannot go on without a decision or a fact that only the person who runs this task has, find the tool `ask` of the MCP server `crew` with tool_search and call it with your question; its result is their answer.";

/**
 * Codex's `exec` mode with JSON output, keeping no session: the agent's model and sandbox, and its
 * system prompt as developer instructions (a JSON string is a valid TOML string). Codex has no
 * per-tool allowlist, so an agent's `tools:` does not reach it. The prompt goes on stdin, which
 * `exec` reads to its end for the prompt `-`: any length (an argument is capped at 128 KiB), kept
 * as it is.
 */
export const codexCli: AgentCli = {
	name: "codex",
	defaultCommand: () => ["codex"],
	args(request, _systemFile, asks) {
		const { agent } = request;
		const args = ["exec", "--json", "--ephemeral", "--skip-git-repo-check"];
		// In crew's sandbox, that is the boundary: Codex's own would nest a second one inside it.
		const confined = isConfined(request.sandbox);
		args.push(
			"--sandbox",
			confined ? "danger-full-access" : (SANDBOX[agent.permissions ?? "workspace"] ?? "workspace-write"),
		);
		if (agent.model) args.push("--model", agent.model);
		// Codex offers an MCP server's tools only through its tool search: the agent is told to look.
		const instructions = [agent.systemPrompt.trim(), ...(asks ? [CODEX_ASK_HINT] : [])].filter((t) => t !== "");
		if (instructions.length > 0)
			args.push("--config", `developer_instructions=${JSON.stringify(instructions.join("\n\n"))}`);
		args.push("-");
		return args;
	},
	state: (env) => ({ folders: [env.CODEX_HOME || join(env.HOME || homedir(), ".codex")], files: [] }),
	stdin: (request) => request.prompt,
	askTool: {
		via: "mcp",
		// TOML values: a JSON string, or list of strings, is one.
		args: (server, waitMs) => [
			"--config",
			`mcp_servers.crew.command=${JSON.stringify(server[0])}`,
			"--config",
			`mcp_servers.crew.args=${JSON.stringify(server.slice(1))}`,
			"--config",
			`mcp_servers.crew.tool_timeout_sec=${Math.ceil(waitMs / 1000)}`,
			// Approved ahead: asking a person is all it does, and `exec` has no one to approve a call.
			"--config",
			'mcp_servers.crew.default_tools_approval_mode="approve"',
		],
	},
	credentials: (_request, env) => codexCredentials(env),
	thinking: codexThinking,
	hosts: (_request, env) => codexHosts(env),
	stream: () => new CodexStream(),
};
