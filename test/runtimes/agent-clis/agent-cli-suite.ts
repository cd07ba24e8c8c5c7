import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { projectAt } from "../../../src/config/project.js";
import { Crew } from "../../../src/engine/crew.js";
import { RunReader } from "../../../src/engine/views/reader.js";
import { groupsCarrying } from "../../../src/runtimes/process/process-group.js";
import { RuntimeRegistry } from "../../../src/runtimes/runtime-registry.js";
import { type ScriptedCliName, scriptedCliSetup } from "../../../src/scripted-model/cli-setup.js";
import { ScriptedModelServer } from "../../../src/scripted-model/scripted-model-server.js";
import { actThenReport, type Script } from "../../../src/scripted-model/turns.js";
import { cliHome, portNoneListensOn, ROOT, repositoryCaches, TestRepo, waitFor } from "../../helpers.js";
import { AGENT_CLIS } from "./clis.js";

/** The distinctive part of each CLI's fallback model name, as requests carry it. */
function fallbackOf(name: ScriptedCliName): string {
	return { pi: "scripted-2", claude: "haiku", codex: "scripted-fallback" }[name];
}

/** Each task's text names the file it must write: `FILE <name>`. */
const writeNamedFile: Script = actThenReport((request) => {
	const prompt = request.messages.filter((m) => m.role === "user").pop()?.text ?? "";
	const name = /FILE (\S+)/.exec(prompt)?.[1] ?? "unnamed.txt";
	return { kind: "write", path: name, content: `written for ${name}\n` };
}, "the file is written");

/**
 * The tests of one agent CLI as crew's worker, by its label. Each CLI's tests are a file of their
 * own (beside this one), so the four CLIs run side by side.
 */
export function agentCliSuite(label: string): void {
	const cli = AGENT_CLIS.find((c) => c.label === label);
	if (!cli) throw new Error(`no agent CLI labelled '${label}'`);
	const servers: ScriptedModelServer[] = [];
	afterEach(async () => {
		for (const server of servers.splice(0)) await server.close();
	});
	describe(`${cli.label} as crew's worker`, () => suite(cli, servers));
}

