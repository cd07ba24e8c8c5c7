import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { expect, test } from "vitest";
import { processStartTime } from "../../../src/store/process-identity.js";
import { crew, isAlive, TestRepo, waitFor } from "../../helpers.js";

function lastJson(stdout: string): { runId: string; status: string } {
	return JSON.parse(stdout.trim().split("\n").at(-1) ?? "{}");
}

async function finishedRun(repo: TestRepo, goal = "ship it"): Promise<string> {
	const run = await crew(repo.dir, ["run", goal, "--workflow", "pair", "--json"]);
	expect(run.code).toBe(0);
	return lastJson(run.stdout).runId;
}

function pairRepo(): TestRepo {
	const repo = new TestRepo().agent("worker");
	repo.workflow("pair", [{ id: "a" }, { id: "b", dependsOn: ["a"] }]);
	return repo;
}

test("an exported run imports into another repository with its status, events and results intact", async () => {
	const source = pairRepo();
	const runId = await finishedRun(source);
	const bundle = join(source.dir, "run.json");
	const exported = await crew(source.dir, ["export", runId, "-o", bundle]);
	expect(exported).toMatchObject({ code: 0, stdout: `exported run ${runId} (2 tasks, 6 files) to ${bundle}\n` });

	const target = new TestRepo();
	const imported = await crew(target.dir, ["import", bundle]);
	expect(imported).toMatchObject({
		code: 0,
		stdout: `imported run ${runId} (6 files); see it with: crew status ${runId}\n`,
	});
	const before = JSON.parse((await crew(source.dir, ["status", runId, "--json"])).stdout);
	const after = JSON.parse((await crew(target.dir, ["status", runId, "--json"])).stdout);
	expect(after).toEqual(before);
	expect((await crew(target.dir, ["result", runId, "b"])).stdout).toBe("done b\n");
	expect((await crew(target.dir, ["events", runId, "--json"])).stdout).toBe(
		(await crew(source.dir, ["events", runId, "--json"])).stdout,
	);

	const again = await crew(target.dir, ["import", bundle]);
	expect(again.code).toBe(1);
	expect(again.stderr).toBe(`crew: run ${runId} is already in this store\n`);
});

test("a bundle that tries to escape, lies or is not a bundle is refused, naming the problem, and nothing is written", async () => {
	const source = pairRepo();
	const runId = await finishedRun(source);
	const file = join(source.dir, "run.json");
	await crew(source.dir, ["export", runId, "-o", file]);
	const good = JSON.parse(readFileSync(file, "utf8"));
	const variants: [string, (b: typeof good) => unknown, RegExp][] = [
		[
			"a file name leaving the run's folder",
			(b) => ({ ...b, files: [{ ...b.files[0], path: "../../../escaped.txt" }] }),
			/invalid artifact name "\.\.\/\.\.\/\.\.\/escaped\.txt"/,
		],
		[
			"an absolute file name",
			(b) => ({ ...b, files: [{ ...b.files[0], path: "/tmp/escaped.txt" }] }),
			/invalid artifact name "\/tmp\/escaped\.txt"/,
		],
		["a run id with ../", (b) => ({ ...b, runId: "../x" }), /invalid run id "\.\.\/x"/],
		[
			"a row of another run",
			(b) => ({ ...b, rows: { ...b.rows, events: [{ ...b.rows.events[0], run_id: "other-run" }] } }),
			/a events row belongs to run "other-run", not /,
		],
		[
			"an unknown column",
			(b) => ({ ...b, rows: { ...b.rows, tasks: [{ ...b.rows.tasks[0], evil: "1" }] } }),
			/table tasks has no column "evil"/,
		],
		[
			"a file whose hash does not match",
			(b) => ({ ...b, files: [{ ...b.files[0], base64: Buffer.from("tampered").toString("base64") }] }),
			/does not match its sha256/,
		],
		[
			"a run that has not ended",
			(b) => ({ ...b, rows: { ...b.rows, runs: [{ ...b.rows.runs[0], status: "running" }] } }),
			/is "running"; only ended runs are imported/,
		],
		["another format", (b) => ({ ...b, format: "something-else" }), /not a crew run bundle: format/],
	];
	for (const [what, change, message] of variants) {
		const target = new TestRepo();
		const bad = join(target.dir, "bad.json");
		writeFileSync(bad, JSON.stringify(change(structuredClone(good))));
		const result = await crew(target.dir, ["import", bad]);
		expect({ what, code: result.code }).toEqual({ what, code: 2 });
		expect(result.stderr).toMatch(message);
		expect(result.stderr.trim().split("\n")).toHaveLength(1);
		expect((await crew(target.dir, ["runs", "--json"])).stdout.trim()).toBe("[]");
		expect(existsSync(join(target.dir, ".crew", "runs", runId))).toBe(false);
		expect(existsSync(join(target.dir, "escaped.txt"))).toBe(false);
	}
	const target = new TestRepo();
	// A file that is not JSON is said to be so on one line, without the file's text.
	writeFileSync(join(target.dir, "junk.json"), "not json {\nsecond line");
	const junk = await crew(target.dir, ["import", "junk.json"]);
	expect(junk.code).toBe(2);
	expect(junk.stderr).toBe(
		`crew: cannot import ${join(target.dir, "junk.json")}: it is not valid JSON: Unexpected token 'o'\n`,
	);
});

