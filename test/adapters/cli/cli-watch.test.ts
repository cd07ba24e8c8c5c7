// @module-tag node22
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, expect, test } from "vitest";
import { CLI, cancelLiveRuns, crew, crewProcess, TestRepo, waitFor } from "../../helpers.js";
import { Terminal } from "../../terminal.js";

const terminals: Terminal[] = [];
const repos: TestRepo[] = [];
afterEach(async () => {
	for (const repo of repos.splice(0)) await cancelLiveRuns(repo.dir);
	for (const terminal of terminals.splice(0)) terminal.close();
});

/** A repository whose tasks each wait for the test to open their gate. */
function gatedRepo(): { repo: TestRepo; open: (step: string) => void } {
	const repo = new TestRepo();
	repos.push(repo);
	const gates = join(repo.dir, "gates");
	mkdirSync(gates);
	repo.agent("worker", `--gate ${gates}`);
	repo.workflow("fan", [{ id: "plan" }, { id: "left", dependsOn: ["plan"] }, { id: "right", dependsOn: ["plan"] }]);
	return { repo, open: (step) => writeFileSync(join(gates, step), "") };
}

async function detachedRun(repo: TestRepo): Promise<string> {
	const started = await crew(repo.dir, ["run", "watch me", "--workflow", "fan", "--detach", "--json"]);
	expect(started.code).toBe(0);
	return JSON.parse(started.stdout.trim().split("\n").at(-1) ?? "{}").runId;
}

/** The screen line of a task, e.g. "left  worker  worker  running  command  1.2s". */
function rowOf(text: string, task: string): string {
	return text.split("\n").find((line) => line.trimStart().startsWith(`${task} `)) ?? "";
}

test("crew watch on a terminal redraws statuses in place as a run started elsewhere goes on", async () => {
	const { repo, open } = gatedRepo();
	const runId = await detachedRun(repo);
	// The sleep keeps the last frame on screen after watch exits (remain-on-exit would print a
	// line of its own at the bottom, scrolling the frame).
	const terminal = new Terminal(repo.dir, `${process.execPath} ${CLI} watch ${runId} --interval 100; sleep 60`, {
		columns: 160,
		rows: 30,
	});
	terminals.push(terminal);

	let text = await waitFor("plan running", () => {
		const s = terminal.screen();
		return /running/.test(rowOf(s, "plan")) && /waiting for gate plan/.test(rowOf(s, "plan")) && s;
	});
	expect(text).toContain(`run ${runId}  running`);
	expect(rowOf(text, "left")).toMatch(/worker\s+worker\s+queued\s+command/);

	open("plan");
	text = await waitFor("plan completed, left and right running", () => {
		const s = terminal.screen();
		return (
			/completed/.test(rowOf(s, "plan")) && /running/.test(rowOf(s, "left")) && /running/.test(rowOf(s, "right")) && s
		);
	});
	expect(text).toMatch(/tasks: .*1 completed/);

	open("left");
	open("right");
	let last = "";
	text = await waitFor(
		"the run completed",
		() => {
			last = terminal.screen();
			return last.includes(`run ${runId}  completed`) && last;
		},
		30_000,
	).catch((error: Error) => {
		throw new Error(`${error.message}; the screen showed:\n${last}`);
	});
	for (const task of ["plan", "left", "right"]) expect(rowOf(text, task)).toMatch(/completed/);
	// One frame redrawn in place, not a frame per refresh scrolling by.
	expect(text.split(`run ${runId}`).length).toBe(2);
	expect(text).toContain("tasks: 3 completed");
});

test("crew watch without a terminal prints a plain line per status change and exits with the run", async () => {
	const { repo, open } = gatedRepo();
	const runId = await detachedRun(repo);
	const watch = crewProcess(repo.dir, ["watch", "--interval", "50"]);
	let out = "";
	watch.stdout?.on("data", (chunk: Buffer) => {
		out += chunk.toString();
	});
	await waitFor("plan running", () => /plan running/.test(out));
	for (const step of ["plan", "left", "right"]) open(step);
	const code = await new Promise<number | null>((done) => watch.on("exit", done));
	expect(code).toBe(0);
	expect(out).not.toContain("\x1b[");
	const lines = out.trim().split("\n");
	expect(lines[0]).toMatch(new RegExp(`run ${runId} running`));
	expect(lines.at(-1)).toMatch(new RegExp(`run ${runId} completed`));
	for (const task of ["plan", "left", "right"]) {
		expect(lines.filter((l) => l.includes(` ${task} completed`))).toHaveLength(1);
	}
});

test("crew logs prints a task's output and attempts, as text or JSON lines, and follows a live task", async () => {
	const { repo, open } = gatedRepo();
	const runId = await detachedRun(repo);
	const follow = crewProcess(repo.dir, ["logs", runId, "plan", "--follow"]);
	let followed = "";
	follow.stdout?.on("data", (chunk: Buffer) => {
		followed += chunk.toString();
	});
	await waitFor("the gate line", () => followed.includes("waiting for gate plan"));
	expect(followed).toMatch(/── attempt 1 \(command, unconfined\) ──/);
	open("plan");
	const code = await new Promise<number | null>((done) => follow.on("exit", done));
	expect(code).toBe(0);
	expect(followed).toMatch(/gate plan opened\n(.*\n)*.*done plan\n.*task completed/);

	open("left");
	open("right");
	const json = await crew(repo.dir, ["logs", runId, "left", "--json", "--follow"]);
	expect(json.code).toBe(0);
	const entries = json.stdout
		.trim()
		.split("\n")
		.map((line) => JSON.parse(line));
	expect(entries.map((e) => e.kind)).toEqual(expect.arrayContaining(["attempt", "output", "status"]));
	const output = entries.filter((e) => e.kind === "output");
	expect(output.every((e) => e.type === "worker.output")).toBe(true);
	expect(output.map((e) => e.text).join("\n")).toBe("waiting for gate left\ngate left opened\ndone left");
	expect(entries.at(-1)).toMatchObject({ type: "task.completed", kind: "status", text: "completed" });

	const unknown = await crew(repo.dir, ["logs", runId, "nope"]);
	expect(unknown.code).not.toBe(0);
	expect(unknown.stderr).toContain("no task or step 'nope'");
});
