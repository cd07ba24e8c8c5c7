// @module-tag agent-cli
import { execFile } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "vitest";
import { projectAt } from "../../../src/config/project.js";
import { RunReader } from "../../../src/engine/views/reader.js";
import { scriptedCliSetup } from "../../../src/scripted-model/cli-setup.js";
import type { Script } from "../../../src/scripted-model/turns.js";
import { CLI, ROOT, TestRepo } from "../../helpers.js";
import { serverStarter } from "../../scripted-model/servers.js";

const startServer = serverStarter();
const CLAUDE = join(ROOT, "node_modules", ".bin", "claude");

/**
 * Claude starts a run through crew's MCP tools, asks for its status until it completed, reads a
 * result, and says what it read. Requests without crew's tools (Claude's own side requests) get
 * a plain answer.
 */
const script: Script = (request) => {
	if (!request.tools.some((t) => t.endsWith("__crew_run"))) return { kind: "text", text: "ok" };
	if (!request.afterToolResult) {
		return { kind: "call", tool: "crew_run", args: { goal: "write the notes", workflow: "pair" } };
	}
	const last = request.messages.at(-1)?.text ?? "";
	const runId = /"runId":"([^"]+)"/.exec(request.messages.map((m) => m.text).join("\n"))?.[1] ?? "?";
	// Claude Code may add its own text blocks after a tool's answer in the same message.
	const result = /"result":("(?:[^"\\]|\\.)*")/.exec(last)?.[1];
	if (result) return { kind: "text", text: `crew's result: ${JSON.parse(result)}` };
	if (/"run":\{[^}]*"status":"completed"/.test(last)) {
		return { kind: "call", tool: "crew_result", args: { runId, task: "polish" } };
	}
	return { kind: "call", tool: "crew_status", args: { runId } };
};

test("Claude Code calls crew's MCP tools: it starts a run, follows it to completion and reads a result", async () => {
	const server = await startServer(script);
	const scripted = scriptedCliSetup("claude", server.url, mkdtempSync(join(tmpdir(), "crew-claude-mcp-")));
	const repo = new TestRepo().agent("worker", "--sleep 200");
	repo.workflow("pair", [{ id: "draft" }, { id: "polish", dependsOn: ["draft"] }]);
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
		"Have crew write the notes, then tell me the polish step's result.",
		"--output-format",
		"json",
		"--model",
		scripted.model,
		"--strict-mcp-config",
		"--mcp-config",
		JSON.stringify(mcpConfig),
		"--allowedTools",
		"mcp__crew__crew_run,mcp__crew__crew_status,mcp__crew__crew_result",
	];
	// Claude Code defers MCP tools behind its ToolSearch tool unless told not to; the scripted
	// model answers only requests that offer crew's tools directly.
	const { code, stdout, stderr } = await new Promise<{ code: number; stdout: string; stderr: string }>((done) => {
		const child = execFile(
			CLAUDE,
			args,
			{
				cwd: repo.dir,
				env: { PATH: process.env.PATH, ...scripted.env, ENABLE_TOOL_SEARCH: "false" },
				timeout: 120_000,
			},
			(error, out, err) => done({ code: error ? Number(error.code ?? 1) : 0, stdout: out, stderr: err }),
		);
		// The prompt is an argument: Claude Code must not wait for more on stdin.
		child.stdin?.end();
	});
	expect({ code, stderr, stdout: code === 0 ? "" : stdout }).toEqual({ code: 0, stderr: "", stdout: "" });
	const answer = JSON.parse(stdout) as { result: string; is_error: boolean };
	expect(answer.is_error).toBe(false);
	expect(answer.result).toBe("crew's result: done polish\n");

	const asked = server.requests.filter((r) => r.tools.some((t) => t.endsWith("__crew_run")));
	const offered = asked[0]?.tools.filter((t) => t.startsWith("mcp__crew__")).sort();
	expect(offered).toEqual([
		"mcp__crew__crew_agent",
		"mcp__crew__crew_answer",
		"mcp__crew__crew_approve",
		"mcp__crew__crew_cancel",
		"mcp__crew__crew_doctor",
		"mcp__crew__crew_events",
		"mcp__crew__crew_export",
		"mcp__crew__crew_fork",
		"mcp__crew__crew_goal",
		"mcp__crew__crew_inbox",
		"mcp__crew__crew_list",
		"mcp__crew__crew_merge",
		"mcp__crew__crew_plan",
		"mcp__crew__crew_recommend",
		"mcp__crew__crew_reject",
		"mcp__crew__crew_replay",
		"mcp__crew__crew_result",
		"mcp__crew__crew_resume",
		"mcp__crew__crew_retry",
		"mcp__crew__crew_run",
		"mcp__crew__crew_runs",
		"mcp__crew__crew_schedule",
		"mcp__crew__crew_scheduled",
		"mcp__crew__crew_status",
		"mcp__crew__crew_steer",
		"mcp__crew__crew_validate",
		"mcp__crew__crew_wait",
		"mcp__crew__crew_worktrees",
	]);

	const reader = new RunReader(projectAt(repo.dir));
	const runs = reader.repo.runs();
	const status = JSON.parse(reader.statusJson(runs[0]?.id));
	reader.close();
	expect(runs).toHaveLength(1);
	expect(status.run).toMatchObject({ status: "completed", goal: "write the notes", workflow: "pair" });
	expect(repo.starts().map((s) => s.task)).toEqual(["draft", "polish"]);
});
