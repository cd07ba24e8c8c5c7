// @module-tag agent-cli
import { execFile } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "vitest";
import { scriptedCliSetup } from "../../../src/scripted-model/cli-setup.js";
import type { Script } from "../../../src/scripted-model/turns.js";
import { CLI, ROOT, read, TestRepo } from "../../helpers.js";
import { serverStarter } from "../../scripted-model/servers.js";

const startServer = serverStarter();
const CLAUDE = join(ROOT, "node_modules", ".bin", "claude");

/**
 * Claude hands one task to one crew agent through crew_agent and reports the result it answers.
 * Requests without crew's tools (Claude's own side requests) get a plain answer.
 */
const script: Script = (request) => {
	if (!request.tools.some((t) => t.endsWith("__crew_agent"))) return { kind: "text", text: "ok" };
	if (!request.afterToolResult) {
		return { kind: "call", tool: "crew_agent", args: { task: "write the notes", agent: "worker" } };
	}
	// Claude Code may add its own text blocks after a tool's answer in the same message.
	const last = request.messages.at(-1)?.text ?? "";
	const result = /"result":("(?:[^"\\]|\\.)*")/.exec(last)?.[1];
	return { kind: "text", text: result ? `the agent said: ${JSON.parse(result)}` : `no result in: ${last}` };
};

test("Claude Code delegates one task with crew_agent and reports the agent's result", async () => {
	const server = await startServer(script);
	const scripted = scriptedCliSetup("claude", server.url, mkdtempSync(join(tmpdir(), "crew-claude-agent-")));
	const repo = new TestRepo().agent("worker", "--answer --sleep 200");
	const mcpConfig = {
		mcpServers: {
			crew: {
				command: process.execPath,
				args: [CLI, "mcp"],
				env: { XDG_CONFIG_HOME: process.env.XDG_CONFIG_HOME ?? "" },
			},
		},
	};
	const args = [
		"-p",
		"Have a crew agent write the notes, then tell me what it said.",
		"--output-format",
		"json",
		"--model",
		scripted.model,
		"--strict-mcp-config",
		"--mcp-config",
		JSON.stringify(mcpConfig),
		"--allowedTools",
		"mcp__crew__crew_agent",
	];
	// Without ENABLE_TOOL_SEARCH=false Claude Code offers MCP tools through its tool search, not directly.
	const env = { PATH: process.env.PATH, ...scripted.env, ENABLE_TOOL_SEARCH: "false" };
	const { code, stdout, stderr } = await new Promise<{ code: number; stdout: string; stderr: string }>((done) => {
		const child = execFile(CLAUDE, args, { cwd: repo.dir, env, timeout: 120_000 }, (error, out, err) =>
			done({ code: error ? Number(error.code ?? 1) : 0, stdout: out, stderr: err }),
		);
		// The prompt is an argument: Claude Code must not wait for more on stdin.
		child.stdin?.end();
	});
	expect({ code, stderr, stdout: code === 0 ? "" : stdout }).toEqual({ code: 0, stderr: "", stdout: "" });
	const answer = JSON.parse(stdout) as { result: string; is_error: boolean };
	expect(answer.is_error).toBe(false);
	expect(answer.result).toBe("the agent said: answer: write the notes\n");

	const runs = read(repo.dir, (reader) => reader.repo.runs());
	expect(runs).toHaveLength(1);
	const status = read(repo.dir, (reader) => reader.status(runs[0]?.id));
	expect(status.run).toMatchObject({ status: "completed", goal: "write the notes", workflow: "agent:worker" });
	expect(status.tasks.map((t) => `${t.id}:${t.status}`)).toEqual(["worker:completed"]);
	expect(repo.starts().map((s) => s.task)).toEqual(["worker"]);
});
