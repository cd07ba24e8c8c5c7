// @slow: a dozen faulty agents, signals, full disks and damaged stores, each a crew run in processes of its own
import { execFileSync } from "node:child_process";
import {
	chmodSync,
	mkdirSync,
	openSync,
	readFileSync,
	statSync,
	truncateSync,
	writeFileSync,
	writeSync,
} from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, expect, test } from "vitest";
import { groupsCarrying } from "../../src/runtimes/process/process-group.js";
import { cancelLiveRuns, crew, crewProcess, isAlive, ROOT, TestRepo, waitFor } from "../helpers.js";
import { tally } from "./tally.js";

const repos: TestRepo[] = [];
const mounts: string[] = [];
afterEach(async () => {
	for (const repo of repos.splice(0)) await cancelLiveRuns(repo.dir);
	for (const dir of mounts.splice(0)) execFileSync("umount", [dir]);
});

function newRepo(): TestRepo {
	const repo = new TestRepo();
	repos.push(repo);
	return repo;
}

function lastJson(stdout: string): { runId: string; status: string } {
	return JSON.parse(stdout.trim().split("\n").at(-1) ?? "{}");
}

async function statusOf(dir: string, runId: string) {
	const shown = await crew(dir, ["status", runId, "--json"]);
	expect(shown.code).toBe(0);
	return JSON.parse(shown.stdout) as {
		run: { status: string; error?: string };
		tasks: { id: string; status: string; error: string | null }[];
	};
}

/** Live processes of the run, and of the given pids: what a finished run must not leave. */
function leftOver(runId: string, pids: readonly number[]): number {
	return groupsCarrying({ CREW_RUN_ID: runId }).length + pids.filter(isAlive).length;
}

test.for(["SIGTERM", "SIGINT"] as const)(
	"%s to a foreground runner cancels the run cleanly and leaves no process",
	async (signal) => {
		const repo = newRepo().agent("worker", "--sleep 60000 --grandchild");
		repo.workflow("pair", [{ id: "a" }, { id: "b" }, { id: "c", dependsOn: ["a"] }]);
		const runner = crewProcess(repo.dir, ["run", "stop me", "--workflow", "pair"]);
		let out = "";
		runner.stdout?.on("data", (chunk: Buffer) => {
			out += chunk.toString();
		});
		const exited = new Promise<number | null>((resolve) => runner.once("exit", (code) => resolve(code)));
		await waitFor("both workers started", () => repo.starts().length === 2);
		tally({ signalsSent: 1 });
		runner.kill(signal);
		const code = await exited;
		const runId = /run (\S+) cancelled/.exec(out)?.[1] as string;
		const status = await statusOf(repo.dir, runId);
		const pids = repo
			.starts()
			.flatMap((s) => [s.pid, s.grandchild ?? 0])
			.filter((p) => p > 0);
		await waitFor("the workers gone", () => leftOver(runId, pids) === 0, 10_000);
		expect(code).toBe(130);
		expect(status.run.status).toBe("cancelled");
		expect(status.tasks.map((t) => t.status)).toEqual(["cancelled", "cancelled", "cancelled"]);
		expect(status.tasks[0]?.error).toBe(`cancelled by ${signal}`);
		tally({ cleanCancels: 1, processesLeft: leftOver(runId, pids) });
	},
);

/** A wrapper that runs crew's fake agent CLI output as if it were pi. */
function fakePi(repo: TestRepo, behaviour: string): string {
	const path = join(repo.dir, `fake-pi-${behaviour}.sh`);
	const body =
		behaviour === "silent"
			? "#!/bin/sh\nexit 0\n"
			: `#!/bin/sh\nexec ${process.execPath} ${join(ROOT, "test", "fixtures", "fake-cli-output.mjs")} pi\n`;
	writeFileSync(path, body);
	chmodSync(path, 0o755);
	return path;
}

