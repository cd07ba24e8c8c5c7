// @slow: eleven workflow scripts run end to end by crew processes, a kill -9 and resume and a cancel among them
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, expect, test } from "vitest";
import {
	cancelLiveRuns,
	crew,
	crewProcess,
	exitOf,
	isAlive,
	maxOverlap,
	read,
	TestRepo,
	waitFor,
} from "../../helpers.js";

/** One review per package at most two at a time, then test, fix and test again, at most `maxFixes` times. */
const FIX_LOOP = `/** Reviews each package, then fixes until the tests pass. */
import { z, type WorkflowContext } from "crew/script";

export const args = z.object({ packages: z.array(z.string()).min(1), maxFixes: z.number().int().default(3) });

export default async (ctx: WorkflowContext) => {
	const { packages, maxFixes } = ctx.args<z.infer<typeof args>>();
	ctx.phase("review");
	const reviews = await ctx.fanOut(packages, (pkg) => ctx.agent({ role: "inspector", prompt: \`Review package \${pkg}\` }), { concurrency: 2 });
	ctx.phase("fix");
	const passed = (answer: unknown) => /^PASS$/m.test(String(answer));
	let verdict = String(await ctx.agent({ role: "tester", prompt: "Run the tests" }));
	let fixes = 0;
	while (!passed(verdict) && fixes < maxFixes) {
		fixes++;
		await ctx.agent({ role: "fixer", prompt: \`Fix attempt \${fixes}: \${verdict}\` });
		verdict = String(await ctx.agent({ role: "tester", prompt: \`Run the tests after fix \${fixes}\` }));
	}
	ctx.log("passed after", fixes, "fixes");
	return { reviews, fixes, passed: passed(verdict) };
};
`;

const FIX_LOOP_TASKS = [
	"inspector-1.0.1",
	"inspector-1.1.1",
	"inspector-1.2.1",
	"tester-2",
	"fixer-3",
	"tester-4",
	"fixer-5",
	"tester-6",
];

const repos: TestRepo[] = [];
afterEach(async () => {
	for (const repo of repos.splice(0)) await cancelLiveRuns(repo.dir);
});

/** A repository with the fix loop; with `gates`, every agent waits for its task's gate file. */
function fixLoopRepo(gates?: string): TestRepo {
	const repo = new TestRepo();
	repos.push(repo);
	const gate = gates ? `--gate ${gates}` : "";
	repo.agent("inspector", `--answer ${gate}`);
	repo.agent("fixer", `--append ${join(repo.dir, "marks")} ${gate}`);
	repo.agent("tester", `--pass-when ${join(repo.dir, "marks")}:2 ${gate}`);
	repo.writeFile(".crew/workflows/fix-loop.workflow.ts", FIX_LOOP);
	return repo;
}

const ARGS = ["--args", '{"packages": ["a", "b", "c"]}'];

function taskStatus(dir: string, runId: string): Map<string, string> {
	return new Map(read(dir, (r) => r.status(runId).tasks.map((t) => [t.id, t.status])));
}

async function scriptResult(dir: string, runId: string): Promise<unknown> {
	const shown = await crew(dir, ["result", runId, "--json"]);
	expect(shown.code, shown.stderr).toBe(0);
	return (JSON.parse(shown.stdout) as { result: unknown }).result;
}

