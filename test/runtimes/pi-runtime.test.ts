import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, test } from "vitest";
import { projectAt } from "../../src/config/project.js";
import { Crew } from "../../src/engine/crew.js";
import { RunReader } from "../../src/engine/run-reader.js";
import { groupsOfRun } from "../../src/runtimes/process-group.js";
import { RuntimeRegistry } from "../../src/runtimes/runtime-registry.js";
import { ScriptedModelServer } from "../../src/scripted-model/scripted-model-server.js";
import { actThenReport, type Script } from "../../src/scripted-model/turns.js";
import { ROOT, TestRepo, waitFor } from "../helpers.js";

const servers: ScriptedModelServer[] = [];
afterEach(async () => {
	for (const server of servers.splice(0)) await server.close();
});

/** A pi configuration folder whose only provider is the scripted server, with retries off. */
function piHome(server: ScriptedModelServer): NodeJS.ProcessEnv {
	const home = mkdtempSync(join(tmpdir(), "crew-pi-"));
	const agentDir = join(home, "agent");
	mkdirSync(agentDir, { recursive: true });
	const model = {
		id: "scripted-1",
		contextWindow: 128000,
		maxTokens: 4096,
		cost: { input: 3, output: 15, cacheRead: 0, cacheWrite: 0 },
	};
	const provider = {
		baseUrl: `${server.url}/v1`,
		api: "openai-completions",
		apiKey: "scripted-key",
		compat: { supportsDeveloperRole: false, supportsReasoningEffort: false },
		models: [model],
	};
	writeFileSync(join(agentDir, "models.json"), JSON.stringify({ providers: { scripted: provider } }));
	writeFileSync(
		join(agentDir, "settings.json"),
		JSON.stringify({ retry: { enabled: false, provider: { maxRetries: 0 } } }),
	);
	return { PATH: process.env.PATH, HOME: home, PI_CODING_AGENT_DIR: agentDir };
}

async function setup(script: Script) {
	const server = await ScriptedModelServer.start(script);
	servers.push(server);
	const repo = new TestRepo();
	repo.writeFile(
		".crew/agents/writer.md",
		"---\nname: writer\nruntime: pi\nmodel: scripted/scripted-1\ntools: read, write, bash, ask\n---\nYou write files when asked.\n",
	);
	const crew = new Crew({
		project: projectAt(repo.dir),
		runtimes: RuntimeRegistry.standard({ graceMs: 500, pi: { env: piHome(server) } }),
		pollMs: 20,
		retryPolicy: { baseMs: 50, factor: 2, maxMs: 200, jitter: 0 },
	});
	return { server, repo, crew };
}

/** Each task's text names the file it must write: `FILE <name>`. */
const writeNamedFile: Script = actThenReport((request) => {
	const prompt = request.messages.filter((m) => m.role === "user").pop()?.text ?? "";
	const name = /FILE (\S+)/.exec(prompt)?.[1] ?? "unnamed.txt";
	return { kind: "write", path: name, content: `written for ${name}\n` };
}, "the file is written");

test("pi workers write files through their own tools, and crew records usage and transcripts", async () => {
	const { server, repo, crew } = await setup(writeNamedFile);
	repo.workflow("fan", [
		{ id: "a", role: "writer", text: "FILE a.txt for {goal}" },
		{ id: "b", role: "writer", dependsOn: ["a"], text: "FILE b.txt for {goal}" },
		{ id: "c", role: "writer", dependsOn: ["a"], text: "FILE c.txt for {goal}" },
	]);
	try {
		const runId = crew.create(crew.plan({ goal: "the notes", workflow: "fan" }));
		expect(await crew.execute(runId)).toBe("completed");
		for (const name of ["a", "b", "c"]) {
			expect(readFileSync(join(repo.dir, `${name}.txt`), "utf8")).toBe(`written for ${name}.txt\n`);
		}
		const { tasks } = crew.snapshot(runId);
		for (const task of tasks) {
			expect(task.status).toBe("completed");
			expect(task.usage.input).toBeGreaterThan(0);
			expect(task.usage.output).toBeGreaterThan(0);
			expect(task.usage.cost).toBeGreaterThan(0);
		}
		expect(server.requests).toHaveLength(6);
		expect(server.requests[0]?.tools).toEqual(["read", "write", "bash"]);
		const dir = join(repo.dir, ".crew", "runs", runId, "tasks", "b");
		expect(readFileSync(join(dir, "result.md"), "utf8")).toBe("the file is written");
		const transcript = readFileSync(join(dir, "attempt-1.transcript.jsonl"), "utf8");
		expect(transcript).toContain('"type":"tool_execution_start"');
		expect(transcript).not.toContain('"type":"message_update"');
		const reader = new RunReader(projectAt(repo.dir));
		const status = JSON.parse(reader.statusJson(runId));
		reader.close();
		const sum = (key: string) =>
			status.tasks.reduce((n: number, t: { usage: Record<string, number> }) => n + (t.usage[key] ?? 0), 0);
		for (const key of ["inputTokens", "outputTokens", "costUsd"]) {
			expect(sum(key)).toBeGreaterThan(0);
			expect(status.run.usage[key]).toBeCloseTo(sum(key), 10);
		}
		const events = crew.events(runId).map((e) => e.type);
		expect(events).toContain("worker.tool-start");
		expect(events).toContain("worker.usage");
	} finally {
		crew.close();
	}
});