test("an imported attempt holds no process and is lost, so cancel and resume of the run signal nothing", async () => {
	const source = pairRepo();
	const runId = await finishedRun(source);
	const file = join(source.dir, "run.json");
	await crew(source.dir, ["export", runId, "-o", file]);
	// A live process in a group of its own, named by the bundle as the running attempt's worker,
	// with its true start time: what a bundle made on this host, or edited by hand, can carry.
	const bystander = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { detached: true, stdio: "ignore" });
	try {
		const pid = bystander.pid as number;
		await waitFor("the bystander", () => isAlive(pid));
		const bundle = JSON.parse(readFileSync(file, "utf8"));
		bundle.rows.runs[0].status = "interrupted";
		const tasks = bundle.rows.tasks as { id: string; status: string }[];
		for (const task of tasks) if (task.id.startsWith("b")) task.status = "interrupted";
		const attempt = (bundle.rows.attempts as Record<string, unknown>[]).find((a) => String(a.task_id).startsWith("b"));
		Object.assign(attempt ?? {}, { status: "running", pid, pgid: pid, proc_start: processStartTime(pid) });
		writeFileSync(file, JSON.stringify(bundle));

		const target = new TestRepo();
		expect((await crew(target.dir, ["import", file])).code).toBe(0);
		const db = new Database(join(target.dir, ".crew", "crew.db"), { readonly: true });
		const rows = db
			.prepare("SELECT status, pid, pgid, proc_start FROM attempts WHERE run_id = ? ORDER BY id")
			.all(runId);
		db.close();
		expect(rows).toEqual([
			{ status: "completed", pid: null, pgid: null, proc_start: null },
			{ status: "lost", pid: null, pgid: null, proc_start: null },
		]);
		await crew(target.dir, ["cancel", runId]);
		expect(isAlive(pid)).toBe(true);
		await crew(target.dir, ["resume", runId]);
		expect(isAlive(pid)).toBe(true);
	} finally {
		bystander.kill("SIGKILL");
	}
});

test("crew forget asks first, refuses a live run, and deletes an ended run's records and files", async () => {
	const repo = pairRepo();
	const runId = await finishedRun(repo);
	const unasked = await crew(repo.dir, ["forget", runId]);
	expect(unasked.code).toBe(2);
	expect(unasked.stderr).toBe("crew: crew forget asks before it deletes: run it in a terminal, or pass --yes\n");
	expect(existsSync(join(repo.dir, ".crew", "runs", runId))).toBe(true);

	const forgotten = await crew(repo.dir, ["forget", runId, "--yes"]);
	expect(forgotten).toMatchObject({ code: 0, stdout: `forgot run ${runId}\n` });
	expect(existsSync(join(repo.dir, ".crew", "runs", runId))).toBe(false);
	expect((await crew(repo.dir, ["runs", "--json"])).stdout.trim()).toBe("[]");
	expect((await crew(repo.dir, ["status", runId])).stderr).toBe(`crew: no run '${runId}' in this repository\n`);

	const slow = new TestRepo().agent("worker", "--sleep 30000");
	slow.workflow("pair", [{ id: "a" }]);
	const started = await crew(slow.dir, ["run", "g", "--workflow", "pair", "--detach", "--json"]);
	const live = lastJson(started.stdout).runId;
	const refused = await crew(slow.dir, ["forget", live, "--yes"]);
	expect(refused.stderr).toBe(`crew: run ${live} is running; cancel it before forgetting it\n`);
	await crew(slow.dir, ["cancel", live]);
});

test("crew prune --keep N forgets the ended runs beyond the newest N, after asking", async () => {
	const repo = pairRepo();
	const ids: string[] = [];
	for (const goal of ["one", "two", "three"]) ids.push(await finishedRun(repo, goal));
	expect((await crew(repo.dir, ["prune", "--keep", "1"])).code).toBe(2);
	const pruned = await crew(repo.dir, ["prune", "--keep", "1", "--yes"]);
	expect(pruned).toMatchObject({ code: 0, stdout: "forgot 2 runs\n" });
	const left = JSON.parse((await crew(repo.dir, ["runs", "--json"])).stdout) as { id: string }[];
	expect(left.map((r) => r.id)).toEqual([ids[2]]);
	expect(readdirSync(join(repo.dir, ".crew", "runs"))).toEqual([ids[2]]);
	const both = await crew(repo.dir, ["prune", "--keep", "1", "--older-than", "1d"]);
	expect(both.code).not.toBe(0);
	expect(both.stderr).toContain("crew prune needs one of --older-than <age> or --keep <n>, not both");
});
