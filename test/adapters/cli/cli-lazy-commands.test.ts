// @module-tag agent-cli
// @slow: every command runs once as a process to show what it loads, crew demo and crew doctor among them
import { beforeAll, expect, test } from "vitest";
import { type CliResult, crew, crewProcess, exitOf, gitRepo, type TestRepo } from "../../helpers.js";

/**
 * Each command loads its modules only when it runs. Every command `crew --help` lists runs here
 * once, far enough to have loaded what it needs and done its work or refused its input in its
 * own words, so a module a command fails to load shows up as that command's failure.
 */
let repo: TestRepo;
let runId: string;

beforeAll(async () => {
	repo = gitRepo().agent("worker");
	repo.workflow("one", [{ id: "a" }]);
	const run = await crew(repo.dir, ["run", "goal", "--workflow", "one", "--json"]);
	runId = (JSON.parse(run.stdout.trim().split("\n").at(-1) ?? "{}") as { runId: string }).runId;
	expect(runId, run.stderr).toMatch(/\S/);
});

/** `crew mcp` with its standard input closed: it serves nobody and ends. */
async function mcpWithoutClient(dir: string): Promise<CliResult> {
	const child = crewProcess(dir, ["mcp"]);
	let stderr = "";
	child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
		stderr += chunk;
	});
	await exitOf(child);
	return { code: child.exitCode ?? 1, stdout: "", stderr };
}

interface Case {
	readonly args: (runId: string) => string[];
	readonly code: number;
	/** What shows the command's own module ran, on stdout or stderr. */
	readonly says: RegExp;
}

const CASES: Record<string, Case> = {
	init: { args: () => ["init"], code: 0, says: /already set up/ },
	run: {
		args: () => ["run", "again", "--workflow", "one", "--runtime", "dry-run", "--json"],
		code: 0,
		says: /"completed"/,
	},
	agent: { args: () => ["agent", "hi", "--runtime", "dry-run"], code: 0, says: /dry run: agent 'executor'/ },
	resume: { args: (id) => ["resume", id], code: 0, says: /is completed; nothing to resume/ },
	retry: {
		args: (id) => ["retry", id, "a"],
		code: 1,
		says: /only failed, cancelled, skipped or needs_attention tasks can be retried/,
	},
	worktrees: { args: (id) => ["worktrees", id], code: 0, says: /no task worktrees/ },
	cleanup: { args: (id) => ["cleanup", id], code: 0, says: /worktree|nothing/ },
	prune: { args: () => ["prune", "--keep", "100", "-y"], code: 0, says: /nothing to prune/ },
	export: {
		args: (id) => ["export", id, "-o", "bundle.json"],
		code: 0,
		says: /exported run .* \(1 tasks, \d+ files\)/,
	},
	import: { args: () => ["import", "missing.json"], code: 2, says: /cannot import .*missing\.json/ },
	forget: { args: () => ["forget", "nope", "-y"], code: 2, says: /no run 'nope' in this repository/ },
	merge: { args: (id) => ["merge", id], code: 2, says: /has no branch crew\// },
	cancel: { args: (id) => ["cancel", id], code: 0, says: /had already ended: completed/ },
	approve: { args: (id) => ["approve", id], code: 1, says: /nothing to approve/ },
	reject: { args: (id) => ["reject", id, "--reason", "no"], code: 1, says: /nothing waiting for approval/ },
	steer: { args: (id) => ["steer", id, "a", "hi"], code: 1, says: /task a is completed: only a running task/ },
	answer: { args: (id) => ["answer", id, "a", "yes"], code: 1, says: /task a of run \S+ has no question waiting/ },
	status: { args: (id) => ["status", id], code: 0, says: /run \S+ {2}completed/ },
	watch: { args: (id) => ["watch", id], code: 0, says: /run \S+ completed/ },
	serve: {
		args: () => ["serve", "--host", "203.0.113.1", "--port", "0"],
		code: 2,
		says: /cannot listen on 203\.0\.113\.1/,
	},
	worker: { args: () => ["worker"], code: 2, says: /crew worker needs --queue/ },
	mcp: { args: () => ["mcp"], code: 0, says: /^$/ },
	reconcile: { args: () => ["reconcile"], code: 0, says: /agree/ },
	runs: { args: () => ["runs"], code: 0, says: /completed/ },
	events: { args: (id) => ["events", id], code: 0, says: /run\.completed/ },
	inbox: { args: () => ["inbox"], code: 0, says: /nothing waits for you/ },
	fork: { args: (id) => ["fork", id, "--dry"], code: 0, says: /reuse a \(from \S+\)/ },
	replay: { args: (id) => ["replay", id, "--json"], code: 0, says: /"completed"/ },
	diff: { args: (id) => ["diff", id, id], code: 0, says: /\n {2}a +same\n/ },
	knowledge: { args: () => ["knowledge"], code: 0, says: /no project knowledge yet/ },
	logs: { args: (id) => ["logs", id, "a"], code: 0, says: /attempt 1/ },
	result: { args: (id) => ["result", id, "a"], code: 0, says: /done a/ },
	plan: { args: () => ["plan", "goal", "--workflow", "one"], code: 0, says: /a/ },
	list: { args: () => ["list", "workflows"], code: 0, says: /one/ },
	show: { args: () => ["show", "workflow", "one"], code: 0, says: /workflow one/ },
	recommend: { args: () => ["recommend", "fix the bug"], code: 0, says: /team / },
	validate: { args: () => ["validate"], code: 0, says: /\S/ },
	trust: { args: () => ["trust", "--list"], code: 0, says: /\S/ },
	doctor: { args: () => ["doctor", "--json"], code: -1, says: /"checks"/ },
	demo: { args: () => ["demo", "--here"], code: 0, says: /the model answered 6 requests from pi/ },
	schedule: { args: () => ["schedule", "list"], code: 0, says: /no schedules/ },
	scheduler: { args: () => ["scheduler", "--once"], code: 0, says: /^$/ },
	spec: { args: () => ["spec", "list"], code: 0, says: /no specs: crew spec import <file> adds one/ },
};

test("every command crew --help lists has a case here", async () => {
	const help = await crew(repo.dir, ["--help"]);
	const commands = [...(help.stdout.split("Commands:")[1]?.matchAll(/^ {2}([a-z][a-z-]*)/gm) ?? [])].map((m) => m[1]);
	expect(commands.filter((name) => name !== "help").sort()).toEqual(Object.keys(CASES).sort());
});

test.each(Object.entries(CASES))("crew %s loads what it needs and runs", async (name, { args, code, says }) => {
	const result = name === "mcp" ? await mcpWithoutClient(repo.dir) : await crew(repo.dir, args(runId));
	expect(result.stderr).not.toMatch(/ERR_MODULE_NOT_FOUND|Cannot find module|is not a function|SyntaxError/);
	if (code >= 0) expect(result.code, result.stderr).toBe(code);
	expect(`${result.stdout}${result.stderr}`).toMatch(says);
});
