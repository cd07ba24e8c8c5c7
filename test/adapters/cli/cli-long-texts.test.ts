import { existsSync } from "node:fs";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { beforeAll, expect, test } from "vitest";
import type { StatusJson } from "../../../src/engine/views/json.js";
import { crew, failingPi, mcpClient, servedApp, TestRepo } from "../../helpers.js";

/** 4 MiB of words, on one line: a goal written to a file and given whole. */
const GOAL = "word ".repeat(838_861).slice(0, 4_194_304);
const NOTE = "(4,194,304 characters; crew status";
/** Characters of a goal that run lists give; each run's own answer has all of it. */
const LISTED = 500;
/** More than any view of one run shows when it bounds what it prints. */
const READABLE = 3000;

/** A failure longer than a task line has room for, so crew's error names the attempt's log after it. */
const WHY = "the account has run out of credit for this month, and no other account is set up for it; ";
const REASON = `Error: the model's provider refused the request because ${WHY.repeat(4)}add credit or pick another model`;

const repo = new TestRepo();
const env = { ...process.env, CREW_PI: failingPi(REASON) };
let runId = "";
let logPath = "";
let ran = "";

beforeAll(async () => {
	repo.writeFile(".crew/agents/failer.md", "---\nname: failer\nruntime: pi\nsandbox: off\n---\n");
	repo.workflow("one", [{ id: "a", role: "failer", text: "do it" }]);
	repo.writeFile("big.txt", GOAL);
	const run = await crew(repo.dir, ["run", "--goal-file", "big.txt", "--workflow", "one"], 120_000, env);
	expect(run.code, run.stderr).toBe(1);
	ran = run.stdout;
	const runs = JSON.parse((await crew(repo.dir, ["runs", "--json"])).stdout) as { id: string }[];
	runId = runs[0]?.id ?? "";
	const status = JSON.parse((await crew(repo.dir, ["status", runId, "--json"])).stdout) as StatusJson;
	logPath = /\(log: (\S+)\)/.exec(status.tasks[0]?.error ?? "")?.[1] ?? "";
	expect(existsSync(logPath), `the error names its log: ${status.tasks[0]?.error}`).toBe(true);
}, 180_000);

test("crew status bounds a 4 MB goal and a long error, saying where the whole is, and keeps the log's path whole", async () => {
	const status = await crew(repo.dir, ["status", runId]);
	expect(status.code).toBe(0);
	expect(status.stdout.length).toBeLessThan(READABLE);
	expect(status.stdout).toMatch(/\n {2}goal: word word .*… \(4,194,304 characters; crew status \S+ --json for all\)\n/);
	expect(status.stdout).toContain(`${NOTE} ${runId} --json for all)`);
	const error = status.stdout.split("\n").find((line) => line.startsWith("  error: ")) ?? "";
	expect(error).toContain(`(log: ${logPath})`);
	const task = status.stdout.split("\n").find((line) => line.startsWith("  a ")) ?? "";
	expect(task).toContain("pi exited with code 1: Error: the model's provider");
	expect(task.endsWith(`(log: ${logPath})`)).toBe(true);
});

test("a foreground run's progress and summary keep each task's log path whole", () => {
	expect(ran.length).toBeLessThan(READABLE);
	const failedLines = ran.split("\n").filter((line) => /\ba +failer +failed\b/.test(line));
	expect(failedLines.length).toBeGreaterThanOrEqual(2);
	for (const line of failedLines) expect(line.endsWith(`(log: ${logPath})`), line).toBe(true);
});

