import { expect, test } from "vitest";
import { compare, failed, slowest } from "./compare.mjs";

const baseline = {
	commit: "abc1234",
	date: "2026-12-06",
	tiers: {
		suite: { wall: 100, cpu: 200, files: { "test/a.test.ts": 10, "test/b.test.ts": 20, "test/c.test.ts": 1 } },
	},
};
const noReason = () => undefined;

test("a tier within 20% of the committed figures, its files steady, is not warned of", () => {
	const tier = {
		name: "suite",
		wall: 119,
		cpu: 239,
		files: { "test/a.test.ts": 11, "test/b.test.ts": 22, "test/c.test.ts": 1 },
	};
	expect(compare([tier], baseline, noReason)).toEqual([]);
});

test("a tier 20% slower is warned of loudly, naming the files that grew most and the new slow ones", () => {
	const tier = {
		name: "suite",
		wall: 130,
		cpu: 210,
		files: { "test/a.test.ts": 25, "test/b.test.ts": 21, "test/c.test.ts": 3, "test/d.test.ts": 12 },
	};
	expect(compare([tier], baseline, noReason)).toEqual([
		"!!! tests: suite is SLOWER than the last green run (abc1234, 2026-12-06): wall 130 s against 100 s (+30%), CPU 210 s against 200 s (+5%)",
		"!!!     test/a.test.ts: 25 s against 10 s (+15 s)",
		"!!!     test/d.test.ts: 12 s, new",
	]);
});

test("a slower tier says how busy the machine was, then and in the last green run", () => {
	const busyBaseline = { ...baseline, tiers: { suite: { ...baseline.tiers.suite, busy: 60 } } };
	const tier = { name: "suite", wall: 150, cpu: 200, busy: 97, files: baseline.tiers.suite.files };
	expect(compare([tier], busyBaseline, noReason)).toEqual([
		"!!! tests: suite is SLOWER than the last green run (abc1234, 2026-12-06): wall 150 s against 100 s (+50%), CPU 200 s against 200 s (+0%), the machine's CPUs 97% busy against 60%",
		"!!!     no file grew much on its own: the whole tier is slower (a busy machine?)",
	]);
});

test("one file that doubled by 10 s is named though its tier stayed within 20%, and in a partial run", () => {
	const tier = { name: "suite", wall: 105, cpu: 200, files: { "test/c.test.ts": 15.2 } };
	const jump = "!!! tests: test/c.test.ts took 15.2 s against 1 s in the last green run (abc1234)";
	expect(compare([tier], baseline, noReason)).toEqual([jump]);
	const partial = { name: "suite", wall: 16, cpu: 2, files: { "test/c.test.ts": 15.2 } };
	expect(compare([partial], baseline, noReason, true)).toEqual([jump]);
});

test("a file over 30 s names its reason beside it, or is warned of; no baseline is said once", () => {
	const tier = { name: "suite", wall: 90, cpu: 100, files: { "test/slow.test.ts": 45, "test/fine.test.ts": 2 } };
	const reasonOf = (file: string) => (file === "test/slow.test.ts" ? "holds a lock for 10 s" : undefined);
	expect(slowest([tier], reasonOf)).toBe(
		[
			"tests: the slowest files of suite (90 s, CPU 100 s):",
			"      45 s  test/slow.test.ts  (holds a lock for 10 s)",
			"       2 s  test/fine.test.ts",
		].join("\n"),
	);
	expect(compare([tier], undefined, reasonOf)).toEqual([
		"tests: no figures committed for this group yet (test/loop/figures.json)",
	]);
	expect(compare([tier], undefined, noReason)).toContain(
		"!!! tests: test/slow.test.ts took 45 s and names no reason: add `// @slow: <why>` to it",
	);
});

test("what failed is said last: each failed test with its error, or the end of a tier's output, or where to look", () => {
	const tiers = [
		{ name: "suite", code: 0 },
		{
			name: "attacks",
			code: 1,
			failures: [
				{
					file: "test/attacks/x.test.ts",
					test: "a planted hook > never runs",
					error: "AssertionError: expected 1 to be 0",
					at: "test/attacks/x.test.ts:42",
				},
				{ file: "test/attacks/y.test.ts", test: "(the file)", error: "Error: no such module" },
			],
		},
		{ name: "bench smoke", code: 2, tail: ["bench: agent start", "Error: spawn ENOENT"] },
		{ name: "node22", code: 1, failures: [] },
	];
	expect(failed(tiers)).toEqual([
		"!!! tests: attacks FAILED (exit 1): 2 failures",
		"!!!     test/attacks/x.test.ts > a planted hook > never runs: AssertionError: expected 1 to be 0 (at test/attacks/x.test.ts:42)",
		"!!!     test/attacks/y.test.ts > (the file): Error: no such module",
		"!!! tests: bench smoke FAILED (exit 2)",
		"!!!     its output ended:",
		"    | bench: agent start",
		"    | Error: spawn ENOENT",
		"!!! tests: node22 FAILED (exit 1)",
		"!!!     it named no failed test: its output above says why",
	]);
	expect(failed([{ name: "suite", code: 0 }])).toEqual([]);
});
