import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, expect, test } from "vitest";
import { crew, crewProcess, isAlive, TestRepo, waitFor } from "../../helpers.js";

/** A finished run whose tasks ended three ways: a completed, b failed, c skipped (it needs b). */
let repo: TestRepo;
let runId: string;

beforeAll(async () => {
	repo = new TestRepo().agent("worker").agent("breaker", "--exit 3");
	repo.workflow("mixed", [{ id: "a" }, { id: "b", role: "breaker" }, { id: "c", dependsOn: ["b"] }]);
	const run = await crew(repo.dir, ["run", "mixed", "--workflow", "mixed", "--retries", "0", "--json"]);
	runId = (JSON.parse(run.stdout.trim().split("\n").at(-1) ?? "{}") as { runId: string }).runId;
	expect(runId, run.stderr).toMatch(/\S/);
});

async function statusTasks(...args: string[]): Promise<Record<string, unknown>[]> {
	const status = await crew(repo.dir, ["status", runId, "--json", ...args]);
	expect(status.code, status.stderr).toBe(0);
	const parsed = JSON.parse(status.stdout) as { run: { id: string }; tasks: Record<string, unknown>[] };
	expect(parsed.run.id).toBe(runId);
	return parsed.tasks;
}

test("crew status --json lists every task without --tasks, and only those in the statuses --tasks names with it", async () => {
	expect((await statusTasks()).map((t) => [t.id, t.status])).toEqual([
		["a", "completed"],
		["b", "failed"],
		["c", "skipped"],
	]);
	expect((await statusTasks("--tasks", "failed,skipped")).map((t) => t.id)).toEqual(["b", "c"]);
	expect((await statusTasks("--tasks", "completed")).map((t) => t.id)).toEqual(["a"]);
	expect(await statusTasks("--tasks", "running,waiting")).toEqual([]);
});

test("crew status --json --fields gives each task only the fields named, in the usual order", async () => {
	const tasks = await statusTasks("--fields", "status,id");
	expect(tasks).toEqual([
		{ id: "a", status: "completed" },
		{ id: "b", status: "failed" },
		{ id: "c", status: "skipped" },
	]);
	const failed = await statusTasks("--tasks", "failed", "--fields", "error,usage");
	expect(failed).toHaveLength(1);
	expect(Object.keys(failed[0] ?? {})).toEqual(["error", "usage"]);
	expect(failed[0]?.error).toMatch(/exit|3/);
	expect(failed[0]?.usage).toEqual(expect.objectContaining({ inputTokens: 0, costUsd: 0 }));
});

test.each([
	{
		args: ["--tasks", "completed,done"],
		message:
			/invalid --tasks 'done': expected task statuses among queued, running, waiting, completed, failed, cancelled, skipped, interrupted, superseded/,
	},
	{ args: ["--tasks", "completed,"], message: /invalid --tasks '': expected task statuses among queued, running/ },
	{
		args: ["--fields", "id,name"],
		message:
			/invalid --fields 'name': expected task fields among id, stepId, role, status, attempts, startedAt, finishedAt, error, usage/,
	},
	{
		args: ["--tasks", "failed"],
		json: false,
		message: /--tasks and --fields choose what crew status --json gives: add --json/,
	},
])(
	"crew status $args is refused as bad input, naming the bad value and the good ones",
	async ({ args, json, message }) => {
		const status = await crew(repo.dir, ["status", runId, ...(json === false ? [] : ["--json"]), ...args]);
		expect(status.code).toBe(2);
		expect(status.stderr).toMatch(message);
		expect(status.stdout).toBe("");
	},
);

test("--tasks goes by the status people see: a running task whose runner is gone is interrupted", async () => {
	const gone = new TestRepo();
	const gates = join(gone.dir, "gates");
	mkdirSync(gates);
	gone.agent("quick").agent("slow", `--gate ${gates}`);
	gone.workflow("pair", [
		{ id: "first", role: "quick" },
		{ id: "long", role: "slow", dependsOn: ["first"] },
	]);
	const runner = crewProcess(gone.dir, ["run", "goal", "--workflow", "pair"]);
	const worker = await waitFor("the slow worker", () => gone.starts("long")[0]?.pid);
	try {
		runner.kill("SIGKILL");
		await waitFor("the runner gone", () => runner.exitCode !== null || runner.signalCode !== null);
		const status = async (...args: string[]) => {
			const result = await crew(gone.dir, ["status", "--json", ...args]);
			expect(result.code, result.stderr).toBe(0);
			return (JSON.parse(result.stdout) as { tasks: unknown[] }).tasks;
		};
		expect(await status("--tasks", "interrupted", "--fields", "id,status,error")).toEqual([
			{ id: "long", status: "interrupted", error: "its runner is gone" },
		]);
		expect(await status("--tasks", "running")).toEqual([]);
	} finally {
		writeFileSync(join(gates, "long"), "");
		await waitFor("the orphaned worker gone", () => !isAlive(worker));
	}
});