test("a script with a fan-out over data and a bounded fix loop runs to completion with command agents", async () => {
	const repo = fixLoopRepo();
	const run = await crew(repo.dir, ["run", "check the packages", "--workflow", "fix-loop", ...ARGS, "--json"]);
	expect(run.code, run.stderr).toBe(0);
	const { runId } = JSON.parse(run.stdout.trim().split("\n").at(-1) as string) as { runId: string };

	expect(await scriptResult(repo.dir, runId)).toEqual({
		reviews: ["answer: Review package a\n", "answer: Review package b\n", "answer: Review package c\n"],
		fixes: 2,
		passed: true,
	});
	const { tasks } = read(repo.dir, (r) => r.view(runId));
	expect(tasks.map((t) => t.id)).toEqual(FIX_LOOP_TASKS);
	expect(tasks.every((t) => t.status === "completed")).toBe(true);
	expect(tasks.map((t) => t.phase)).toEqual(["review", "review", "review", "fix", "fix", "fix", "fix", "fix"]);
	// Views draw each call after what the script had awaited before making it.
	const after = new Map(tasks.map((t) => [t.id, t.dependsOn]));
	expect(after.get("inspector-1.0.1")).toEqual([]);
	expect(after.get("tester-2")).toEqual(["inspector-1.0.1", "inspector-1.1.1", "inspector-1.2.1"]);
	expect(after.get("fixer-3")).toEqual(["tester-2"]);
	expect(after.get("tester-6")).toEqual(["fixer-5"]);
	// Each call ran its agent once, and the fan-out ran at most two reviews at a time.
	for (const id of FIX_LOOP_TASKS) expect(repo.ends(id)).toHaveLength(1);
	const reviews = repo.entries().filter((e) => e.task.startsWith("inspector"));
	const third = reviews.find((e) => e.event === "start" && e.task === "inspector-1.2.1");
	const ended = reviews.filter((e) => e.event === "end" && e.time <= (third?.time ?? 0));
	expect(ended.length).toBeGreaterThanOrEqual(1);
	const logged = read(repo.dir, (r) => r.events(runId, 0, 1000)).filter((e) => e.type === "script.log");
	expect(logged.map((e) => e.data.message)).toEqual(["passed after 2 fixes"]);
});

test("kill -9 of the runner mid-script, then resume: no completed call runs again and the result equals an uninterrupted run's", async () => {
	const gates = join(new TestRepo().dir, "gates");
	mkdirSync(gates);
	const open = (...ids: string[]) => {
		for (const id of ids) writeFileSync(join(gates, id), "");
	};
	// The same run with every gate open from the start: what an uninterrupted run answers.
	const openGates = join(new TestRepo().dir, "open");
	mkdirSync(openGates);
	for (const id of FIX_LOOP_TASKS) writeFileSync(join(openGates, id), "");
	const baseline = fixLoopRepo(openGates);
	const plain = await crew(baseline.dir, ["run", "check the packages", "--workflow", "fix-loop", ...ARGS, "--json"]);
	expect(plain.code, plain.stderr).toBe(0);
	const baselineRun = JSON.parse(plain.stdout.trim().split("\n").at(-1) as string) as { runId: string };
	const uninterrupted = await scriptResult(baseline.dir, baselineRun.runId);

	const repo = fixLoopRepo(gates);
	let runner = crewProcess(repo.dir, ["run", "check the packages", "--workflow", "fix-loop", ...ARGS]);
	const runners = [runner];
	const resume = (runId: string) => {
		runner = crewProcess(repo.dir, ["resume", runId]);
		runners.push(runner);
	};
	// Gates open only once the resumed runner has ended the killed runner's workers and started its own.
	const restarted = (runId: string, ...ids: string[]) =>
		waitFor(`${ids.join(", ")} started again`, () => {
			const tasks = read(repo.dir, (r) => r.status(runId).tasks);
			return ids.every((id) => tasks.some((t) => t.id === id && t.status === "running" && t.attempts === 2));
		});
	try {
		const runId = await waitFor("the run recorded", () => read(repo.dir, (r) => r.repo.runs()[0]?.id));
		// First kill: one review done, two waiting at their gates.
		open("inspector-1.0.1");
		await waitFor("a review done, two running", () => {
			const s = taskStatus(repo.dir, runId);
			return s.get("inspector-1.0.1") === "completed" && s.get("inspector-1.2.1") === "running";
		});
		runner.kill("SIGKILL");
		await exitOf(runner);
		resume(runId);
		await restarted(runId, "inspector-1.1.1", "inspector-1.2.1");
		open("inspector-1.1.1", "inspector-1.2.1", "tester-2");
		// Second kill: in the fix loop, the first fix waiting at its gate.
		// Its agent's own start, not only its record: a kill between the two would leave no start.
		await waitFor("the first fix started", () => repo.starts("fixer-3").length === 1);
		runner.kill("SIGKILL");
		await exitOf(runner);
		resume(runId);
		await restarted(runId, "fixer-3");
		open("fixer-3", "tester-4", "fixer-5", "tester-6");
		await exitOf(runner);
		expect(runner.exitCode).toBe(0);

		expect(await scriptResult(repo.dir, runId)).toEqual(uninterrupted);
		const statuses = taskStatus(repo.dir, runId);
		expect([...statuses.keys()]).toEqual(FIX_LOOP_TASKS);
		expect([...statuses.values()].every((s) => s === "completed")).toBe(true);
		// A call whose agent had finished before a kill was answered from the store, never run again.
		for (const id of FIX_LOOP_TASKS) expect(repo.ends(id), id).toHaveLength(1);
		expect(repo.starts("inspector-1.0.1")).toHaveLength(1);
		expect(repo.starts("tester-2")).toHaveLength(1);
		expect(repo.starts("fixer-3")).toHaveLength(2);
		for (const start of repo.starts()) expect(isAlive(start.pid)).toBe(false);
	} finally {
		for (const r of runners) r.kill("SIGKILL");
	}
});

