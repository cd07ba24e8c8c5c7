// @module-tag agent-cli
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, test } from "vitest";
import { scriptedCliSetup } from "../../../src/scripted-model/cli-setup.js";
import type { Script } from "../../../src/scripted-model/turns.js";
import { crew, gitRepo, ROOT, waitFor } from "../../helpers.js";
import { serverStarter } from "../../scripted-model/servers.js";

const startServer = serverStarter();
const children: ChildProcess[] = [];
afterEach(() => {
	for (const child of children.splice(0)) child.kill("SIGKILL");
});

/** The session schedules a nightly run with pi-crew's parameters, then lists the schedules, then says it is done. */
const script: Script = (request) => {
	const results = request.messages.filter((m) => m.role === "tool").length;
	if (results === 0) {
		const args = { action: "schedule", name: "nightly", goal: "review", cron: "0 3 * * *", tz: "Europe/Paris" };
		return { kind: "call", tool: "team", args: { ...args, workflow: "chain", runtime: "dry-run" } };
	}
	if (results === 1) return { kind: "call", tool: "team", args: { action: "scheduled" } };
	return { kind: "text", text: "Scheduled." };
};

test("pi's team tool schedules runs with pi-crew's parameters (schedule, cron) and lists them (scheduled)", async () => {
	const server = await startServer(script);
	const scripted = scriptedCliSetup("pi", server.url, mkdtempSync(join(tmpdir(), "crew-pi-schedule-")));
	const repo = gitRepo();
	const env = { PATH: process.env.PATH, XDG_CONFIG_HOME: process.env.XDG_CONFIG_HOME, ...scripted.env };
	const pi = join(ROOT, "node_modules", ".bin", "pi");
	execFileSync(pi, ["install", ROOT], { env, encoding: "utf8" });
	const session = spawn(pi, ["--mode", "rpc", "--no-session", "--offline", "--model", scripted.model], {
		cwd: repo.dir,
		env,
		stdio: ["pipe", "pipe", "pipe"],
	});
	children.push(session);
	let out = "";
	session.stdout?.on("data", (chunk: Buffer) => {
		out += chunk.toString();
	});
	session.stdin?.write(`${JSON.stringify({ type: "prompt", message: "Review the code every night at 3." })}\n`);
	await waitFor("the session's last answer", () => out.includes("Scheduled."), 60_000);

	const results = server.requests.at(-1)?.messages.filter((m) => m.role === "tool") ?? [];
	expect(results[0]?.text).toContain('"name": "nightly"');
	expect(results[0]?.text).toContain("cron 0 3 * * * (Europe/Paris)");
	expect(results[1]?.text).toContain('"schedules"');
	const listed = JSON.parse((await crew(repo.dir, ["schedule", "list", "--json"])).stdout);
	expect(listed.schedules).toEqual([
		expect.objectContaining({ name: "nightly", when: "cron 0 3 * * * (Europe/Paris)", goal: "review" }),
	]);
}, 90_000);