test("crew runs, crew inbox and crew watch bound the goal and the error", async () => {
	const runs = await crew(repo.dir, ["runs"]);
	expect(runs.stdout.length).toBeLessThan(500);
	expect(runs.stdout).toContain(`${NOTE} ${runId} --json for all)`);

	const inbox = await crew(repo.dir, ["inbox"]);
	expect(inbox.stdout.length).toBeLessThan(1000);
	expect(inbox.stdout).toContain(`(log: ${logPath})`);
	expect(inbox.stdout).toContain(`crew retry ${runId} a`);
	const inboxJson = JSON.parse((await crew(repo.dir, ["inbox", "--json"])).stdout) as { items: { what: string }[] };
	expect(inboxJson.items[0]?.what.length).toBeGreaterThan(200);

	const watch = await crew(repo.dir, ["watch", runId]);
	expect(watch.stdout.length).toBeLessThan(1000);
	expect(watch.stdout).toContain(`(log: ${logPath})`);
});

test("crew_runs's summary of a run, a line per task, bounds each error and keeps its log's path whole", async () => {
	let client: Client | undefined;
	try {
		client = (await mcpClient(repo.dir)).client;
		const answer = await client.callTool({ name: "crew_runs", arguments: {} });
		const { runs } = answer.structuredContent as { runs: { summary: string }[] };
		const summary = runs[0]?.summary ?? "";
		expect(summary.length).toBeLessThan(1000);
		const lines = summary.split("\n");
		expect(lines.find((line) => line.startsWith("error: "))).toContain(`(log: ${logPath})`);
		expect(lines.find((line) => line.startsWith("- a "))).toContain(`(log: ${logPath})`);
	} finally {
		await client?.close();
	}
});

interface ListedRun {
	readonly id: string;
	readonly goal: string;
	readonly goalLength: number;
}

/** A run as lists give it: the start of its goal, and the whole goal's length. */
function expectListed(run: ListedRun | undefined): void {
	expect(run?.goal).toBe(GOAL.slice(0, LISTED));
	expect(run?.goalLength).toBe(GOAL.length);
}

test("crew runs --json gives each run's goal bounded with its length; crew status --json gives it whole", async () => {
	const listed = await crew(repo.dir, ["runs", "--json"]);
	expect(listed.stdout.length).toBeLessThan(READABLE);
	const [run] = JSON.parse(listed.stdout) as ListedRun[];
	expectListed(run);
	const status = JSON.parse((await crew(repo.dir, ["status", runId, "--json"])).stdout) as StatusJson;
	expect(status.run.goal).toBe(GOAL);

	const inbox = await crew(repo.dir, ["inbox", "--json"]);
	expect(inbox.stdout.length).toBeLessThan(READABLE);
	const { items } = JSON.parse(inbox.stdout) as { items: { goal: string; goalLength: number }[] };
	expect(items[0]).toMatchObject({ goal: GOAL.slice(0, LISTED), goalLength: GOAL.length });
});

test("GET /api/runs gives each run's goal bounded with its length; GET /api/runs/<id> gives it whole", async () => {
	const made = servedApp(repo.dir);
	try {
		const { runs } = (await (await made.request("/api/runs")).json()) as { runs: ListedRun[] };
		expectListed(runs[0]);
		const detail = (await (await made.request(`/api/runs/${runId}`)).json()) as { run: { goal: string } };
		expect(detail.run.goal).toBe(GOAL);
	} finally {
		made.close();
	}
});

test("crew_runs and crew_inbox give each run's goal bounded with its length; crew_status gives it whole", async () => {
	let client: Client | undefined;
	try {
		client = (await mcpClient(repo.dir)).client;
		const listed = await client.callTool({ name: "crew_runs", arguments: {} });
		expectListed((listed.structuredContent as { runs: ListedRun[] }).runs[0]);
		const inbox = await client.callTool({ name: "crew_inbox", arguments: {} });
		const { items } = inbox.structuredContent as { items: { goal: string; goalLength: number }[] };
		expect(items[0]).toMatchObject({ goal: GOAL.slice(0, LISTED), goalLength: GOAL.length });
		const status = await client.callTool({ name: "crew_status", arguments: { runId } });
		expect((status.structuredContent as unknown as StatusJson).run.goal).toBe(GOAL);
	} finally {
		await client?.close();
	}
});