/**
 * Runs `script` until its second call is running, cancels the run, opens the second call's gate
 * and resumes it: what a replay of the script meets.
 */
async function cancelThenResume(
	file: string,
	script: string,
): Promise<{ repo: TestRepo; runId: string; code: number }> {
	const repo = new TestRepo();
	repos.push(repo);
	const gates = join(repo.dir, "gates");
	mkdirSync(gates);
	repo.agent("stamper", `--gate ${gates}`);
	repo.writeFile(`.crew/workflows/${file}`, script);
	writeFileSync(join(gates, "stamper-1"), "");
	const runner = crewProcess(repo.dir, ["run", "g", "--workflow", file.split(".")[0] as string]);
	const runId = await waitFor("the run recorded", () => read(repo.dir, (r) => r.repo.runs()[0]?.id));
	await waitFor("the second call running", () => taskStatus(repo.dir, runId).get("stamper-2") === "running");
	expect((await crew(repo.dir, ["cancel", runId])).code).toBe(0);
	await exitOf(runner);
	writeFileSync(join(gates, "stamper-2"), "");
	return { repo, runId, code: (await crew(repo.dir, ["resume", runId])).code };
}

test("a script that calls differently on replay is stopped, naming the first divergent call", async () => {
	const { repo, runId, code } = await cancelThenResume(
		"clock.dwf.ts",
		`export default async (ctx: any) => {
	await ctx.agent({ role: "stamper", prompt: \`Stamp \${Date.now()}\` });
	await ctx.agent({ role: "stamper", prompt: "Then this" });
};
`,
	);
	expect(code).toBe(1);
	const run = read(repo.dir, (r) => r.status(runId).run);
	expect(run.status).toBe("failed");
	expect(run.error).toMatch(
		/workflow script clock failed: the script diverged from its recorded run at call 1: recorded stamper-1 \(stamper "Stamp \d+"\), now stamper-1 \(stamper "Stamp \d+"\)\. .*ctx\.now\(\)/,
	);
	// The recorded call was not run again, and the call after it never started again either.
	expect(repo.starts("stamper-1")).toHaveLength(1);
	expect(repo.starts("stamper-2")).toHaveLength(1);
});

test("time and randomness read through ctx replay as recorded, so the same script resumes", async () => {
	const { repo, runId, code } = await cancelThenResume(
		"steady.workflow.ts",
		`export default async (ctx: any) => {
	const first = await ctx.agent({ role: "stamper", prompt: \`Stamp \${ctx.now()} \${ctx.random()}\` });
	await ctx.agent({ role: "stamper", prompt: "Then this" });
	return { now: ctx.now() > 0, first };
};
`,
	);
	expect(code).toBe(0);
	expect(read(repo.dir, (r) => r.status(runId).run.status)).toBe("completed");
	expect(repo.starts("stamper-1")).toHaveLength(1);
	expect(repo.ends("stamper-2")).toHaveLength(1);
	const values = read(repo.dir, (r) => r.events(runId, 0, 1000)).filter((e) => e.type === "script.value");
	expect(values.map((e) => [e.data.key, e.data.kind])).toEqual([
		["v1", "now"],
		["v2", "random"],
		["v3", "now"],
	]);
});

