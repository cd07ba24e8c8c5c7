import { execFileSync, spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, onTestFinished, test } from "vitest";
import { projectAt } from "../../../src/config/project.js";
import { Crew } from "../../../src/engine/crew.js";
import { RuntimeRegistry } from "../../../src/runtimes/runtime-registry.js";
import { scriptedCliSetup } from "../../../src/scripted-model/cli-setup.js";
import { ScriptedModelServer } from "../../../src/scripted-model/scripted-model-server.js";
import type { ModelRequest, Script } from "../../../src/scripted-model/turns.js";
import { cliHome, crew as crewCli, crewProcess, exitOf, gitRepo, read, waitFor } from "../../helpers.js";
import { AGENT_CLIS } from "./clis.js";

/** A key the agent's model writes into its tool call: crew stores it nowhere. */
const LEAKED = "sk-proj-LeakedLeakedLeakedLeakedLeaked12";

/** Whether a request's conversation carries `text` anywhere: a tool call, a tool's output, or crew's words. */
function carries(request: ModelRequest, text: string): boolean {
	return request.messages.some((m) => m.text.includes(text)) || JSON.stringify(request.body).includes(text);
}

/**
 * A model that calls the shell once (`command`), then answers once the conversation holds what
 * the call printed (`seen`), with a 500 on the request numbered `failing`: an agent that starts
 * over calls the shell again, one that continues answers at once.
 */
function shellThenAnswer(command: string, seen: string, failing: number | undefined): Script {
	return (request) => {
		if (request.index === failing) return { kind: "error", status: 500, message: "the model fell over" };
		return carries(request, seen) ? { kind: "text", text: "done, I saw it" } : { kind: "shell", command };
	};
}

/**
 * The tests of a task's later attempt continuing its agent's session, for the agent CLI labelled
 * `label`: its first request carries what the attempt before did, and says why the agent is back.
 */
