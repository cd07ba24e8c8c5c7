// @module-tag agent-cli
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "vitest";
import { projectAt } from "../../src/config/project.js";
import { Crew } from "../../src/engine/crew.js";
import { RunReader } from "../../src/engine/views/reader.js";
import { RuntimeRegistry } from "../../src/runtimes/runtime-registry.js";
import { scriptedCliSetup } from "../../src/scripted-model/cli-setup.js";
import type { Script } from "../../src/scripted-model/turns.js";
import { TestRepo } from "../helpers.js";
import { serverStarter } from "../scripted-model/servers.js";

const startServer = serverStarter();

const SECRETS = {
	goal: "ghp_GoalGoalGoalGoalGoalGoalGoalGoalGoal0",
	stdout: "sk-ant-api03-StdoutStdoutStdoutStdoutStdout",
	stderr: "AKIASTDERRSTDERR1234",
	key: "MIIEpAIBAAKCAQEAstderrPrivateKeyBody",
	failure: "xoxb-123456789012-FailureFailureFail",
	model: "sk-proj-ModelModelModelModelModelModel12",
	tool: "hunter2-from-the-tool",
};

/** Every file crew wrote under `.crew`, its bytes: the store, its WAL, and every artifact. */
function storedFiles(crewDir: string): { path: string; bytes: Buffer }[] {
	return readdirSync(crewDir, { recursive: true, encoding: "utf8" })
		.filter((name) => name.startsWith("crew.db") || name.startsWith("runs"))
		.map((name) => join(crewDir, name))
		.filter((path) => statSync(path).isFile())
		.map((path) => ({ path, bytes: readFileSync(path) }));
}

test("secrets in the goal, a command's output and errors, and a model's answers and tool output are never stored", async () => {
	// The pi agent answers with a key in its text after running a shell command that prints a password.
	const script: Script = (request) =>
		request.afterToolResult
			? { kind: "text", text: `found OPENAI_API_KEY=${SECRETS.model} in the config` }
			: { kind: "shell", command: `echo "db password: ${SECRETS.tool}"` };
	const server = await startServer(script);
	const scripted = scriptedCliSetup("pi", server.url, mkdtempSync(join(tmpdir(), "crew-redact-")));
	const repo = new TestRepo();
	const printer = join(repo.dir, "printer.sh");
	writeFileSync(
		printer,
		[
			`echo "the key is ${SECRETS.stdout}"`,
			`echo "aws ${SECRETS.stderr}" >&2`,
			"echo '-----BEGIN RSA PRIVATE KEY-----' >&2",
			`echo '${SECRETS.key}' >&2`,
			"echo '-----END RSA PRIVATE KEY-----' >&2",
			"",
		].join("\n"),
	);
	repo.writeFile(".crew/agents/printer.md", `---\nname: printer\nruntime: command\ncommand: sh ${printer}\n---\n`);
	const failer = join(repo.dir, "failer.sh");
	writeFileSync(failer, `echo "slack ${SECRETS.failure}" >&2\nexit 3\n`);
	repo.writeFile(".crew/agents/failer.md", `---\nname: failer\nruntime: command\ncommand: sh ${failer}\n---\n`);
	repo.writeFile(
		".crew/agents/reader.md",
		`---\nname: reader\nruntime: pi\nmodel: ${scripted.model}\n---\nYou read.\n`,
	);
	repo.workflow("leaky", [
		{ id: "print", role: "printer" },
		{ id: "read", role: "reader" },
		{ id: "fail", role: "failer", dependsOn: ["print"] },
	]);
	const crew = new Crew({
		project: projectAt(repo.dir),
		runtimes: RuntimeRegistry.standard({ pi: { env: { PATH: process.env.PATH, ...scripted.env } } }),
		pollMs: 20,
	});
	const runId = crew.create(
		await crew.plan({ goal: `deploy with ${SECRETS.goal}`, workflow: "leaky", failure: "continue", retries: 0 }),
	);
	expect(await crew.execute(runId)).toBe("failed");
	crew.close();

	// The data went through: markers stand where the secrets were.
	const reader = new RunReader(projectAt(repo.dir));
	const run = reader.run(runId);
	const print = reader.result(runId, "print").text;
	const read = reader.result(runId, "read").text;
	const failed = reader.status(runId).tasks.find((t) => t.id === "fail");
	const log = reader.files.read(runId, "tasks/print/attempt-1.stderr.log");
	const events = reader.events(runId).map((e) => JSON.stringify(e.data));
	reader.close();
	expect(run.goal).toBe("deploy with [REDACTED:github-token]");
	expect(print).toBe("the key is [REDACTED:anthropic-key]\n");
	expect(read).toBe("found OPENAI_API_KEY=[REDACTED:openai-key] in the config");
	expect(failed?.error).toContain("slack [REDACTED:slack-token]");
	expect(log).toBe("aws [REDACTED:aws-access-key]\n[REDACTED:private-key]\n");
	expect(events.some((e) => e.includes("the key is [REDACTED:anthropic-key]"))).toBe(true);
	expect(events.some((e) => e.includes("db password: [REDACTED:secret]"))).toBe(true);
	// The agent itself got the secret-free goal.
	expect(server.requests[0]?.messages.some((m) => m.text.includes("deploy with [REDACTED:github-token]"))).toBe(true);

	const stored = storedFiles(join(repo.dir, ".crew"));
	expect(stored.some((f) => f.path.endsWith("transcript.jsonl"))).toBe(true);
	for (const [where, secret] of Object.entries(SECRETS)) {
		const leaks = stored.filter((f) => f.bytes.includes(secret)).map((f) => f.path);
		expect({ where, leaks }).toEqual({ where, leaks: [] });
	}
});