const FAULTY: readonly {
	name: string;
	agent: (repo: TestRepo) => void;
	env?: (repo: TestRepo) => NodeJS.ProcessEnv;
	cancelAfterStart?: boolean;
	expect: (status: Awaited<ReturnType<typeof statusOf>>, repo: TestRepo, runId: string) => void;
}[] = [
	{
		name: "a worker that ignores SIGTERM is killed when its run is cancelled",
		agent: (repo) => repo.agent("worker", "--ignore-term --sleep 60000"),
		cancelAfterStart: true,
		expect: (s) => expect(s.tasks[0]?.status).toBe("cancelled"),
	},
	{
		name: "a worker that leaves a grandchild behind completes, and the grandchild goes with it",
		agent: (repo) => repo.agent("worker", "--leave-grandchild"),
		expect: (s) => expect(s.tasks[0]?.status).toBe("completed"),
	},
	{
		name: "a worker that prints 200 MB completes with its result cut at 4 MiB",
		agent: (repo) => repo.agent("worker", "--print-mb 200"),
		expect: (s, repo, runId) => {
			expect(s.tasks[0]?.status).toBe("completed");
			const result = join(repo.dir, ".crew", "runs", runId, "tasks", "a", "result.md");
			expect(statSync(result).size).toBeLessThan(4.1 * 1024 * 1024);
			expect(readFileSync(result, "utf8")).toMatch(/\[crew: output truncated after 4194304 of \d+ bytes\]\n$/);
		},
	},
	{
		name: "an agent CLI printing invalid UTF-8 and lines that are not JSON still completes, the noise kept apart",
		agent: (repo) =>
			repo.writeFile(".crew/agents/worker.md", "---\nname: worker\nruntime: pi\nmodel: any/model\n---\nYou work.\n"),
		env: (repo) => ({ ...process.env, CREW_PI: fakePi(repo, "noisy") }),
		expect: (s, repo, runId) => {
			expect(s.tasks[0]?.status).toBe("completed");
			const transcript = readFileSync(
				join(repo.dir, ".crew", "runs", runId, "tasks", "a", "attempt-1.transcript.jsonl"),
				"utf8",
			);
			const lines = transcript
				.trim()
				.split("\n")
				.map((l) => JSON.parse(l) as { type: string });
			expect(lines.filter((l) => l.type === "crew.unparsed").length).toBeGreaterThanOrEqual(2);
		},
	},
	{
		name: "a command that exits 0 with no output completes with an empty result",
		agent: (repo) =>
			repo.writeFile(".crew/agents/worker.md", "---\nname: worker\nruntime: command\ncommand: true\n---\n"),
		expect: (s) => expect(s.tasks[0]).toMatchObject({ status: "completed", error: null }),
	},
	{
		name: "an agent CLI that exits 0 with no output fails: it never answered",
		agent: (repo) =>
			repo.writeFile(".crew/agents/worker.md", "---\nname: worker\nruntime: pi\nmodel: any/model\n---\nYou work.\n"),
		env: (repo) => ({ ...process.env, CREW_PI: fakePi(repo, "silent") }),
		expect: (s) =>
			expect(s.tasks[0]).toMatchObject({
				status: "failed",
				error: expect.stringMatching(/^pi ended without an answer \(log: \/.*\/tasks\/a\/attempt-1\.stderr\.log\)$/),
			}),
	},
];

test.for(FAULTY)("$name; no process is left", async (fault) => {
	const repo = newRepo();
	fault.agent(repo);
	repo.workflow("one", [{ id: "a" }]);
	tally({ faultyWorkers: 1 });
	const env = fault.env?.(repo) ?? process.env;
	let runId: string;
	if (fault.cancelAfterStart) {
		const started = await crew(repo.dir, ["run", "fault", "--workflow", "one", "--detach", "--json"], 60_000, env);
		runId = lastJson(started.stdout).runId;
		await waitFor("the worker started", () => repo.starts("a").length === 1);
		await sleep(100);
		const cancelled = await crew(repo.dir, ["cancel", runId]);
		expect(cancelled.code).toBe(0);
	} else {
		const run = await crew(repo.dir, ["run", "fault", "--workflow", "one", "--retries", "0", "--json"], 120_000, env);
		runId = lastJson(run.stdout).runId;
	}
	const status = await statusOf(repo.dir, runId);
	fault.expect(status, repo, runId);
	const pids = repo
		.starts()
		.flatMap((s) => [s.pid, s.grandchild ?? 0])
		.filter((p) => p > 0);
	await waitFor("no process of the run", () => leftOver(runId, pids) === 0, 10_000);
	tally({ faultyWorkersHandled: 1, processesLeft: leftOver(runId, pids) });
});

/** Mounts a small tmpfs at `dir`, or says why it cannot. */
function smallDisk(dir: string, size: string): string | undefined {
	mkdirSync(dir, { recursive: true });
	try {
		execFileSync("mount", ["-t", "tmpfs", "-o", `size=${size}`, "tmpfs", dir], { stdio: "pipe" });
		mounts.push(dir);
		return undefined;
	} catch (error) {
		return (error as Error).message;
	}
}

test("a full disk under the run files fails the tasks with a clear error and keeps the store consistent", async (context) => {
	const repo = newRepo().agent("worker", "--print-mb 2");
	repo.workflow("pair", [{ id: "a" }, { id: "b", dependsOn: ["a"] }]);
	const why = smallDisk(join(repo.dir, ".crew", "runs"), "1m");
	if (why) context.skip(`no tmpfs here: ${why}`);
	tally({ faultyWorkers: 1 });
	const run = await crew(repo.dir, ["run", "fill it", "--workflow", "pair", "--retries", "0", "--json"]);
	expect(run.code).toBe(1);
	expect(run.stderr).not.toMatch(/\n\s+at /);
	const { runId, status } = lastJson(run.stdout);
	expect(status).toBe("failed");
	const shown = await statusOf(repo.dir, runId);
	expect(shown.tasks[0]?.status).toBe("failed");
	expect(shown.tasks[0]?.error).toContain("cannot store the task's files: ENOSPC: no space left on device");
	expect(shown.tasks[1]?.status).toBe("skipped");
	const events = await crew(repo.dir, ["events", runId, "--json"]);
	expect(events.stdout.trim().split("\n").at(-1)).toContain('"type":"run.failed"');
	tally({ faultyWorkersHandled: 1 });
});