export function sessionSuite(label: string): void {
	const found = AGENT_CLIS.find((c) => c.label === label);
	if (!found) throw new Error(`no agent CLI labelled '${label}'`);
	const cli = found;
	const servers: ScriptedModelServer[] = [];
	afterEach(async () => {
		for (const server of servers.splice(0)) await server.close();
	});

	async function setup(script: Script, agentFields: (scripted: { fallbackModel: string }) => string = () => "") {
		const server = await ScriptedModelServer.start(script);
		servers.push(server);
		const repo = gitRepo();
		const scripted = scriptedCliSetup(cli.name, server.url, cliHome(cli.name));
		repo.writeFile(
			".crew/agents/scribe.md",
			`---\nname: scribe\nruntime: ${cli.name}\nmodel: ${scripted.model}\n${agentFields(scripted)}---\nYou do what the task asks.\n`,
		);
		const env = { PATH: process.env.PATH, ...scripted.env };
		const crew = new Crew({
			project: projectAt(repo.dir),
			runtimes: RuntimeRegistry.standard({
				graceMs: 500,
				[cli.name]: { env, ...(cli.command ? { command: cli.command } : {}) },
			}),
			pollMs: 20,
			retryPolicy: { baseMs: 50, factor: 2, maxMs: 200, jitter: 0 },
		});
		onTestFinished(() => crew.close());
		return { server, repo, crew, scripted, env };
	}

	describe.runIf(cli.continues)(`${cli.label}: a later attempt continues the agent's session`, () => {
		test("a retry after a model error continues: its first request carries the first attempt's tool call and result, one request fewer than starting over", async () => {
			const { server, repo, crew } = await setup(shellThenAnswer("echo SEEN-$((40+2))", "SEEN-42", 1));
			repo.workflow("one", [{ id: "a", role: "scribe", text: "look at the number" }]);
			const runId = crew.create(await crew.plan({ goal: "g", workflow: "one", retries: 1 }));
			expect(await crew.execute(runId)).toBe("completed");
			// Starting over: the shell again, then the answer (4 requests); continuing: the answer.
			expect(server.requests).toHaveLength(3);
			const back = server.requests[2] as ModelRequest;
			expect(carries(back, "echo SEEN-$((40+2))")).toBe(true);
			expect(carries(back, "SEEN-42")).toBe(true);
			expect(carries(back, "attempt 2 at the same task, in the same conversation")).toBe(true);
			expect(carries(back, "it ended with an error")).toBe(true);
			const task = await onlyTask(repo.dir, runId);
			expect({ attempts: task.attempts, session: task.session }).toEqual({ attempts: 2, session: { continued: 1 } });
			const logs = await crewCli(repo.dir, ["logs", runId, "a"]);
			expect(logs.stdout).toContain("attempt 2: continued session of attempt 1");
			expect((await crewCli(repo.dir, ["status", runId])).stdout).toMatch(/ attempt 2 \(continued 1\)/);
			// Usage counts each request once: the continued session's earlier tokens are not counted again.
			const used = server.requests.reduce((sum, r) => sum + r.promptTokens, 0);
			expect(crew.snapshot(runId).tasks[0]?.usage.input).toBeLessThanOrEqual(used);
		});

		test("in worktree mode a retry continues in the worktree the attempt before left, and its work reaches the task's branch", async () => {
			const { server, repo, crew } = await setup(shellThenAnswer("echo SEEN-$((40+2)) | tee note.txt", "SEEN-42", 1));
			repo.workflow("one", [{ id: "a", role: "scribe", text: "note the number" }]);
			const plan = await crew.plan({ goal: "g", workflow: "one", retries: 1, workspace: "worktree" });
			const runId = crew.create(plan);
			expect(await crew.execute(runId)).toBe("completed");
			expect(server.requests).toHaveLength(3);
			const task = await onlyTask(repo.dir, runId);
			expect(task.session).toEqual({ continued: 1 });
			const branch = `crew-tasks/${runId}/a`;
			const note = execFileSync("git", ["show", `${branch}:note.txt`], { cwd: repo.dir, encoding: "utf8" });
			expect(note).toBe("SEEN-42\n");
		});

		test("after a failed check, the check's output reaches the continued session", async () => {
			const script: Script = (request) =>
				carries(request, "echo fixed > fixed.txt")
					? { kind: "text", text: "fixed it" }
					: carries(request, "CHECK-SAID-NO")
						? { kind: "shell", command: "echo fixed > fixed.txt" }
						: { kind: "text", text: "first try" };
			const { server, repo, crew } = await setup(script);
			repo.workflow("one", [
				{
					id: "a",
					role: "scribe",
					text: "make it pass",
					extra: { verify: "test -f fixed.txt || { echo CHECK-SAID-NO; exit 1; }" },
				},
			]);
			const runId = crew.create(await crew.plan({ goal: "g", workflow: "one", retries: 1 }));
			expect(await crew.execute(runId)).toBe("completed");
			const back = server.requests[1] as ModelRequest;
			expect(carries(back, "first try")).toBe(true);
			expect(carries(back, "CHECK-SAID-NO")).toBe(true);
			expect(carries(back, "attempt 2 at the same task")).toBe(true);
		});

		test("an attempt on another model starts over, and says why", async () => {
			const { server, repo, crew } = await setup(
				shellThenAnswer("echo SEEN-$((40+2))", "SEEN-42", 1),
				(scripted) => `fallbackModels: ${scripted.fallbackModel}\n`,
			);
			repo.workflow("one", [{ id: "a", role: "scribe", text: "look at the number" }]);
			const runId = crew.create(await crew.plan({ goal: "g", workflow: "one", retries: 0 }));
			expect(await crew.execute(runId)).toBe("completed");
			// The fallback model's attempt runs the shell again: 4 requests.
			expect(server.requests).toHaveLength(4);
			expect(carries(server.requests[2] as ModelRequest, "SEEN-42")).toBe(false);
			const task = await onlyTask(repo.dir, runId);
			expect(task.session.startedOver).toMatch(/^model changed \(.+ → .+\)$/);
			const logs = await crewCli(repo.dir, ["logs", runId, "a"]);
			expect(logs.stdout).toContain("attempt 2: started over: model changed");
			expect((await crewCli(repo.dir, ["status", runId])).stdout).toMatch(
				/ attempt 2 \(started over: model changed \(/,
			);
		});

		test("a step that says continue: false starts over, and says so", async () => {
			const { server, repo, crew } = await setup(shellThenAnswer("echo SEEN-$((40+2))", "SEEN-42", 1));
			repo.workflow("one", [{ id: "a", role: "scribe", text: "look at the number", extra: { continue: "false" } }]);
			const runId = crew.create(await crew.plan({ goal: "g", workflow: "one", retries: 1 }));
			expect(await crew.execute(runId)).toBe("completed");
			expect(server.requests).toHaveLength(4);
			const task = await onlyTask(repo.dir, runId);
			expect(task.session).toEqual({ startedOver: "step a says continue: false" });
		});

		test("a retry after another hand wrote the shared workspace starts over, and says why", async () => {
			const { server, repo, crew } = await setup(shellThenAnswer("echo SEEN-$((40+2))", "SEEN-42", 1));
			repo.workflow("one", [{ id: "a", role: "scribe", text: "look at the number" }]);
			const runId = crew.create(await crew.plan({ goal: "g", workflow: "one", retries: 0 }));
			expect(await crew.execute(runId)).toBe("failed");
			writeFileSync(join(repo.dir, "someone-else.txt"), "written between the attempts\n");
			expect(await crew.retry(runId, "a")).toBe("completed");
			expect(server.requests).toHaveLength(4);
			const task = await onlyTask(repo.dir, runId);
			expect(task.session).toEqual({ startedOver: "the workspace changed since attempt 1 ended" });
		});

		test("after kill -9 of the runner and the agent's process group, crew resume continues: the cut tool call is told as interrupted, never as done", async () => {
			const server = await ScriptedModelServer.start((request) =>
				carries(request, "interrupted")
					? { kind: "text", text: "I was cut off" }
					: { kind: "shell", command: `echo STARTED ${LEAKED} > started.txt; sleep 60; echo DONE-$((6*7))` },
			);
			servers.push(server);
			const repo = gitRepo();
			const scripted = scriptedCliSetup(cli.name, server.url, cliHome(cli.name));
			repo.writeFile(
				".crew/agents/scribe.md",
				`---\nname: scribe\nruntime: ${cli.name}\nmodel: ${scripted.model}\n---\nYou do what the task asks.\n`,
			);
			repo.workflow("one", [{ id: "a", role: "scribe", text: "run the long thing" }]);
			const env = {
				...process.env,
				...scripted.env,
				...(cli.command ? { [`CREW_${cli.name.toUpperCase()}`]: program(cli.command) } : {}),
			};
			const runner = crewProcess(repo.dir, ["run", "g", "--workflow", "one", "--retries", "0"], env);
			const runId = await waitFor("the tool call running", () =>
				existsSync(join(repo.dir, "started.txt")) ? read(repo.dir, (r) => r.repo.runs()[0]?.id) : undefined,
			);
			// The tool runs for a minute: a moment more lets each CLI write the call to its session, as it
			// would have long before a real crash.
			await new Promise((resolve) => setTimeout(resolve, 1000));
			const group = read(repo.dir, (r) => r.attempts(runId)[0]?.process?.pgid);
			runner.kill("SIGKILL");
			if (group) process.kill(-group, "SIGKILL");
			await exitOf(runner);
			const resumed = await crewCli(repo.dir, ["resume", runId], 120_000, env);
			expect(resumed.code, resumed.stderr).toBe(0);
			const back = server.requests.at(-1) as ModelRequest;
			expect(carries(back, "echo STARTED")).toBe(true);
			expect(carries(back, cli.interruptedTool)).toBe(true);
			expect(carries(back, "DONE-42")).toBe(false);
			expect(carries(back, "crew's runner stopped")).toBe(true);
			const task = await onlyTask(repo.dir, runId);
			expect(task.session).toEqual({ continued: 1 });
			// The killed attempt's CLI wrote the key in its session; crew keeps none of it.
			const stored = spawnSync("grep", ["-rl", LEAKED, join(repo.dir, ".crew")], { encoding: "utf8" });
			expect({ status: stored.status, files: stored.stdout }).toEqual({ status: 1, files: "" });
		});
	});
}

/** The run's only task, as `crew status <runId> --json` gives it. */
async function onlyTask(dir: string, runId: string) {
	return JSON.parse((await crewCli(dir, ["status", runId, "--json"])).stdout).tasks[0];
}

/** A program that runs `command` (a program and its first arguments) with the arguments it gets. */
function program(command: readonly string[]): string {
	const file = join(mkdtempSync(join(tmpdir(), "crew-cli-")), "agent-cli");
	writeFileSync(file, `#!/bin/sh\nexec ${command.map((a) => `'${a}'`).join(" ")} "$@"\n`);
	chmodSync(file, 0o755);
	return file;
}
