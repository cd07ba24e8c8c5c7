// @module-tag node22
// @slow: each plain read command twice, through the fast path and the full CLI, every one a crew process of its own
import { execFile } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, expect, test } from "vitest";
import { type CliResult, crew, gitRepo, ROOT, type TestRepo } from "../../helpers.js";

/**
 * The read commands agents and scripts call in loops answer their plain forms without crew's
 * argument parser. What they print and how they exit must be what the full CLI gives for the same
 * arguments; every other form goes to the full CLI.
 */
let repo: TestRepo;
let runId: string;

beforeAll(async () => {
	repo = gitRepo().agent("worker");
	repo.workflow("two", [{ id: "a" }, { id: "b", dependsOn: ["a"] }]);
	const run = await crew(repo.dir, ["run", "goal", "--workflow", "two", "--json"]);
	runId = (JSON.parse(run.stdout.trim().split("\n").at(-1) ?? "{}") as { runId: string }).runId;
	expect(runId, run.stderr).toMatch(/\S/);
});

afterAll(() => {
	if (repo) rmSync(repo.dir, { recursive: true, force: true });
});

/** The same arguments through the full CLI: commander parses them and runs the command. */
function fullCli(cwd: string, args: readonly string[]): Promise<CliResult> {
	const mainUrl = pathToFileURL(join(ROOT, "dist", "cli", "main.js")).href;
	const script = `const { main } = await import(${JSON.stringify(mainUrl)}); process.exitCode = await main(process.argv);`;
	return new Promise((done) => {
		execFile(
			process.execPath,
			["--input-type=module", "-e", script, "crew", ...args],
			{ cwd, maxBuffer: 64 * 1024 * 1024 },
			(error, stdout, stderr) => done({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
		);
	});
}

/** Node's built-in modules a crew command loaded; child_process comes with crew's argument parser. */
async function builtinsLoaded(args: readonly string[]): Promise<string[]> {
	const list = join(repo.dir, "loaded.txt");
	const hook = `data:text/javascript,import { writeFileSync } from "node:fs"; process.on("exit", () => writeFileSync(${JSON.stringify(list)}, process.moduleLoadList.join("\\n")));`;
	await new Promise<void>((done, fail) =>
		execFile(process.execPath, ["--import", hook, join(ROOT, "bin", "crew.js"), ...args], { cwd: repo.dir }, (error) =>
			error ? fail(error) : done(),
		),
	);
	return readFileSync(list, "utf8")
		.split("\n")
		.filter((line) => line.startsWith("NativeModule "))
		.map((line) => line.slice("NativeModule ".length));
}

const PLAIN: ((id: string) => string[])[] = [
	(id) => ["status", id, "--json"],
	(id) => ["status", id],
	() => ["status", "--json"],
	() => ["runs", "--json"],
	() => ["runs"],
	(id) => ["events", id, "--json"],
	(id) => ["--debug", "events", id],
	(id) => ["logs", id, "a", "--json"],
	(id) => ["logs", id, "b"],
	(id) => ["result", id, "b", "--json"],
	(id) => ["result", id, "a"],
	(id) => ["status", id, "--json", "--debug"],
	() => ["status", "20991231-000000-abcdef", "--json"],
	() => ["events", "not a run id"],
	(id) => ["logs", id, "zz"],
	(id) => ["result", id],
];

test.each(PLAIN.map((args) => [args("<run>").join(" "), args] as const))(
	"crew %s prints and exits as the full CLI does",
	async (_name, args) => {
		const quick = await crew(repo.dir, args(runId));
		const full = await fullCli(repo.dir, args(runId));
		expect(quick).toEqual(full);
	},
);

test("the plain forms of the read commands load no argument parser", async () => {
	for (const args of [
		["status", runId, "--json"],
		["runs", "--json"],
		["events", runId, "--json"],
	]) {
		expect(await builtinsLoaded(args), args.join(" ")).not.toContain("child_process");
	}
	expect(await builtinsLoaded(["status", runId, "--json", "--tasks", "completed"])).toContain("child_process");
});

test.each([
	[["status", "--tasks", "done", "--json"], 2, /invalid --tasks 'done'/],
	[["status", "--help"], 0, /--fields <name,\.\.\.>/],
	[["runs", "extra"], 2, /too many arguments/],
	[["events"], 2, /missing required argument 'runId'/],
	[["events", "--json", "--follow", "x"], 2, /invalid run id|no run/],
	[["status", "--json=yes"], 2, /--json/],
	[["constructor"], 2, /unknown command 'constructor'/],
] as const)("crew %j is left to the full CLI: exit %i", async (args, code, says) => {
	const result = await crew(repo.dir, args);
	expect(result.code, result.stderr).toBe(code);
	expect(`${result.stdout}${result.stderr}`).toMatch(says);
});
