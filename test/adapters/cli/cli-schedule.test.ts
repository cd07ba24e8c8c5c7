// @slow: schedulers wait for real slots, seconds apart, and one is killed -9 midway
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, expect, test } from "vitest";
import {
	cancelLiveRuns,
	crew,
	crewProcess,
	exitOf,
	gitRepo,
	TestRepo as Repo,
	type TestRepo,
	waitFor,
} from "../../helpers.js";

const repos: TestRepo[] = [];
afterEach(async () => {
	for (const repo of repos.splice(0)) await cancelLiveRuns(repo.dir);
});

function newRepo(repo: TestRepo = gitRepo()): TestRepo {
	repos.push(repo);
	return repo;
}

interface ListedRun {
	id: string;
	status: string;
	schedule?: { name: string; slot: number; missed?: number; now?: true };
}

async function runsOf(dir: string): Promise<ListedRun[]> {
	return JSON.parse((await crew(dir, ["runs", "--json"])).stdout) as ListedRun[];
}

async function scheduleOf(dir: string, name: string) {
	const listed = JSON.parse((await crew(dir, ["schedule", "list", "--json"])).stdout);
	return listed.schedules.find((s: { name: string }) => s.name === name);
}

/** The repository's runs once none is queued or running. */
async function allEnded(dir: string): Promise<ListedRun[]> {
	const until = Date.now() + 30_000;
	for (;;) {
		const runs = await runsOf(dir);
		if (runs.every((r) => !["queued", "running"].includes(r.status))) return runs;
		if (Date.now() > until) throw new Error(`runs still going: ${JSON.stringify(runs)}`);
		await sleep(100);
	}
}

test("two schedulers at once, one killed -9 midway: every slot starts one run, on time, each recording its schedule and slot, and every run completes", async () => {
	const repo = newRepo();
	const added = await crew(repo.dir, [
		"schedule",
		"add",
		"nightly",
		"--every",
		"2s",
		"--workflow",
		"chain",
		"--runtime",
		"dry-run",
		"tick",
	]);
	expect(added.code, added.stderr).toBe(0);
	expect(added.stdout).toMatch(/^schedule nightly: every 2s; next run \d{4}-/);
	const first = crewProcess(repo.dir, ["scheduler"]);
	const second = crewProcess(repo.dir, ["scheduler"]);
	await sleep(5_000);
	first.kill("SIGKILL");
	await sleep(6_000);
	second.kill("SIGTERM");
	await exitOf(second);

	const runs = (await allEnded(repo.dir)).filter((r) => r.schedule?.name === "nightly");
	const slots = runs.map((r) => r.schedule?.slot as number).sort((a, b) => a - b);
	expect(runs.length).toBeGreaterThanOrEqual(4);
	expect(new Set(slots).size).toBe(slots.length);
	// Slot after slot, 2 s apart: none skipped, none started twice.
	for (const [i, slot] of slots.entries()) if (i > 0) expect(slot - (slots[i - 1] as number)).toBe(2_000);
	expect(runs.map((r) => r.status)).toEqual(runs.map(() => "completed"));
	const listed = await scheduleOf(repo.dir, "nightly");
	expect(listed.last.every((s: { outcome: string }) => s.outcome === "started")).toBe(true);
	const status = JSON.parse((await crew(repo.dir, ["status", runs[0]?.id as string, "--json"])).stdout);
	expect(status.run.schedule).toEqual({ name: "nightly", slot: runs[0]?.schedule?.slot });
}, 90_000);

test("a scheduler that was away for several slots starts one run for the latest, recording how many it missed", async () => {
	const repo = newRepo();
	await crew(repo.dir, [
		"schedule",
		"add",
		"often",
		"--every",
		"1s",
		"--workflow",
		"chain",
		"--runtime",
		"dry-run",
		"x",
	]);
	await sleep(5_300);
	const looked = await crew(repo.dir, ["scheduler", "--once"]);
	expect(looked.code, looked.stderr).toBe(0);
	expect(looked.stdout).toMatch(/^schedule often: slot \S+: run \S+ \(standing in for \d+ missed before it\)\n$/);
	const runs = (await allEnded(repo.dir)).filter((r) => r.schedule?.name === "often");
	expect(runs).toHaveLength(1);
	expect(runs[0]?.schedule?.missed).toBeGreaterThanOrEqual(4);
	expect((await scheduleOf(repo.dir, "often")).last[0]).toMatchObject({ outcome: "started", status: "completed" });
}, 60_000);

