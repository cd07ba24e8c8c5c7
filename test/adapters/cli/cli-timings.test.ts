import { expect, test } from "vitest";
import { crew, TestRepo } from "../../helpers.js";

test("with CREW_TIMINGS set, a command prints where its time went, phase by phase, nested; without, nothing", async () => {
	const repo = new TestRepo().commandAgent("noop", "true");
	expect((await crew(repo.dir, ["trust"])).code).toBe(0);
	const timed = await crew(repo.dir, ["agent", "hi", "--agent", "noop", "--json"], 60_000, {
		...process.env,
		CREW_TIMINGS: "1",
	});
	expect(timed.code).toBe(0);
	expect(JSON.parse(timed.stdout.trim().split("\n").at(-1) ?? "{}")).toMatchObject({ status: "completed" });
	const report = timed.stderr.slice(timed.stderr.indexOf("crew: timings in ms (CREW_TIMINGS)"));
	const lines = report.trim().split("\n");
	expect(lines[1]).toBe("   start     took  phase");
	const phases = lines.slice(2).map((line) => {
		const [, start, took, indent, name] = /^ +([\d.]+) +([\d.]+) {2}( *)(.+)$/.exec(line) ?? [];
		return { start: Number(start), took: Number(took), depth: (indent ?? "").length / 2, name };
	});
	const named = (name: string) => phases.find((p) => p.name === name);
	for (const name of [
		"Node's own start-up",
		"load the command line's parser",
		"open the store",
		"plan the run",
		"record the run",
		"run it",
		"noop: its attempt, from the runtime's start to its end",
		"worker: spawn",
		"noop: record its attempt's end",
		"in all, until this report",
	]) {
		expect(named(name), name).toBeDefined();
	}
	// A phase inside another is indented below it and lies within it.
	const run = named("run it");
	const spawn = named("worker: spawn");
	expect(spawn?.depth).toBeGreaterThan(run?.depth ?? 0);
	expect(spawn?.start).toBeGreaterThanOrEqual(run?.start ?? 0);
	expect((spawn?.start ?? 0) + (spawn?.took ?? 0)).toBeLessThanOrEqual((run?.start ?? 0) + (run?.took ?? 0) + 0.1);
	expect(named("in all, until this report")?.took).toBeGreaterThanOrEqual((run?.start ?? 0) + (run?.took ?? 0));

	for (const off of ["", "0"]) {
		const quiet = await crew(repo.dir, ["agent", "hi", "--agent", "noop", "--json"], 60_000, {
			...process.env,
			CREW_TIMINGS: off,
		});
		expect(quiet.code).toBe(0);
		expect(quiet.stderr).not.toContain("timings");
	}

	// A read on the CLI's fast path reports its own phases too.
	const runId = JSON.parse(timed.stdout.trim().split("\n").at(-1) ?? "{}").runId;
	const read = await crew(repo.dir, ["status", runId, "--json"], 60_000, { ...process.env, CREW_TIMINGS: "1" });
	expect(read.code).toBe(0);
	expect(JSON.parse(read.stdout).run.id).toBe(runId);
	for (const name of ["load the read commands", "open the store", "read"]) {
		expect(read.stderr).toMatch(new RegExp(` {2}${name}\n`));
	}
});