test("typed args are checked before the run exists, each bad value named", async () => {
	const repo = fixLoopRepo();
	const cases: [string, RegExp][] = [
		['{"packages": []}', /invalid --args for workflow script .*fix-loop\.workflow\.ts: packages: Too small/],
		['{"packages": ["a"], "maxFixes": "two"}', /maxFixes: Invalid input: expected number, received string/],
		["{}", /packages: Invalid input: expected array, received undefined/],
	];
	for (const [args, message] of cases) {
		const result = await crew(repo.dir, ["run", "g", "--workflow", "fix-loop", "--args", args]);
		expect(result.code, args).toBe(2);
		expect(result.stderr).toMatch(message);
	}
	const notJson = await crew(repo.dir, ["run", "g", "--workflow", "fix-loop", "--args", "{packages"]);
	expect(notJson.code).toBe(2);
	expect(notJson.stderr).toMatch(/invalid --args "\{packages": expected JSON/);
	expect(read(repo.dir, (r) => r.repo.runs())).toEqual([]);
	expect(repo.starts()).toEqual([]);
});

test("cancel mid-fan-out ends every worker and the run reads cancelled", async () => {
	const repo = new TestRepo();
	repos.push(repo);
	repo.agent("inspector", `--gate ${join(repo.dir, "never")} --grandchild`);
	repo.writeFile(
		".crew/workflows/wide.workflow.ts",
		`import type { WorkflowContext } from "crew/script";
export default async (ctx: WorkflowContext) =>
	ctx.fanOut(["a", "b", "c", "d", "e", "f"], (p) => ctx.agent({ role: "inspector", prompt: \`Review \${p}\` }), { concurrency: 4 });
`,
	);
	const runner = crewProcess(repo.dir, ["run", "g", "--workflow", "wide", "--concurrency", "8"]);
	const runId = await waitFor("the run recorded", () => read(repo.dir, (r) => r.repo.runs()[0]?.id));
	await waitFor("four reviews running", () => repo.starts().length === 4);
	const cancelled = await crew(repo.dir, ["cancel", runId]);
	expect(cancelled.code, cancelled.stderr).toBe(0);
	await exitOf(runner);

	const { run, tasks } = read(repo.dir, (r) => r.status(runId));
	expect(run.status).toBe("cancelled");
	expect(tasks.map((t) => t.status)).toEqual(["cancelled", "cancelled", "cancelled", "cancelled"]);
	for (const start of repo.starts()) {
		expect(isAlive(start.pid)).toBe(false);
		expect(isAlive(start.grandchild as number)).toBe(false);
	}
});

test("a project's script is not even loaded until the project is trusted", async () => {
	const repo = new TestRepo({ trusted: false });
	repos.push(repo);
	repo.writeFile(
		".crew/workflows/eager.workflow.ts",
		`import { writeFileSync } from "node:fs";
writeFileSync(${JSON.stringify(join(repo.dir, "loaded"))}, "");
export default async () => "ran";
`,
	);
	const refused = await crew(repo.dir, ["run", "g", "--workflow", "eager"]);
	expect(refused.code).not.toBe(0);
	expect(refused.stderr).toMatch(
		/is not trusted, so crew runs none of its own code; workflow script .*eager\.workflow\.ts/,
	);
	expect(repo.exists("loaded")).toBe(false);
	expect(read(repo.dir, (r) => r.repo.runs())).toEqual([]);
});