function suite(cli: (typeof AGENT_CLIS)[number], servers: ScriptedModelServer[]): void {
	async function setup(
		script: Script,
		agentFields: (scripted: { fallbackModel: string }) => string = () => "",
		env: Readonly<Record<string, string>> = {},
		modelUrl?: string,
	) {
		const server = await ScriptedModelServer.start(script);
		servers.push(server);
		const repo = new TestRepo();
		const scripted = scriptedCliSetup(cli.name, modelUrl ?? server.url, cliHome(cli.name));
		repo.writeFile(
			".crew/agents/scribe.md",
			`---\nname: scribe\nruntime: ${cli.name}\nmodel: ${scripted.model}\n${agentFields(scripted)}---\nYou write files when asked.\n`,
		);
		const options = {
			env: { PATH: process.env.PATH, ...env, ...scripted.env },
			...(cli.command ? { command: cli.command } : {}),
		};
		const crew = new Crew({
			project: projectAt(repo.dir),
			runtimes: RuntimeRegistry.standard({ graceMs: 500, [cli.name]: options }),
			pollMs: 20,
			retryPolicy: { baseMs: 50, factor: 2, maxMs: 200, jitter: 0 },
		});
		return { server, repo, crew, scripted };
	}

	test("sees only its own provider's keys: others planted in crew's environment do not reach it", async () => {
		const planted = {
			ANTHROPIC_API_KEY: "planted-anthropic",
			OPENAI_API_KEY: "planted-openai",
			GEMINI_API_KEY: "planted-gemini",
		};
		const { server, repo, crew } = await setup(
			actThenReport(() => ({ kind: "shell", command: "printenv ANTHROPIC_API_KEY OPENAI_API_KEY GEMINI_API_KEY" })),
			() => "",
			planted,
		);
		repo.workflow("one", [{ id: "a", role: "scribe", text: "show the keys" }]);
		try {
			const runId = crew.create(await crew.plan({ goal: "g", workflow: "one", retries: 0 }));
			expect(await crew.execute(runId)).toBe("completed");
			const shown = server.requests.find((r) => r.afterToolResult)?.messages.at(-1)?.text ?? "";
			// Each CLI's own key comes from its scripted setup; pi's scripted provider names no variable.
			const own: readonly string[] = { pi: [], claude: ["scripted-key"], codex: ["planted-openai"] }[cli.name];
			for (const value of own) expect(shown).toContain(value);
			const foreign = ["planted-anthropic", "planted-openai", "planted-gemini"].filter((v) => !own.includes(v));
			for (const value of foreign) expect(shown).not.toContain(value);
			expect(shown).not.toContain("planted-gemini");
		} finally {
			crew.close();
		}
	});

	test("in crew's sandbox its shell writes its workspace and nothing beside it, and sees no planted key", async () => {
		const tried =
			'echo mine > own.txt; echo escaped > "$HOME/x"; cat "$HOME/.ssh/id_test"; ls "$CREW_WORKSPACE/.crew"; echo tried';
		const { server, repo, crew, scripted } = await setup(actThenReport(() => ({ kind: "shell", command: tried })));
		const home = scripted.env.HOME as string;
		mkdirSync(join(home, ".ssh"));
		writeFileSync(join(home, ".ssh", "id_test"), "PLANTED-SECRET\n");
		repo.workflow("one", [{ id: "a", role: "scribe", text: "try the walls" }]);
		try {
			const runId = crew.create(await crew.plan({ goal: "g", workflow: "one", retries: 0, sandbox: "workspace" }));
			expect(await crew.execute(runId)).toBe("completed");
			expect(readFileSync(join(repo.dir, "own.txt"), "utf8")).toBe("mine\n");
			expect(existsSync(join(home, "x"))).toBe(false);
			expect(readFileSync(join(home, ".ssh", "id_test"), "utf8")).toBe("PLANTED-SECRET\n");
			const shown = server.requests.find((r) => r.afterToolResult)?.messages.at(-1)?.text ?? "";
			expect(shown).toContain("tried");
			expect(shown).toMatch(/x: Read-only file system/);
			expect(shown).toMatch(/id_test: No such file/);
			// crew's own folder shows the attempt's files only: no store.
			expect(shown).not.toMatch(/crew\.db/);
			const transcript = readFileSync(
				join(repo.dir, ".crew", "runs", runId, "tasks", "a", "attempt-1.transcript.jsonl"),
				"utf8",
			);
			expect(`${shown}${transcript}`).not.toContain("PLANTED-SECRET");
			const model = new URL(server.url);
			expect(crew.snapshot(runId).tasks[0]?.sandbox).toEqual({
				level: "workspace",
				readOnly: false,
				network: [`${model.hostname}:${model.port}`],
				caches: repositoryCaches(home),
			});
			const denied = crew.events(runId).filter((e) => e.type === "sandbox.denied");
			expect(denied.map((e) => e.data)).toContainEqual({ path: join(home, "x") });
		} finally {
			crew.close();
		}
	});

	test("at strict, the tightest level, its run completes: it reaches its model, writes its workspace and commits there", async () => {
		const work =
			"echo mine > own.txt && git add own.txt && git -c user.name=a -c user.email=a@a commit -qm mine && echo committed";
		const { server, repo, crew } = await setup(actThenReport(() => ({ kind: "shell", command: work })));
		repo.workflow("one", [{ id: "a", role: "scribe", text: "write and commit" }]);
		rmSync(join(repo.dir, ".git"), { recursive: true });
		execFileSync("git", ["init", "-q"], { cwd: repo.dir });
		try {
			const runId = crew.create(await crew.plan({ goal: "g", workflow: "one", retries: 0, sandbox: "strict" }));
			expect(await crew.execute(runId)).toBe("completed");
			expect(readFileSync(join(repo.dir, "own.txt"), "utf8")).toBe("mine\n");
			const shown = server.requests.find((r) => r.afterToolResult)?.messages.at(-1)?.text ?? "";
			expect(shown).toContain("committed");
			expect(execFileSync("git", ["log", "-1", "--format=%s"], { cwd: repo.dir, encoding: "utf8" })).toBe("mine\n");
			expect(crew.snapshot(runId).tasks[0]?.sandbox).toMatchObject({ level: "strict", readOnly: false });
		} finally {
			crew.close();
		}
	});

	test("in crew's sandbox it reaches its model and the hosts its user allows, no other: a local server and a remote one stay unreached, each denial recorded", async () => {
		const hits = { other: 0, allowed: 0 };
		const serve = async (name: keyof typeof hits) => {
			const server = createServer((_request, response) => {
				hits[name] += 1;
				response.end(`${name} reached\n`);
			});
			await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
			return { server, port: (server.address() as AddressInfo).port };
		};
		const other = await serve("other");
		const allowed = await serve("allowed");
		const curl = (url: string) => `curl -sS -m 5 -w ' said %{http_code}\\n' ${url};`;
		const tried = `${curl(`http://127.0.0.1:${other.port}/`)} ${curl(`http://127.0.0.1:${allowed.port}/`)} ${curl("http://example.com/")} echo tried`;
		const { server, repo, crew } = await setup(actThenReport(() => ({ kind: "shell", command: tried })));
		repo.workflow("one", [{ id: "a", role: "scribe", text: "try the network" }]);
		try {
			const userHost = `127.0.0.1:${allowed.port}`;
			const plan = await crew.plan({
				goal: "g",
				workflow: "one",
				retries: 0,
				sandbox: "workspace",
				sandboxHosts: [userHost],
			});
			const runId = crew.create(plan);
			const end = await crew.execute(runId);
			expect({ end, error: crew.snapshot(runId).tasks[0]?.error }).toEqual({ end: "completed", error: null });
			expect(hits).toEqual({ other: 0, allowed: 1 });
			const shown = server.requests.find((r) => r.afterToolResult)?.messages.at(-1)?.text ?? "";
			expect(shown).toContain("allowed reached");
			// example.com, asked of crew's gate as a proxy, is refused there.
			expect(shown).toContain(" said 403");
			expect(shown).toContain("tried");
			const model = new URL(server.url);
			expect(crew.snapshot(runId).tasks[0]?.sandbox).toEqual({
				level: "workspace",
				readOnly: false,
				network: [`${model.hostname}:${model.port}`, userHost],
				caches: repositoryCaches(),
			});
			const denied = crew.events(runId).filter((e) => e.type === "sandbox.denied");
			expect(denied.map((e) => e.data)).toEqual(
				expect.arrayContaining([
					{ host: "127.0.0.1", port: other.port },
					{ host: "example.com", port: 80 },
				]),
			);
			expect(denied.map((e) => e.data)).not.toContainEqual({ host: "127.0.0.1", port: allowed.port });
		} finally {
			crew.close();
			other.server.close();
			allowed.server.close();
		}
	});

	test("as a read-only reviewer in crew's sandbox, its attempted edit is refused", async () => {
		const edit = "echo changed > notes.md; echo tried";
		const { server, repo, crew } = await setup(
			actThenReport(() => ({ kind: "shell", command: edit })),
			() => "permissions: read-only\n",
		);
		repo.writeFile("notes.md", "original\n");
		repo.workflow("one", [{ id: "a", role: "scribe", text: "review" }]);
		try {
			const runId = crew.create(await crew.plan({ goal: "g", workflow: "one", retries: 0, sandbox: "workspace" }));
			await crew.execute(runId);
			expect(readFileSync(join(repo.dir, "notes.md"), "utf8")).toBe("original\n");
			const model = new URL(server.url);
			expect(crew.snapshot(runId).tasks[0]?.sandbox).toEqual({
				level: "workspace",
				readOnly: true,
				network: [`${model.hostname}:${model.port}`],
				caches: repositoryCaches(),
			});
			// Claude Code refuses the edit itself, asking permission in print mode; the others run it, and crew's sandbox refuses it.
			if (cli.name !== "claude") {
				const denied = crew.events(runId).filter((e) => e.type === "sandbox.denied");
				expect(denied.map((e) => e.data)).toContainEqual({ path: join(repo.dir, "notes.md") });
			}
		} finally {
			crew.close();
		}
	});

	test("writes files through its own tools; crew records usage, transcripts and the run status", async () => {
		const { server, repo, crew, scripted } = await setup(writeNamedFile);
		repo.workflow("fan", [
			{ id: "a", role: "scribe", text: "FILE a.txt for {goal}" },
			{ id: "b", role: "scribe", dependsOn: ["a"], text: "FILE b.txt for {goal}" },
			{ id: "c", role: "scribe", dependsOn: ["a"], text: "FILE c.txt for {goal}" },
		]);
		try {
			const runId = crew.create(await crew.plan({ goal: "the notes", workflow: "fan" }));
			expect(await crew.execute(runId)).toBe("completed");
			for (const name of ["a", "b", "c"]) {
				expect(readFileSync(join(repo.dir, `${name}.txt`), "utf8")).toBe(`written for ${name}.txt\n`);
			}
			const { tasks } = crew.snapshot(runId);
			for (const task of tasks) {
				expect(task.status).toBe("completed");
				expect(task.usage.input).toBeGreaterThan(0);
				expect(task.usage.output).toBeGreaterThan(0);
				if (cli.reportsCost) expect(task.usage.cost).toBeGreaterThan(0);
			}
			// Each task asks twice: once to act, once more with the tool's result. A CLI may send a
			// request again when it took the first for lost on a loaded machine: the same ask, once.
			const asked = [
				...new Map(
					server.requests.filter((r) => r.tools.length > 0).map((r) => [JSON.stringify(r.messages), r]),
				).values(),
			];
			expect(asked).toHaveLength(6);
			expect(asked.filter((r) => r.afterToolResult)).toHaveLength(3);
			const dir = join(repo.dir, ".crew", "runs", runId, "tasks", "b");
			expect(readFileSync(join(dir, "result.md"), "utf8")).toBe("the file is written");
			expect(readFileSync(join(dir, "attempt-1.transcript.jsonl"), "utf8")).toContain("the file is written");
			const reader = new RunReader(projectAt(repo.dir));
			const status = JSON.parse(reader.statusJson(runId));
			reader.close();
			const sum = (key: string) =>
				status.tasks.reduce((n: number, t: { usage: Record<string, number> }) => n + (t.usage[key] ?? 0), 0);
			for (const key of ["inputTokens", "outputTokens", "costUsd"]) {
				expect(status.run.usage[key]).toBeCloseTo(sum(key), 10);
			}
			expect(status.run.usage.inputTokens).toBeGreaterThan(0);
			// What the agent reported as it went and its final totals count each request once.
			expect(status.run.usage.inputTokens).toBe(asked.reduce((n, r) => n + r.promptTokens, 0));
			expect(status.run.usage.partial).toBeUndefined();
			expect(status.run.usageByRole).toEqual({ scribe: status.run.usage });
			expect(status.run.usageByModel).toEqual({ [scripted.model]: status.run.usage });
			const events = crew.events(runId).map((e) => e.type);
			expect(events).toContain("worker.tool-start");
			expect(events).toContain("worker.tool-end");
			expect(events).toContain("worker.usage");
		} finally {
			crew.close();
		}
	});

	test("a message steered mid-task reaches its model in the next request, is recorded, and counts in the attempt's usage; steering the finished task is refused", async () => {
		const steer = "STEER-TEXT: also mention the bananas";
		const { server, repo, crew } = await setup((request) => {
			if (request.messages.some((m) => m.text.includes("STEER-TEXT"))) return { kind: "text", text: "steered" };
			if (request.afterToolResult) return { kind: "text", text: "not steered" };
			return { kind: "shell", command: "sleep 2; echo slept" };
		});
		repo.workflow("one", [{ id: "a", role: "scribe", text: "work a while" }]);
		try {
			const runId = crew.create(await crew.plan({ goal: "g", workflow: "one" }));
			const running = crew.execute(runId);
			await waitFor("the agent's shell to run", () => crew.events(runId).some((e) => e.type === "worker.tool-start"));
			const steered = await crew.steer(runId, "a", steer);
			expect(await running).toBe("completed");
			await expect(crew.steer(runId, "a", "too late")).rejects.toThrow(
				"task a is completed: only a running task's agent can be steered",
			);
			const dir = join(repo.dir, ".crew", "runs", runId, "tasks", "a");
			const events = crew.events(runId);
			const asSteered = events.find((e) => e.type === "task.steered");
			expect(asSteered).toMatchObject({ taskId: "a", data: { message: steered.message, text: steer } });
			if (!cli.steers) {
				const reason = `${cli.name} agents take no messages while they work`;
				expect(steered).toMatchObject({ runId, taskId: "a", state: "refused", reason });
				expect(events.find((e) => e.type === "task.steer.refused")).toMatchObject({ data: { reason } });
				expect(readFileSync(join(dir, "result.md"), "utf8")).toBe("not steered");
				return;
			}
			expect(steered).toMatchObject({ runId, taskId: "a", state: "delivered" });
			expect(readFileSync(join(dir, "result.md"), "utf8")).toBe("steered");
			// The request after the tool's result is the first to carry the message.
			const asked = server.requests.filter((r) => r.tools.length > 0);
			const first = asked.findIndex((r) => r.messages.some((m) => m.text.includes(steer)));
			expect(first).toBeGreaterThan(0);
			expect(asked.slice(0, first).every((r) => !r.afterToolResult)).toBe(true);
			const transcript = readFileSync(join(dir, "attempt-1.transcript.jsonl"), "utf8");
			expect(transcript).toContain('"type":"crew.steer"');
			expect(transcript).toContain("steered");
			const delivered = events.find((e) => e.type === "task.steer.delivered");
			expect(delivered).toMatchObject({ taskId: "a", data: { message: steered.message, attempt: 1 } });
			// The steered turn's request counts in the attempt's usage, each request once.
			const task = crew.snapshot(runId).tasks[0];
			expect(task?.usage.input).toBe(asked.reduce((n, r) => n + r.promptTokens, 0));
		} finally {
			crew.close();
		}
	});

	test.runIf(cli.asks)(
		"an agent that asks waits with its task waiting; the answer is its tool's result in the next request, and the run completes",
		async () => {
			const { server, repo, crew } = await setup((request) => {
				if (request.messages.some((m) => m.text.includes("ANSWER-TEXT"))) return { kind: "text", text: "answered" };
				return { kind: "call", tool: "ask", args: { question: "Which database, Postgres or SQLite?" } };
			});
			repo.workflow("one", [{ id: "a", role: "scribe", text: "pick a database" }]);
			try {
				const runId = crew.create(await crew.plan({ goal: "g", workflow: "one" }));
				const running = crew.execute(runId);
				await waitFor("the task to wait for its answer", () => crew.snapshot(runId).run.status === "waiting");
				expect(crew.snapshot(runId).tasks[0]).toMatchObject({
					status: "waiting",
					error: "asks: Which database, Postgres or SQLite?",
				});
				const given = await crew.answer(runId, "a", "ANSWER-TEXT: Postgres");
				expect(given).toMatchObject({
					taskId: "a",
					question: "Which database, Postgres or SQLite?",
					state: "delivered",
				});
				expect(await running).toBe("completed");
				await expect(crew.answer(runId, "a", "again")).rejects.toThrow(
					`task a of run ${runId} has no question waiting for an answer`,
				);
				const dir = join(repo.dir, ".crew", "runs", runId, "tasks", "a");
				expect(readFileSync(join(dir, "result.md"), "utf8")).toBe("answered");
				// The model was asked twice (Codex: after a search for the tool): the ask, then with the answer as the tool's result.
				const asked = server.requests.filter((r) => r.tools.length > 0);
				expect(asked).toHaveLength(cli.name === "codex" ? 3 : 2);
				// pi's own name for it, or an MCP server's tool's (Codex finds it with its tool search first).
				const offered = asked.flatMap((r) => r.tools);
				expect(offered).toContain(cli.name === "pi" ? "ask" : "mcp__crew__ask");
				// Codex's agent is told the tool is there to be found.
				const told = asked[0]?.messages.some((m) => m.text.includes("find the tool `ask` of the MCP server `crew`"));
				expect(told).toBe(cli.name === "codex");
				expect(asked.at(-1)?.afterToolResult).toBe(true);
				expect(asked.at(-1)?.messages.at(-1)?.text).toContain("ANSWER-TEXT: Postgres");
				const transcript = readFileSync(join(dir, "attempt-1.transcript.jsonl"), "utf8");
				expect(transcript).toContain('"type":"crew.ask"');
				expect(transcript).toContain('"type":"crew.answer"');
				const types = crew.events(runId).map((e) => e.type);
				const order = ["task.asked", "task.waiting", "task.answered", "task.answer.delivered", "task.running"];
				expect(types.filter((t) => order.includes(t) || t.startsWith("run."))).toEqual([
					"run.created",
					"run.running",
					"task.running",
					"task.waiting",
					"task.asked",
					"run.waiting",
					"task.answered",
					"task.running",
					"task.answer.delivered",
					"run.running",
					"run.completed",
				]);
			} finally {
				crew.close();
			}
		},
	);

	test("a 200 KiB prompt reaches the model whole", async () => {
		const { server, repo, crew } = await setup(writeNamedFile);
		// Lines of text, past the 128 KiB Linux allows one argument, ending in a mark of its own.
		const line = "Keep every word of this line in mind, as the task depends on all of it.\n";
		const text = `FILE long.txt\n${line.repeat(Math.ceil((200 * 1024) / line.length))}Do it for {goal}. THE-END-OF-THE-PROMPT-7f3a`;
		repo.workflow("one", [{ id: "a", role: "scribe", text }]);
		try {
			const runId = crew.create(await crew.plan({ goal: "g", workflow: "one", retries: 0 }));
			expect(await crew.execute(runId), crew.snapshot(runId).tasks[0]?.error ?? "").toBe("completed");
			const prompt = readFileSync(join(repo.dir, ".crew", "runs", runId, "tasks", "a", "prompt.md"), "utf8");
			expect(Buffer.byteLength(prompt)).toBeGreaterThan(200 * 1024);
			expect(prompt.trimEnd().endsWith("THE-END-OF-THE-PROMPT-7f3a")).toBe(true);
			const [first] = server.requests;
			const asked = first?.messages.filter((m) => m.role === "user").map((m) => m.text) ?? [];
			expect(asked.filter((said) => said.includes(prompt))).toHaveLength(1);
			expect(readFileSync(join(repo.dir, "long.txt"), "utf8")).toBe("written for long.txt\n");
		} finally {
			crew.close();
		}
	});

	test("an HTTP 500 from the model is retried, then fails the task with the error", async () => {
		const { repo, crew } = await setup(() => ({ kind: "error", status: 500, message: "the model fell over" }));
		repo.workflow("one", [{ id: "a", role: "scribe", text: "FILE a.txt" }]);
		try {
			const runId = crew.create(await crew.plan({ goal: "g", workflow: "one", retries: 1 }));
			expect(await crew.execute(runId)).toBe("failed");
			const [task] = crew.snapshot(runId).tasks;
			expect(task).toMatchObject({ status: "failed", attempts: 2 });
			expect(task?.error).toMatch(cli.serverError);
			expect(existsSync(join(repo.dir, "a.txt"))).toBe(false);
		} finally {
			crew.close();
		}
	});

	test("an overloaded model moves the task to the agent's fallback model, without using a retry", async () => {
		const overloaded = (request: { model: string }) => !request.model.includes(fallbackOf(cli.name));
		const { server, repo, crew } = await setup(
			(request) =>
				overloaded(request) ? { kind: "error", status: 429, message: "slow down" } : writeNamedFile(request),
			(scripted) => `fallbackModels: ${scripted.fallbackModel}\n`,
		);
		repo.workflow("one", [{ id: "a", role: "scribe", text: "FILE a.txt" }]);
		try {
			const runId = crew.create(await crew.plan({ goal: "g", workflow: "one", retries: 0 }));
			expect(await crew.execute(runId), crew.snapshot(runId).tasks[0]?.error ?? "").toBe("completed");
			expect(crew.snapshot(runId).tasks[0]).toMatchObject({ status: "completed", attempts: 2 });
			expect(readFileSync(join(repo.dir, "a.txt"), "utf8")).toBe("written for a.txt\n");
			const models = crew
				.events(runId)
				.filter((e) => e.type === "task.running")
				.map((e) => (e.data as { model?: string }).model);
			expect(models).toHaveLength(2);
			expect(models[1]).toContain(fallbackOf(cli.name));
			expect(server.requests.some((r) => r.model.includes(fallbackOf(cli.name)))).toBe(true);
		} finally {
			crew.close();
		}
	});

	test("an authentication error fails the task at once, with no retry and no fallback", async () => {
		const { repo, crew } = await setup(
			() => ({ kind: "error", status: 401, message: "invalid x-api-key" }),
			(scripted) => `fallbackModels: ${scripted.fallbackModel}\n`,
		);
		repo.workflow("one", [{ id: "a", role: "scribe", text: "FILE a.txt" }]);
		try {
			const runId = crew.create(await crew.plan({ goal: "g", workflow: "one", retries: 2 }));
			expect(await crew.execute(runId)).toBe("failed");
			const [task] = crew.snapshot(runId).tasks;
			expect(task).toMatchObject({ status: "failed", attempts: 1 });
			expect(task?.error).toMatch(/401|invalid x-api-key|api key|auth/i);
		} finally {
			crew.close();
		}
	});

	test("a hung model is ended by the stall timeout, and no process is left", async () => {
		const { repo, crew } = await setup(() => ({ kind: "hang" }));
		repo.workflow("one", [{ id: "a", role: "scribe", text: "FILE a.txt" }]);
		try {
			const runId = crew.create(await crew.plan({ goal: "g", workflow: "one", retries: 0, stallTimeoutMs: 3000 }));
			expect(await crew.execute(runId)).toBe("failed");
			expect(crew.snapshot(runId).tasks[0]).toMatchObject({ status: "failed", error: "no output for 3.0s" });
			expect(groupsCarrying({ CREW_RUN_ID: runId })).toEqual([]);
		} finally {
			crew.close();
		}
	});

	test("an attempt cut mid-task keeps the usage its agent reported, and says when it used more", async () => {
		const { server, repo, crew } = await setup((request) =>
			request.afterToolResult ? { kind: "hang" } : { kind: "shell", command: "echo hi" },
		);
		repo.workflow("one", [{ id: "a", role: "scribe", text: "FILE a.txt" }]);
		try {
			// Unconfined, the CLI's own way of ending mid-response: in crew's sandbox its gate ends its connections too.
			const runId = crew.create(await crew.plan({ goal: "g", workflow: "one", retries: 0, sandbox: "off" }));
			const controller = new AbortController();
			const running = crew.execute(runId, { signal: controller.signal });
			// Cut once the first response (the tool call) came back whole and the second never comes.
			await waitFor("the agent to ask again", () => server.requests.some((r) => r.afterToolResult));
			controller.abort(new Error("stop"));
			expect(await running).toBe("cancelled");
			const answered = server.requests.filter((r) => r.tools.length > 0 && !r.afterToolResult);
			expect(answered).toHaveLength(1);
			const prompt = answered[0]?.promptTokens;
			const [task] = crew.snapshot(runId).tasks;
			const usage = task?.usage;
			if (cli.cutUsage === "whole") {
				expect(usage).toMatchObject({ input: prompt, cacheRead: 0, cacheWrite: 0 });
				expect(usage?.output).toBeGreaterThan(0);
				expect((usage?.cost ?? 0) > 0).toBe(cli.reportsCost);
				expect(usage?.partial).toBeUndefined();
			} else {
				expect(usage).toEqual({ input: prompt, output: 1, cacheRead: 0, cacheWrite: 0, cost: 0, partial: true });
			}
			const reader = new RunReader(projectAt(repo.dir));
			const status = JSON.parse(reader.statusJson(runId));
			reader.close();
			expect(status.tasks[0].usage.inputTokens).toBe(usage?.input);
			expect(status.run.usage.partial).toBe(cli.cutUsage === "whole" ? undefined : true);
			expect(status.run.usageByModel[Object.keys(status.run.usageByModel)[0] ?? ""]).toEqual(status.run.usage);
		} finally {
			crew.close();
		}
	});

	test("cancel mid-task ends the agent and everything it started", async () => {
		const { server, repo, crew } = await setup(() => ({ kind: "hang" }));
		repo.workflow("two", [
			{ id: "a", role: "scribe", text: "FILE a.txt" },
			{ id: "b", role: "scribe", text: "FILE b.txt" },
		]);
		try {
			const runId = crew.create(await crew.plan({ goal: "g", workflow: "two" }));
			const controller = new AbortController();
			const running = crew.execute(runId, { signal: controller.signal });
			await waitFor(
				"both workers to ask the model",
				() => server.requests.filter((r) => r.tools.length > 0).length === 2,
			);
			// Codex may start short-lived helpers in groups of their own beside its two workers.
			expect(groupsCarrying({ CREW_RUN_ID: runId }).length).toBeGreaterThanOrEqual(2);
			controller.abort(new Error("stop"));
			expect(await running).toBe("cancelled");
			expect(groupsCarrying({ CREW_RUN_ID: runId })).toEqual([]);
		} finally {
			crew.close();
		}
	});

	test("an unreachable model server fails the task within its timeout, leaving no process; confined, crew's gate names it", async () => {
		// A port no other test's server can be given while this one runs: none listens there.
		const model = new URL(`http://127.0.0.1:${await portNoneListensOn()}`);
		const { repo, crew } = await setup(writeNamedFile, () => "", {}, model.origin);
		repo.workflow("one", [{ id: "a", role: "scribe", text: "FILE a.txt" }]);
		try {
			for (const sandbox of ["off", "workspace"] as const) {
				const plan = await crew.plan({
					goal: "g",
					workflow: "one",
					retries: 0,
					timeoutMs: cli.unreachableTimeoutMs,
					sandbox,
				});
				const runId = crew.create(plan);
				expect(await crew.execute(runId)).toBe("failed");
				const [task] = crew.snapshot(runId).tasks;
				expect(task?.status).toBe("failed");
				if (sandbox === "off") expect(task?.error).toMatch(cli.unreachable);
				else {
					// Inside, the gate's bridge takes the connection: the CLI sees it dropped, and crew says why.
					expect(task?.error).toMatch(cli.unreachableConfined);
					expect(task?.error).toMatch(
						`; crew's network gate could not connect to ${model.hostname}:${model.port} (ECONNREFUSED)`,
					);
				}
				expect(groupsCarrying({ CREW_RUN_ID: runId })).toEqual([]);
			}
		} finally {
			crew.close();
		}
	});

	test("lines the CLI should never print are kept in the transcript as unparsed, and the task goes on", async () => {
		const repo = new TestRepo();
		repo.writeFile(".crew/agents/scribe.md", `---\nname: scribe\nruntime: ${cli.name}\n---\n`);
		repo.workflow("one", [{ id: "a", role: "scribe", text: "answer" }]);
		const fake = [process.execPath, join(ROOT, "test", "fixtures", "fake-cli-output.mjs"), cli.name];
		const crew = new Crew({
			project: projectAt(repo.dir),
			runtimes: RuntimeRegistry.standard({ [cli.name]: { command: fake } }),
			pollMs: 20,
		});
		try {
			const runId = crew.create(await crew.plan({ goal: "g", workflow: "one" }));
			expect(await crew.execute(runId)).toBe("completed");
			const [task] = crew.snapshot(runId).tasks;
			expect(task?.usage).toMatchObject({ input: 10, output: 5, cost: cli.reportsCost ? 0.001 : 0 });
			const dir = join(repo.dir, ".crew", "runs", runId, "tasks", "a");
			expect(readFileSync(join(dir, "result.md"), "utf8")).toBe("answered anyway");
			const transcript = readFileSync(join(dir, "attempt-1.transcript.jsonl"), "utf8").trim().split("\n");
			const unparsed = transcript.map((l) => JSON.parse(l)).filter((e) => e.type === "crew.unparsed");
			expect(unparsed.map((e) => e.text)).toEqual([
				"this is not json",
				'{"type": "result", "result": {',
				"[1,2,3]",
				"\ufffd\ufffd",
			]);
		} finally {
			crew.close();
		}
	});
}