test("a slot that comes while the schedule's previous run still runs is skipped, and shown with the reason", async () => {
	const repo = newRepo(new Repo().agent("worker", "--hang"));
	repo.workflow("stuck", [{ id: "a" }]);
	await crew(repo.dir, ["schedule", "add", "busy", "--every", "1s", "--workflow", "stuck", "long work"]);
	await sleep(1_100);
	// On a busy machine more than one 1 s slot may have passed: the run then stands in for those missed.
	expect((await crew(repo.dir, ["scheduler", "--once"])).stdout).toMatch(
		/^schedule busy: slot \S+: run \S+( \(standing in for \d+ missed before it\))?\n$/,
	);
	const [running] = await runsOf(repo.dir);
	await waitFor("the agent to start", () => repo.starts("a").length === 1);
	await sleep(1_000);
	const skipped = await crew(repo.dir, ["scheduler", "--once"]);
	expect(skipped.stdout).toBe(
		`schedule busy: slot ${(await scheduleOf(repo.dir, "busy")).last[0].slot} skipped: run ${running?.id} of this schedule is still running\n`,
	);
	const listed = await crew(repo.dir, ["schedule", "list"]);
	expect(listed.stdout).toContain(`skipped (run ${running?.id} of this schedule is still running)`);
	expect((await runsOf(repo.dir)).length).toBe(1);
}, 60_000);

test("an --at schedule runs once, then has no next slot", async () => {
	const repo = newRepo();
	const at = new Date(Date.now() + 1_500).toISOString();
	await crew(repo.dir, ["schedule", "add", "once", "--at", at, "--workflow", "chain", "--runtime", "dry-run", "y"]);
	await sleep(1_700);
	expect((await crew(repo.dir, ["scheduler", "--once"])).stdout).toMatch(/^schedule once: slot \S+: run \S+\n$/);
	expect((await crew(repo.dir, ["scheduler", "--once"])).stdout).toBe("");
	await allEnded(repo.dir);
	const listed = await scheduleOf(repo.dir, "once");
	expect(listed).toMatchObject({ next: null, when: `at ${at}` });
	expect(listed.last).toHaveLength(1);
}, 60_000);

test("a schedule's run is checked when it is added: a bad workflow, a bad spec or an untrusted repository's commands are refused then", async () => {
	const repo = newRepo();
	const ghost = await crew(repo.dir, ["schedule", "add", "bad", "--every", "1h", "--workflow", "ghost", "x"]);
	expect(ghost.code).toBe(2);
	expect(ghost.stderr).toContain("ghost");
	const both = await crew(repo.dir, ["schedule", "add", "bad", "--every", "1h", "--cron", "* * * * *", "x"]);
	expect(both.code).toBe(2);
	const cron = await crew(repo.dir, ["schedule", "add", "bad", "--cron", "61 * * * *", "x"]);
	expect(cron.code).toBe(2);
	expect(cron.stderr).toContain("61 * * * *");
	const untrusted = newRepo(new Repo({ trusted: false }).agent("worker"));
	untrusted.workflow("one", [{ id: "a" }]);
	const refused = await crew(untrusted.dir, ["schedule", "add", "cmd", "--every", "1h", "--workflow", "one", "x"]);
	expect(refused.code).not.toBe(0);
	expect(refused.stderr).toContain("is not trusted");
	expect(JSON.parse((await crew(untrusted.dir, ["schedule", "list", "--json"])).stdout).schedules).toEqual([]);
});

test("schedule run starts one run now outside the slots; pause, resume and rm do what they say", async () => {
	const repo = newRepo();
	await crew(repo.dir, [
		"schedule",
		"add",
		"weekly",
		"--cron",
		"0 9 * * 1",
		"--tz",
		"Europe/Paris",
		"--workflow",
		"chain",
		"--runtime",
		"dry-run",
		"z",
	]);
	const now = await crew(repo.dir, ["schedule", "run", "weekly", "--json"]);
	expect(now.code, now.stderr).toBe(0);
	const { runId } = JSON.parse(now.stdout);
	const [run] = (await allEnded(repo.dir)).filter((r) => r.id === runId);
	expect(run?.schedule).toMatchObject({ name: "weekly", now: true });
	expect((await crew(repo.dir, ["schedule", "pause", "weekly"])).code).toBe(0);
	expect((await scheduleOf(repo.dir, "weekly")).paused).toBe(true);
	expect((await crew(repo.dir, ["schedule", "resume", "weekly"])).code).toBe(0);
	expect((await scheduleOf(repo.dir, "weekly")).paused).toBe(false);
	expect((await crew(repo.dir, ["schedule", "rm", "weekly"])).code).toBe(0);
	const gone = await crew(repo.dir, ["schedule", "run", "weekly"]);
	expect(gone.stderr).toContain("no schedule 'weekly'");
	expect((await runsOf(repo.dir)).map((r) => r.id)).toContain(runId);
});

test("a slot whose run the repository no longer trusts is skipped, saying why", async () => {
	const repo = newRepo(new Repo().agent("worker"));
	repo.workflow("one", [{ id: "a" }]);
	expect((await crew(repo.dir, ["schedule", "add", "cmd", "--every", "1s", "--workflow", "one", "x"])).code).toBe(0);
	expect((await crew(repo.dir, ["trust", "--revoke"])).code).toBe(0);
	await sleep(1_100);
	const looked = await crew(repo.dir, ["scheduler", "--once"]);
	expect(looked.stdout).toMatch(
		/^schedule cmd: slot \S+ skipped: \S+ is not trusted, so crew runs none of the commands its own files define/,
	);
	expect((await scheduleOf(repo.dir, "cmd")).last[0]).toMatchObject({ outcome: "skipped", runId: null });
	expect(await runsOf(repo.dir)).toEqual([]);
});