test("a disk full from the start fails the run with a clear error, and the store stays readable", async (context) => {
	const repo = newRepo().agent("worker");
	repo.workflow("one", [{ id: "a" }]);
	const why = smallDisk(join(repo.dir, ".crew", "runs"), "64k");
	if (why) context.skip(`no tmpfs here: ${why}`);
	writeFileSync(join(repo.dir, ".crew", "runs", "filler"), Buffer.alloc(60 * 1024));
	tally({ faultyWorkers: 1 });
	const run = await crew(repo.dir, ["run", "no room", "--workflow", "one", "--retries", "0", "--json"]);
	expect(run.code).toBe(1);
	expect(run.stderr).not.toMatch(/\n\s+at /);
	const shown = await crew(repo.dir, ["status", "--json"]);
	expect(shown.code).toBe(0);
	const status = JSON.parse(shown.stdout) as { run: { status: string }; tasks: { status: string; error: string }[] };
	expect(status.run.status).toBe("failed");
	expect(status.tasks[0]?.error).toMatch(/ENOSPC/);
	tally({ faultyWorkersHandled: 1 });
});

const DAMAGE: readonly { name: string; damage: (file: string) => void; message: RegExp }[] = [
	{
		name: "truncated to half its size",
		damage: (file) => truncateSync(file, Math.floor(statSync(file).size / 2)),
		message: /cannot use the crew store .*crew\.db: database disk image is malformed/,
	},
	{
		name: "with a corrupted header",
		damage: (file) => {
			const fd = openSync(file, "r+");
			writeSync(fd, Buffer.from("this is no longer a sqlite file header at all, sorry"), 0, 52, 0);
		},
		message: /cannot use the crew store .*crew\.db: file is not a database/,
	},
	{
		name: "emptied",
		damage: (file) => truncateSync(file, 0),
		message: /cannot use the crew store .*crew\.db: it is empty, but .*runs holds 1 runs; it was truncated/,
	},
];

test.for(DAMAGE)("a crew.db $name gives one clear line naming the file, never a stack trace", async (damage) => {
	const repo = newRepo().agent("worker");
	repo.workflow("one", [{ id: "a" }]);
	const run = await crew(repo.dir, ["run", "first", "--workflow", "one", "--json"]);
	const { runId } = lastJson(run.stdout);
	const file = join(repo.dir, ".crew", "crew.db");
	// Everything in the main file, so damage to it is damage to the store.
	execFileSync(process.execPath, [
		"-e",
		`const D=require(${JSON.stringify(join(ROOT, "node_modules", "better-sqlite3"))});const d=new D(${JSON.stringify(file)});d.pragma("wal_checkpoint(TRUNCATE)");d.close()`,
	]);
	damage.damage(file);
	for (const args of [["status", runId], ["runs"], ["resume", runId], ["run", "again", "--workflow", "one"]]) {
		tally({ badInputsTried: 1 });
		const result = await crew(repo.dir, args);
		expect({ args, code: result.code }).toEqual({ args, code: 1 });
		expect(result.stderr.trim().split("\n")).toHaveLength(1);
		expect(result.stderr).toMatch(damage.message);
		tally({ badInputsRejected: 1 });
	}
});

test("two crew resume at once: exactly one proceeds, and every task runs once", async () => {
	const repo = newRepo().agent("worker", "--sleep 300");
	repo.workflow("three", [{ id: "a" }, { id: "b", dependsOn: ["a"] }, { id: "c", dependsOn: ["b"] }]);
	const runner = crewProcess(repo.dir, ["run", "race", "--workflow", "three"]);
	await waitFor("a started", () => repo.starts("a").length === 1);
	runner.kill("SIGKILL");
	await new Promise((resolve) => runner.once("exit", resolve));
	const runId = (JSON.parse((await crew(repo.dir, ["runs", "--json"])).stdout) as { id: string }[])[0]?.id as string;
	const [one, two] = await Promise.all([
		crew(repo.dir, ["resume", runId, "--json"]),
		crew(repo.dir, ["resume", runId, "--json"]),
	]);
	const winners = [one, two].filter((r) => r.code === 0);
	const losers = [one, two].filter((r) => r.code !== 0);
	expect(winners).toHaveLength(1);
	expect(losers).toHaveLength(1);
	expect(losers[0]?.stderr).toMatch(/is already being run by pid \d+ on /);
	expect(lastJson(winners[0]?.stdout ?? "").status).toBe("completed");
	// a was interrupted and ran again once; b and c ran exactly once.
	expect(repo.starts("a")).toHaveLength(2);
	expect(repo.starts("b")).toHaveLength(1);
	expect(repo.starts("c")).toHaveLength(1);
	tally({ runnersKilled: 1, runsCompleted: 1, processesLeft: leftOver(runId, []) });
});
