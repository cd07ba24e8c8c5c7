import { afterEach, expect, test } from "vitest";
import { CLI, cancelLiveRuns, crew, type TestRepo, waitFor } from "../../helpers.js";
import { Terminal } from "../../terminal.js";
import { type GrowingRepo, PLANNER_ORDER, plannerRepo, scriptRepo, UNTIL_ORDER, untilRepo } from "../growing-runs.js";

const terminals: Terminal[] = [];
const repos: TestRepo[] = [];
afterEach(async () => {
	for (const repo of repos.splice(0)) await cancelLiveRuns(repo.dir);
	for (const terminal of terminals.splice(0)) terminal.close();
});

/** The task lines of a screen or text (two spaces, then a task id) as [id, role, status], top to bottom. */
function taskRows(text: string, ids: readonly string[]): [string, string, string][] {
	const rows: [string, string, string][] = [];
	for (const line of text.split("\n")) {
		const [id = "", role = "", status = ""] = line.trim().split(/\s+/);
		if (line.startsWith("  ") && ids.includes(id)) rows.push([id, role, status]);
	}
	return rows;
}

/** Starts `crew run` in the foreground on a tmux terminal, as a person would. */
function foregroundRun({ repo, args }: GrowingRepo): Terminal {
	repos.push(repo);
	const quoted = args.map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(" ");
	// The sleep keeps the last screen after crew exits.
	const command = `${process.execPath} ${CLI} run 'grow the run' ${quoted}; sleep 60`;
	const terminal = new Terminal(repo.dir, command, { columns: 160, rows: 40 });
	terminals.push(terminal);
	return terminal;
}

/** Waits until the live view lists `running` for `task`; returns the screen then. */
async function whileRunning(terminal: Terminal, task: string, ids: readonly string[]): Promise<string> {
	let last = "";
	return await waitFor(`${task} shown running`, () => {
		last = terminal.screen();
		return taskRows(last, ids).some(([id, , status]) => id === task && status === "running") && last;
	}).catch((error: Error) => {
		throw new Error(`${error.message}; the screen showed:\n${last}`);
	});
}

test("the foreground view shows the tasks of an --until pass that joined while it ran", async () => {
	const grown = untilRepo(true);
	const terminal = foregroundRun(grown);
	const text = await whileRunning(terminal, "work.2", UNTIL_ORDER);
	expect(taskRows(text, UNTIL_ORDER)).toEqual([
		["work", "worker", "completed"],
		["review", "glancer", "completed"],
		["until.1", "until", "superseded"],
		["work.2", "worker", "running"],
		["review.2", "glancer", "queued"],
		["until.2", "until", "queued"],
	]);
	expect(text).toMatch(/2 completed, .*1 running/);
	grown.open();
	await waitFor("the run completed", () => terminal.screen().includes("completed in"), 30_000);
});

test("the foreground view shows a planner's tasks as they join, before the planner's dependents", async () => {
	const grown = plannerRepo(true);
	const terminal = foregroundRun(grown);
	const text = await whileRunning(terminal, "assess.1.1", PLANNER_ORDER);
	expect(taskRows(text, PLANNER_ORDER).map(([id, , status]) => [id, status])).toEqual([
		["assess", "completed"],
		["assess.1.1", "running"],
		["assess.1.2", "running"],
		["assess.2.1", "queued"],
		["report", "queued"],
	]);
	grown.open();
	await waitFor("the run completed", () => terminal.screen().includes("completed in"), 30_000);
});

test("the foreground view of a workflow script shows its tasks as the script makes them", async () => {
	const grown = scriptRepo(true);
	const terminal = foregroundRun(grown);
	const ids = ["inspector-1.0.1", "inspector-1.1.1", "tester-2"];
	const text = await whileRunning(terminal, "inspector-1.1.1", ids);
	expect(text).toContain("its tasks appear as it runs");
	expect(taskRows(text, ids)).toEqual([
		["inspector-1.0.1", "inspector", "running"],
		["inspector-1.1.1", "inspector", "running"],
	]);
	grown.open();
	const done = await waitFor("the run completed", () => {
		const s = terminal.screen();
		return s.includes("completed in") && s;
	});
	expect(done).toMatch(/tester-2 +tester +completed/);
});

async function finished(grown: GrowingRepo): Promise<string> {
	repos.push(grown.repo);
	const run = await crew(grown.repo.dir, ["run", "grow the run", ...grown.args, "--json"]);
	expect(run.code, run.stderr).toBe(0);
	return JSON.parse(run.stdout.trim().split("\n").at(-1) ?? "{}").runId;
}

test("crew status lists a grown run's tasks in DAG order, a planner's dependents after its plan", async () => {
	const grown = plannerRepo();
	const runId = await finished(grown);
	const shown = await crew(grown.repo.dir, ["status", runId]);
	expect(shown.code).toBe(0);
	expect(taskRows(shown.stdout, PLANNER_ORDER).map(([id]) => id)).toEqual(PLANNER_ORDER);
	const json = await crew(grown.repo.dir, ["status", runId, "--json"]);
	expect(JSON.parse(json.stdout).tasks.map((t: { id: string }) => t.id)).toEqual(PLANNER_ORDER);
});

test("crew status groups a workflow script's tasks under its phases", async () => {
	const grown = scriptRepo();
	const runId = await finished(grown);
	const shown = await crew(grown.repo.dir, ["status", runId]);
	expect(shown.code).toBe(0);
	const lines = shown.stdout.split("\n");
	const from = lines.findIndex((l) => l.trim() === "review:");
	expect(from, shown.stdout).toBeGreaterThan(0);
	expect(lines.slice(from, from + 5).map((l) => l.trim().split(/\s+/)[0])).toEqual([
		"review:",
		"inspector-1.0.1",
		"inspector-1.1.1",
		"test:",
		"tester-2",
	]);
});