test("an HTTP 500 from the model is retried, then fails the task with the server's error text", async () => {
	const { repo, crew } = await setup(() => ({ kind: "error", status: 500, message: "the model fell over" }));
	repo.workflow("one", [{ id: "a", role: "writer", text: "FILE a.txt" }]);
	try {
		const runId = crew.create(crew.plan({ goal: "g", workflow: "one", retries: 1 }));
		expect(await crew.execute(runId)).toBe("failed");
		const [task] = crew.snapshot(runId).tasks;
		expect(task).toMatchObject({ status: "failed", attempts: 2 });
		expect(task?.error).toMatch(/500 the model fell over/);
		expect(existsSync(join(repo.dir, "a.txt"))).toBe(false);
	} finally {
		crew.close();
	}
});

test("a hung model is ended by the stall timeout, and no pi process is left", async () => {
	const { repo, crew } = await setup(() => ({ kind: "hang" }));
	repo.workflow("one", [{ id: "a", role: "writer", text: "FILE a.txt" }]);
	try {
		const runId = crew.create(crew.plan({ goal: "g", workflow: "one", retries: 0, stallTimeoutMs: 3000 }));
		expect(await crew.execute(runId)).toBe("failed");
		expect(crew.snapshot(runId).tasks[0]).toMatchObject({ status: "failed", error: "no output for 3.0s" });
		expect(groupsOfRun(runId)).toEqual([]);
	} finally {
		crew.close();
	}
});

test("cancel mid-task ends pi and everything it started", async () => {
	const { server, repo, crew } = await setup(() => ({ kind: "hang" }));
	repo.workflow("two", [
		{ id: "a", role: "writer", text: "FILE a.txt" },
		{ id: "b", role: "writer", text: "FILE b.txt" },
	]);
	try {
		const runId = crew.create(crew.plan({ goal: "g", workflow: "two" }));
		const controller = new AbortController();
		const running = crew.execute(runId, { signal: controller.signal });
		await waitFor("both pi workers to ask the model", () => server.requests.length === 2);
		expect(groupsOfRun(runId)).toHaveLength(2);
		controller.abort(new Error("stop"));
		expect(await running).toBe("cancelled");
		expect(groupsOfRun(runId)).toEqual([]);
	} finally {
		crew.close();
	}
});

test("lines pi should never print are kept in the transcript as unparsed, and the task goes on", async () => {
	const repo = new TestRepo();
	repo.writeFile(".crew/agents/writer.md", "---\nname: writer\nruntime: pi\n---\n");
	repo.workflow("one", [{ id: "a", role: "writer", text: "answer" }]);
	const crew = new Crew({
		project: projectAt(repo.dir),
		runtimes: RuntimeRegistry.standard({
			pi: { command: [process.execPath, join(ROOT, "test", "fixtures", "fake-pi.mjs")] },
		}),
		pollMs: 20,
	});
	try {
		const runId = crew.create(crew.plan({ goal: "g", workflow: "one" }));
		expect(await crew.execute(runId)).toBe("completed");
		const [task] = crew.snapshot(runId).tasks;
		expect(task?.usage).toMatchObject({ input: 10, output: 5, cost: 0.001 });
		const dir = join(repo.dir, ".crew", "runs", runId, "tasks", "a");
		expect(readFileSync(join(dir, "result.md"), "utf8")).toBe("answered anyway");
		const transcript = readFileSync(join(dir, "attempt-1.transcript.jsonl"), "utf8").trim().split("\n");
		const unparsed = transcript.map((l) => JSON.parse(l)).filter((e) => e.type === "crew.unparsed");
		expect(unparsed.map((e) => e.text)).toEqual([
			"this is not json",
			'{"type": "message_end", "message": {',
			"[1,2,3]",
			"\ufffd\ufffd",
		]);
	} finally {
		crew.close();
	}
});

test("an unreachable model server fails the task as retryable, within its timeout, leaving no process", async () => {
	const { server, repo, crew } = await setup(writeNamedFile);
	await server.close();
	repo.workflow("one", [{ id: "a", role: "writer", text: "FILE a.txt" }]);
	try {
		const runId = crew.create(crew.plan({ goal: "g", workflow: "one", retries: 1, timeoutMs: 60_000 }));
		expect(await crew.execute(runId)).toBe("failed");
		expect(crew.snapshot(runId).tasks[0]).toMatchObject({ status: "failed", attempts: 2, error: "Connection error." });
		expect(groupsOfRun(runId)).toEqual([]);
	} finally {
		crew.close();
	}
});
