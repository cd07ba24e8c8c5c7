// @module-tag node22
// @module-tag agent-cli
// @slow: pi 0.73 and pi 1.x each start a team of pi workers from a pi session
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, test } from "vitest";
import { projectAt } from "../../../src/config/project.js";
import { RunReader } from "../../../src/engine/views/reader.js";
import { scriptedCliSetup } from "../../../src/scripted-model/cli-setup.js";
import type { Script } from "../../../src/scripted-model/turns.js";
import { PI_1, ROOT, TestRepo, waitFor } from "../../helpers.js";
import { serverStarter } from "../../scripted-model/servers.js";

const startServer = serverStarter();
/** pi 0.73, and pi 1.x on the Node 22 it needs. */
const PIS: readonly (readonly [string, readonly string[]])[] = [
	["pi 0.73", [join(ROOT, "node_modules", ".bin", "pi")]],
	["pi 1.x", PI_1],
];

const children: ChildProcess[] = [];
afterEach(() => {
	for (const child of children.splice(0)) child.kill("SIGKILL");
});

/**
 * The parent pi (it offers the `team` tool) starts a run and says it will wait; once crew's report
 * is in its context, it answers that the team is done. Workers are pi processes that report on
 * the step their prompt names.
 */
const script: Script = (request) => {
	if (!request.tools.includes("team")) {
		const prompt = request.messages.filter((m) => m.role === "user").pop()?.text ?? "";
		return { kind: "text", text: `analysis of ${/Do (\S+) for/.exec(prompt)?.[1] ?? "?"}: all good` };
	}
	const seen = request.messages.map((m) => m.text).join("\n");
	if (/crew run \S+ ended completed/.test(seen)) return { kind: "text", text: "The team is done: all good." };
	if (request.afterToolResult) return { kind: "text", text: "The team is working; its report will come here." };
	return {
		kind: "call",
		tool: "team",
		args: { action: "run", goal: "review the code", workflow: "duo", timeout: "30m", stallTimeout: "0" },
	};
};

test.each(PIS)(
	"%s with crew's extension starts a team of pi workers through the team tool, and the run's report comes back into the session",
	async (_name, [program, ...first]) => {
		const server = await startServer(script);
		const scripted = scriptedCliSetup("pi", server.url, mkdtempSync(join(tmpdir(), "crew-pi-ext-")));
		const repo = new TestRepo();
		repo.writeFile(
			".crew/agents/inspector.md",
			`---\nname: inspector\nruntime: pi\nmodel: ${scripted.model}\n---\nYou analyse code and report briefly.\n`,
		);
		repo.workflow("duo", [
			{ id: "scan", role: "inspector" },
			{ id: "summarize", role: "inspector", dependsOn: ["scan"] },
		]);

		const env = { PATH: process.env.PATH, XDG_CONFIG_HOME: process.env.XDG_CONFIG_HOME, ...scripted.env };
		// Installed as a user would: the package's `pi.extensions` names the extension.
		const installed = execFileSync(program as string, [...first, "install", ROOT], { env, encoding: "utf8" });
		expect(installed).toContain(`Installed ${ROOT}`);
		const pi = spawn(
			program as string,
			[...first, "--mode", "rpc", "--no-session", "--offline", "--model", scripted.model],
			{
				cwd: repo.dir,
				env,
				stdio: ["pipe", "pipe", "pipe"],
			},
		);
		children.push(pi);
		let out = "";
		let err = "";
		pi.stdout?.on("data", (chunk: Buffer) => {
			out += chunk.toString();
		});
		pi.stderr?.on("data", (chunk: Buffer) => {
			err += chunk.toString();
		});
		pi.stdin?.write(`${JSON.stringify({ type: "prompt", message: "Have the team review the code." })}\n`);

		const parentAsks = () => server.requests.filter((r) => r.tools.includes("team"));
		const reportRequest = await waitFor(
			`crew's report in pi's context (pi stderr: ${err})`,
			() => parentAsks().find((r) => r.messages.some((m) => /crew run \S+ ended completed/.test(m.text))),
			90_000,
		);
		const report = reportRequest.messages.find((m) => /crew run \S+ ended completed/.test(m.text))?.text ?? "";
		const runId = /crew run (\S+) ended/.exec(report)?.[1] as string;
		// Workers answered as workers: crew's own pi workers are not offered the team tool.
		expect(report).toContain("## scan");
		expect(report).toContain("analysis of scan: all good");
		expect(report).toContain("analysis of summarize: all good");

		// The session's own turn went first: the tool started the run and returned at once.
		const asked = parentAsks();
		expect(asked[0]?.afterToolResult).toBe(false);
		expect(asked[1]?.messages.at(-1)?.text).toContain(`Started crew run ${runId}`);

		await waitFor("pi's answer to the report", () => out.includes("The team is done: all good."), 30_000);
		const events = out
			.split("\n")
			.filter((line) => line.startsWith("{"))
			.map((line) => JSON.parse(line) as { type: string; message?: { role?: string } });
		expect(events.some((e) => e.type === "message_end" && e.message?.role === "assistant")).toBe(true);

		const reader = new RunReader(projectAt(repo.dir));
		const status = JSON.parse(reader.statusJson(runId));
		const attempts = reader.attempts(runId);
		const options = reader.run(runId).options;
		reader.close();
		// The tool's limits are the run's.
		expect([options.timeoutMs, options.stallTimeoutMs]).toEqual([30 * 60_000, 0]);
		expect(status.run.status).toBe("completed");
		expect(status.tasks.map((t: { status: string }) => t.status)).toEqual(["completed", "completed"]);
		// The workers were pi processes talking to the same model server.
		expect(attempts.map((a) => a.runtime)).toEqual(["pi", "pi"]);
		expect(server.requests.filter((r) => !r.tools.includes("team")).length).toBeGreaterThanOrEqual(2);
		expect(status.run.usageByModel[scripted.model].inputTokens).toBeGreaterThan(0);
	},
);