test("a call with a schema answers the parsed value; an answer that does not match is retried with the problems", async () => {
	const repo = new TestRepo();
	repos.push(repo);
	// The first attempt answers a string where a number belongs; the retry answers right.
	const answer = `if [ "$CREW_ATTEMPT" = 1 ]; then echo '{"count": "three"}'; else printf 'Counted.\\n\\n\`\`\`json\\n{"count": 3}\\n\`\`\`\\n'; fi`;
	repo.writeFile(".crew/agents/counter.md", `---\nname: counter\nruntime: command\ncommand: ${answer}\n---\nCount.\n`);
	repo.writeFile(
		".crew/workflows/count.workflow.ts",
		`import { z, type WorkflowContext } from "crew/script";
export default async (ctx: WorkflowContext) => {
	const { count } = await ctx.agent({ role: "counter", prompt: "Count the files", schema: z.object({ count: z.number() }) });
	const raw = await ctx.agent({ role: "counter", prompt: "Count again", schema: { type: "object", properties: { count: { type: "number" } }, required: ["count"] } });
	return { count, again: raw };
};
`,
	);
	const run = await crew(repo.dir, ["run", "g", "--workflow", "count", "--json"]);
	expect(run.code, run.stderr).toBe(0);
	const { runId } = JSON.parse(run.stdout.trim().split("\n").at(-1) as string) as { runId: string };
	expect(await scriptResult(repo.dir, runId)).toEqual({ count: 3, again: { count: 3 } });
	const attempts = read(repo.dir, (r) => r.attempts(runId));
	expect(attempts.map((a) => [a.taskId, a.status])).toEqual([
		["counter-1", "failed"],
		["counter-1", "completed"],
		["counter-2", "failed"],
		["counter-2", "completed"],
	]);
	expect(attempts[0]?.error).toMatch(
		/the answer does not match its schema: count: Invalid input: expected number, received string/,
	);
	// The agent was shown the schema, and its retry what was wrong with its answer.
	const prompt = read(repo.dir, (r) => r.files.read(runId, "tasks/counter-1/prompt.md"));
	expect(prompt).toMatch(/matching this JSON Schema:\n\n```json\n\{\n {2}"\$schema"/);
	expect(prompt).toContain("count: Invalid input: expected number, received string");
});

test("a call that failed stays failed on resume, as the script saw it; crew retry runs it again and the script goes on", async () => {
	const repo = new TestRepo();
	repos.push(repo);
	const ok = join(repo.dir, "ok");
	repo.agent("prep", "--answer");
	repo.writeFile(
		".crew/agents/flaky.md",
		`---\nname: flaky\nruntime: command\ncommand: test -f ${ok} && echo fine || { echo broken >&2; exit 1; }\n---\nWork.\n`,
	);
	repo.writeFile(
		".crew/workflows/two.workflow.ts",
		`import type { WorkflowContext } from "crew/script";
export default async (ctx: WorkflowContext) => {
	const first = await ctx.agent({ role: "prep", prompt: "Prepare" });
	const second = await ctx.agent({ role: "flaky", prompt: "Then work", retries: 0 });
	return [first, second];
};
`,
	);
	const run = await crew(repo.dir, ["run", "g", "--workflow", "two", "--json"]);
	expect(run.code).toBe(1);
	const { runId } = JSON.parse(run.stdout.trim().split("\n").at(-1) as string) as { runId: string };
	const failed = read(repo.dir, (r) => r.status(runId).run);
	expect(failed.error).toMatch(
		new RegExp(
			`workflow script two failed: task flaky-2 failed: .*broken.* \\(crew retry ${runId} flaky-2 runs it again\\)`,
		),
	);

	// Resume replays the failure without running anything again.
	expect((await crew(repo.dir, ["resume", runId])).code).toBe(1);
	expect(repo.starts("prep-1")).toHaveLength(1);
	expect(read(repo.dir, (r) => r.attempts(runId)).filter((a) => a.taskId === "flaky-2")).toHaveLength(1);

	writeFileSync(ok, "");
	const retried = await crew(repo.dir, ["retry", runId, "flaky-2"]);
	expect(retried.code, retried.stderr).toBe(0);
	expect(await scriptResult(repo.dir, runId)).toEqual(["answer: Prepare\n", "fine\n"]);
	expect(repo.starts("prep-1")).toHaveLength(1);
});

test("ctx.parallel runs its branches at once, each call with a place of its own; ctx.budget tells what is left", async () => {
	const repo = new TestRepo();
	repos.push(repo);
	repo.agent("prep", "--answer --sleep 400");
	repo.writeFile(
		".crew/workflows/pair.workflow.ts",
		`import type { WorkflowContext } from "crew/script";
export default async (ctx: WorkflowContext) => {
	const both = await ctx.parallel([
		() => ctx.agent({ role: "prep", prompt: "Left" }),
		() => ctx.agent({ role: "prep", name: "right", prompt: "Right" }),
	]);
	const last = await ctx.agent({ role: "prep", prompt: "Join" });
	return { both, last, budget: ctx.budget };
};
`,
	);
	const run = await crew(repo.dir, ["run", "g", "--workflow", "pair", "--budget-tokens", "5000", "--json"]);
	expect(run.code, run.stderr).toBe(0);
	const { runId } = JSON.parse(run.stdout.trim().split("\n").at(-1) as string) as { runId: string };
	expect(await scriptResult(repo.dir, runId)).toEqual({
		both: ["answer: Left\n", "answer: Right\n"],
		last: "answer: Join\n",
		budget: { spentTokens: 0, spentUsd: 0, tokensLeft: 5000 },
	});
	const { tasks } = read(repo.dir, (r) => r.view(runId));
	expect(tasks.map((t) => [t.id, t.dependsOn])).toEqual([
		["prep-1.0.1", []],
		["right-1.1.1", []],
		["prep-2", ["prep-1.0.1", "right-1.1.1"]],
	]);
	expect(maxOverlap(repo.entries())).toBe(2);
});

test("a broken script or a bad call is refused with one line naming it, and nothing runs", async () => {
	const repo = new TestRepo();
	repos.push(repo);
	repo.agent("prep", "--answer");
	const scripts: [string, string, RegExp][] = [
		[
			"syntax",
			"export default async (ctx) => { ctx.agent( };\n",
			/cannot load workflow script .*syntax\.workflow\.ts: /,
		],
		[
			"nodefault",
			"export const x = 1;\n",
			/invalid workflow .*nodefault\.workflow\.ts: a workflow script must have a default export/,
		],
		[
			"norole",
			'export default async (ctx: any) => ctx.agent({ role: "ghost", prompt: "Boo" });\n',
			/workflow script norole failed: ctx\.agent call 1: no role 'ghost' \(without a team, roles are agent names\); roles: .*prep/,
		],
		[
			"badcall",
			'export default async (ctx: any) => ctx.agent({ role: "prep", prompt: "", retries: -1 });\n',
			/workflow script badcall failed: ctx\.agent call 1: prompt: Too small.*; retries: Too small/,
		],
		[
			"badname",
			'export default async (ctx: any) => ctx.agent({ role: "prep", prompt: "Go", name: "éclaireur" });\n',
			/workflow script badname failed: ctx\.agent call 1: name: expected 1-41 ASCII letters \(A-Z, a-z\), digits, '-' or '_', not starting with '-'/,
		],
	];
	for (const [name, text, message] of scripts) {
		repo.writeFile(`.crew/workflows/${name}.workflow.ts`, text);
		const result = await crew(repo.dir, ["run", "g", "--workflow", name]);
		// A script that does not load is bad input; one that loads and fails as it plans, a failure.
		expect(result.code, name).toBe(name === "syntax" || name === "nodefault" ? 2 : 1);
		expect(`${result.stdout}${result.stderr}`, name).toMatch(message);
		// Refused before the run exists: one line on stderr, nothing on stdout.
		if (result.stdout === "") expect(result.stderr.trim().split("\n"), name).toHaveLength(1);
	}
	expect(read(repo.dir, (r) => r.repo.runs().map((run) => run.workflow))).toEqual(["badname", "badcall", "norole"]);
	expect(repo.starts()).toEqual([]);
});
