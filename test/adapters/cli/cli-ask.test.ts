// @module-tag node22
// @module-tag agent-cli
// @slow: real pi agents that ask and wait for answers, one of them across a kill -9 of its runner and a resume
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, test } from "vitest";
import { scriptedCliSetup } from "../../../src/scripted-model/cli-setup.js";
import { cancelLiveRuns, crew, crewProcess, exitOf, read, TestRepo, waitFor } from "../../helpers.js";
import { serverStarter } from "../../scripted-model/servers.js";

const startServer = serverStarter();
const repos: TestRepo[] = [];
afterEach(async () => {
	for (const repo of repos.splice(0)) await cancelLiveRuns(repo.dir);
});

const QUESTION = "Which database, Postgres or SQLite?";

test("the inbox lists an approval, a failed run and a question; a question survives its runner: killed -9 while its pi agent waits, the resumed run waits again without asking the model, and crew answer's text reaches the next attempt", async () => {
	const server = await startServer((request) => {
		const said = request.messages.map((m) => m.text).join("\n");
		if (said.includes("ANSWER-TEXT")) return { kind: "text", text: "answered" };
		return { kind: "call", tool: "ask", args: { question: QUESTION } };
	});
	const pi = scriptedCliSetup("pi", server.url, mkdtempSync(join(tmpdir(), "crew-pi-")));
	// A command told when the run waits for a person: the question is one thing it waits for.
	const home = mkdtempSync(join(tmpdir(), "crew-ask-home-"));
	const told = join(home, "told.jsonl");
	mkdirSync(join(home, "crew"), { recursive: true });
	const notify = [{ command: `cat >> ${told}; echo >> ${told}`, events: ["waiting"] }];
	writeFileSync(join(home, "crew", "config.json"), JSON.stringify({ notify }));
	const env = { ...process.env, ...pi.env, XDG_CONFIG_HOME: home };
	const repo = new TestRepo();
	repos.push(repo);
	expect((await crew(repo.dir, ["trust"], 60_000, env)).code).toBe(0);
	repo.writeFile(".crew/agents/chooser.md", `---\nname: chooser\nruntime: pi\nmodel: ${pi.model}\n---\nYou choose.\n`);
	repo.workflow("one", [{ id: "a", role: "chooser", text: "pick a database" }]);
	// Besides the question, the inbox holds an approval and a failed run.
	repo.agent("worker");
	repo.writeFile(
		".crew/agents/failer.md",
		"---\nname: failer\nruntime: command\ncommand: echo broken >&2; exit 3\n---\n",
	);
	repo.workflow("gated", [{ id: "gate", extra: { approval: "true" } }]);
	repo.workflow("bad", [{ id: "b", role: "failer" }]);

	const gated = await crew(repo.dir, ["run", "g", "--workflow", "gated", "--json"], 60_000, env);
	const waiting = JSON.parse(gated.stdout.trim().split("\n").at(-1) ?? "{}").runId as string;
	const bad = await crew(repo.dir, ["run", "g", "--workflow", "bad", "--retries", "0", "--json"], 60_000, env);
	const failed = JSON.parse(bad.stdout.trim().split("\n").at(-1) ?? "{}").runId as string;

	const runner = crewProcess(repo.dir, ["run", "g", "--workflow", "one"], env);
	const runId = await waitFor("the run recorded", () =>
		read(repo.dir, (r) => r.repo.runs().find((run) => run.workflow === "one")?.id),
	);
	await waitFor(
		"the task to wait for its answer",
		() => read(repo.dir, (r) => r.status(runId).tasks[0]?.status) === "waiting",
	);
	const inbox = JSON.parse((await crew(repo.dir, ["inbox", "--json"], 60_000, env)).stdout);
	expect(
		inbox.items.map((i: { kind: string; runId: string; command: string }) => [i.kind, i.runId, i.command]),
	).toEqual([
		["approval", waiting, `crew approve ${waiting}`],
		["failed", failed, `crew retry ${failed} b`],
		["question", runId, `crew answer ${runId} a "<answer>"`],
	]);
	expect(inbox.items[2]).toMatchObject({ tasks: ["a"], what: `a asks: ${QUESTION}` });
	await waitFor(
		"the question's notification",
		() => existsSync(told) && readFileSync(told, "utf8").includes("task.asked"),
	);
	const notices = readFileSync(told, "utf8")
		.trim()
		.split("\n")
		.filter((l) => l !== "")
		.map((l) => JSON.parse(l));
	expect(notices.find((n) => n.type === "task.asked")).toMatchObject({
		event: "waiting",
		type: "task.asked",
		runId,
		task: "a",
		question: QUESTION,
	});
	runner.kill("SIGKILL");
	await exitOf(runner);
	expect(server.requests).toHaveLength(1);

	const resumed = await crew(repo.dir, ["resume", runId, "--detach"], 60_000, env);
	expect(resumed.code, resumed.stderr).toBe(0);
	await waitFor(
		"the resumed run to wait for the answer",
		() => read(repo.dir, (r) => r.status(runId).run.status) === "waiting",
	);
	expect(read(repo.dir, (r) => r.status(runId).tasks[0])).toMatchObject({
		status: "waiting",
		error: `asks: ${QUESTION}`,
	});
	// Not asked again: the model has heard nothing since.
	expect(server.requests).toHaveLength(1);

	const answered = await crew(repo.dir, ["answer", runId, "a", "ANSWER-TEXT: Postgres"], 60_000, env);
	expect(answered.code, answered.stderr).toBe(0);
	expect(answered.stdout).toBe("question 1 of task a answered: its agent has the answer\n");
	await waitFor("the run to complete", () => read(repo.dir, (r) => r.status(runId).run.status) === "completed", 60_000);

	// The second attempt started afresh, its prompt carrying the question and its answer.
	expect(server.requests).toHaveLength(2);
	const prompt = server.requests[1]?.messages.find((m) => m.role === "user")?.text ?? "";
	expect(prompt).toContain(`Question: ${QUESTION}\nAnswer: ANSWER-TEXT: Postgres`);
	const task = read(repo.dir, (r) => r.status(runId).tasks[0]);
	expect(task).toMatchObject({ status: "completed", attempts: 2 });
	const events = read(repo.dir, (r) => r.events(runId));
	expect(events.filter((e) => e.type === "task.asked")).toHaveLength(1);
	expect(events.find((e) => e.type === "task.answer.delivered")).toMatchObject({
		taskId: "a",
		data: { attempt: 2, in: "prompt" },
	});
	const again = await crew(repo.dir, ["answer", runId, "a", "too late"], 60_000, env);
	expect(again.code).toBe(1);
	expect(again.stderr).toContain(`task a of run ${runId} has no question waiting for an answer`);
	const left = JSON.parse((await crew(repo.dir, ["inbox", "--json"], 60_000, env)).stdout).items;
	expect(left.map((i: { kind: string }) => i.kind)).toEqual(["approval", "failed"]);
	// One notice for the one question: neither run's waiting for its answer is told again.
	const lines = readFileSync(told, "utf8")
		.trim()
		.split("\n")
		.filter((l) => l !== "");
	expect(lines.map((l) => JSON.parse(l)).filter((n) => n.runId === runId)).toHaveLength(1);
});
