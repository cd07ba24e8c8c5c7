// @slow: wrong-typed inputs are tried over HTTP and MCP against live servers
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "vitest";
import { CLI, crew, mcpClient, servedApp, TestRepo } from "../helpers.js";
import { tally } from "./tally.js";

/** Every file of the repository outside `.crew/`, with its content: what bad input must not change. */
function outsideCrew(dir: string): Map<string, string> {
	const files = readdirSync(dir, { recursive: true, encoding: "utf8" }).filter(
		(name) => !name.startsWith(".crew") && !name.startsWith(".git") && !name.endsWith("agent-log.jsonl"),
	);
	return new Map(files.map((name) => [name, readDirOrFile(join(dir, name))]));
}

function readDirOrFile(path: string): string {
	try {
		return readFileSync(path, "latin1");
	} catch {
		return "(folder)";
	}
}

/** A repository with a completed run `runId` (one task `a`) and a folder outside it that must stay untouched. */
async function repoWithRun(): Promise<{ repo: TestRepo; runId: string; outside: string }> {
	const repo = new TestRepo().agent("worker");
	repo.workflow("one", [{ id: "a" }]);
	const run = await crew(repo.dir, ["run", "first", "--workflow", "one", "--json"]);
	const runId = JSON.parse(run.stdout.trim().split("\n").at(-1) ?? "{}").runId as string;
	const outside = mkdtempSync(join(tmpdir(), "crew-outside-"));
	writeFileSync(join(outside, "secret.txt"), "outside the repository\n");
	return { repo, runId, outside };
}

interface CliCase {
	readonly name: string;
	/** Sets up the bad input; returns the arguments that meet it. */
	readonly arrange: (repo: TestRepo, runId: string, outside: string) => string[];
	/** What the one-line error says: it names the bad value. */
	readonly message: RegExp;
}

const WORKFLOW_FILES: readonly CliCase[] = [
	{
		name: "a workflow with a cycle",
		arrange: (repo) => {
			repo.writeFile(
				".crew/workflows/loop.workflow.md",
				"## a\nrole: worker\ndependsOn: b\n\nx\n\n## b\nrole: worker\ndependsOn: a\n\ny\n",
			);
			return ["run", "g", "--workflow", "loop"];
		},
		message: /loop\.workflow\.md: dependency cycle: (a -> b -> a|b -> a -> b)\n/,
	},
	{
		name: "a workflow with an unknown dependency",
		arrange: (repo) => {
			repo.writeFile(".crew/workflows/dangling.workflow.md", "## a\nrole: worker\ndependsOn: ghost\n\nx\n");
			return ["run", "g", "--workflow", "dangling"];
		},
		message: /step 'a' depends on unknown step 'ghost'/,
	},
	{
		name: "a workflow with a duplicate id",
		arrange: (repo) => {
			repo.writeFile(".crew/workflows/twice.workflow.md", "## a\nrole: worker\n\nx\n\n## a\nrole: worker\n\ny\n");
			return ["run", "g", "--workflow", "twice"];
		},
		message: /declares step 'a' twice/,
	},
	{
		name: "a workflow with broken frontmatter",
		arrange: (repo) => {
			repo.writeFile(".crew/workflows/open.workflow.md", "---\nname: open\n## a\nrole: worker\n\nx\n");
			return ["run", "g", "--workflow", "open"];
		},
		message: /invalid workflow .*open\.workflow\.md: its frontmatter, opened by '---' on line 1, is never closed/,
	},
	{
		name: "a workflow of binary content",
		arrange: (repo) => {
			writeFileSync(
				join(repo.dir, ".crew/workflows/blob.workflow.md"),
				Buffer.from([0x2d, 0x2d, 0x2d, 0x0a, 0x00, 0xff, 0x10, 0x00]),
			);
			return ["run", "g", "--workflow", "blob"];
		},
		message: /cannot read workflow .*blob\.workflow\.md: it is not a text file \(it holds NUL bytes\)/,
	},
	{
		name: "a huge workflow",
		arrange: (repo) => {
			repo.writeFile(".crew/workflows/huge.workflow.md", `## a\nrole: worker\n\n${"x".repeat(5 * 1024 * 1024)}\n`);
			return ["run", "g", "--workflow", "huge"];
		},
		message: /cannot read workflow .*huge\.workflow\.md: it is too large \(5\.0 MiB; at most 1 MiB\)/,
	},
	{
		name: "a directory instead of a workflow file",
		arrange: (repo) => {
			mkdirSync(join(repo.dir, ".crew/workflows/folder.workflow.md"));
			return ["run", "g", "--workflow", "folder"];
		},
		message: /cannot read workflow .*folder\.workflow\.md: it is a directory, not a file/,
	},
	{
		name: "a file outside the repository given as a workflow",
		arrange: (_repo, _run, outside) => ["run", "g", "--workflow", join(outside, "secret.txt")],
		message: /workflow .*secret\.txt has no steps/,
	},
];

const IDS: readonly CliCase[] = [
	{ name: "a run id with ../", arrange: () => ["status", "../../etc"], message: /invalid run id "\.\.\/\.\.\/etc"/ },
	{
		name: "an absolute path as a run id",
		arrange: () => ["events", "/etc/passwd"],
		message: /invalid run id "\/etc\/passwd"/,
	},
	{
		name: "a run id with a control character",
		arrange: () => ["result", "run\u0007bell", "a"],
		message: /invalid run id "run\\u0007bell"/,
	},
	{
		name: "a task reference with ../",
		arrange: (_repo, runId) => ["result", runId, "../../crew.db"],
		message: /has no task or step '\.\.\/\.\.\/crew\.db'/,
	},
	{
		name: "a run id with a newline",
		arrange: () => ["cancel", "abc\nrm -rf /"],
		message: /invalid run id "abc\\nrm -rf \/"/,
	},
];

const LINKS: readonly CliCase[] = [
	{
		name: "a result file replaced by a link to a file outside",
		arrange: (repo, runId, outside) => {
			const result = join(repo.dir, ".crew/runs", runId, "tasks/a/result.md");
			rmSync(result);
			symlinkSync(join(outside, "secret.txt"), result);
			return ["result", runId, "a"];
		},
		message: /artifact "tasks\/a\/result\.md" of run \S+ is a link; crew does not follow links in run folders/,
	},
	{
		name: "a task folder replaced by a link to a folder outside",
		arrange: (repo, runId, outside) => {
			const folder = join(repo.dir, ".crew/runs", runId, "tasks/a");
			rmSync(folder, { recursive: true });
			symlinkSync(outside, folder);
			return ["result", runId, "a"];
		},
		message: /artifact "tasks\/a\/result\.md" of run \S+ leads out of the run's folder/,
	},
	{
		name: "a retry whose task folder links outside",
		arrange: (repo, _runId, outside) => {
			repo.writeFile(".crew/agents/failer.md", "---\nname: failer\nruntime: command\ncommand: exit 3\n---\n");
			repo.workflow("fails", [{ id: "f", role: "failer" }]);
			const cli = (...args: string[]) =>
				spawnSync(process.execPath, [CLI, ...args], { cwd: repo.dir, encoding: "utf8" }).stdout;
			const failed = JSON.parse(
				cli("run", "g", "--workflow", "fails", "--retries", "0", "--json").trim().split("\n").at(-1) ?? "{}",
			);
			const folder = join(repo.dir, ".crew/runs", failed.runId, "tasks/f");
			rmSync(folder, { recursive: true });
			symlinkSync(outside, folder);
			return ["retry", failed.runId, "f"];
		},
		message: /artifact "tasks\/f\/prompt\.md" of run \S+ leads out of the run's folder/,
	},
];

/** A bundle of the repository's run, changed by `change`, written next to it; its path. */
function changedBundle(repo: TestRepo, runId: string, change: (bundle: { files: { path: string }[] }) => void): string {
	const file = join(repo.dir, ".crew", "bundle.json");
	spawnSync(process.execPath, [CLI, "export", runId, "-o", file], { cwd: repo.dir });
	const bundle = JSON.parse(readFileSync(file, "utf8"));
	change(bundle);
	writeFileSync(file, JSON.stringify(bundle));
	return file;
}

const BUNDLES: readonly CliCase[] = [
	{
		name: "an import bundle whose file name leaves the run's folder",
		arrange: (repo, runId) => {
			const file = changedBundle(repo, runId, (b) => {
				(b.files[0] as { path: string }).path = "../../../../escaped.txt";
			});
			return ["import", file];
		},
		message: /invalid artifact name "\.\.\/\.\.\/\.\.\/\.\.\/escaped\.txt"/,
	},
	{
		name: "an import bundle with a run id that is a path",
		arrange: (repo, runId) => ["import", changedBundle(repo, runId, (b) => Object.assign(b, { runId: "/etc" }))],
		message: /invalid run id "\/etc"/,
	},
];

const FLAGS: readonly CliCase[] = [
	{
		name: "--concurrency 0",
		arrange: () => ["run", "g", "--workflow", "one", "--concurrency", "0"],
		message: /invalid concurrency '0': expected an integer >= 1/,
	},
	{
		name: "--concurrency 2.5",
		arrange: () => ["run", "g", "--workflow", "one", "--concurrency", "2.5"],
		message: /invalid concurrency '2\.5'/,
	},
	{
		name: "--concurrency lots",
		arrange: () => ["run", "g", "--workflow", "one", "--concurrency", "lots"],
		message: /invalid concurrency 'lots'/,
	},
	{
		name: "--failure sometimes",
		arrange: () => ["run", "g", "--workflow", "one", "--failure", "sometimes"],
		message: /sometimes/,
	},
	{
		name: "--timeout soon",
		arrange: () => ["run", "g", "--workflow", "one", "--timeout", "soon"],
		message: /invalid timeout "soon"/,
	},
	{ name: "--timeout 9999h", arrange: () => ["run", "g", "--workflow", "one", "--timeout", "9999h"], message: /9999h/ },
	{ name: "--retries -1", arrange: () => ["run", "g", "--workflow", "one", "--retries", "-1"], message: /-1/ },
	{ name: "--budget-usd -2", arrange: () => ["run", "g", "--workflow", "one", "--budget-usd", "-2"], message: /-2/ },
	{
		name: "--port 70000",
		arrange: () => ["serve", "--port", "70000"],
		message: /invalid --port '70000': expected an integer from 0 to 65535/,
	},
	{
		name: "--interval 5",
		arrange: () => ["watch", "--interval", "5"],
		message: /invalid --interval '5': expected an integer >= 50/,
	},
	{ name: "an unknown command", arrange: () => ["frobnicate"], message: /unknown command 'frobnicate'/ },
];

const CLI_CASES = [...WORKFLOW_FILES, ...IDS, ...LINKS, ...BUNDLES, ...FLAGS];

test.for(CLI_CASES)(
	"$name gets one clear line naming it, a non-zero exit, and nothing written outside .crew/",
	async (bad) => {
		const { repo, runId, outside } = await repoWithRun();
		const args = bad.arrange(repo, runId, outside);
		const before = outsideCrew(repo.dir);
		const beforeOutside = readdirSync(outside);
		tally({ badInputsTried: 1 });
		const result = await crew(repo.dir, args);
		expect(result.code).not.toBe(0);
		const lines = result.stderr.trim().split("\n");
		expect(lines, result.stderr).toHaveLength(1);
		expect(result.stderr).toMatch(bad.message);
		expect(result.stderr).not.toMatch(/\n\s+at /);
		expect(outsideCrew(repo.dir)).toEqual(before);
		expect(readdirSync(outside)).toEqual(beforeOutside);
		expect(readFileSync(join(outside, "secret.txt"), "utf8")).toBe("outside the repository\n");
		tally({ badInputsRejected: 1 });
	},
);

test("wrong-typed HTTP inputs get 400 with a message naming the value", async () => {
	const { repo, runId } = await repoWithRun();
	const { request, close } = servedApp(repo.dir);
	const app = { request };
	const get = (path: string) => Promise.resolve(app.request(path));
	const post = (path: string, body: string) =>
		Promise.resolve(
			app.request(path, {
				method: "POST",
				headers: { authorization: "Bearer t", "content-type": "application/json" },
				body,
			}),
		);
	const cases: [string, Promise<Response>, RegExp][] = [
		["since as a word", get(`/api/runs/${runId}/events?since=ten`), /since "ten"/],
		["a negative since", get(`/api/runs/${runId}/events?since=-5`), /since "-5"/],
		["a run id with NUL", get("/api/runs/ab%00cd"), /invalid run id "ab\\u0000cd"/],
		["a run id with ../", get("/api/runs/..%2F..%2Fetc"), /invalid run id "\.\.\/\.\.\/etc"/],
		["a reason of the wrong type", post(`/api/runs/${runId}/reject`, '{"reason": ["no"]}'), /reason \["no"\]/],
		["a body that is not JSON", post(`/api/runs/${runId}/reject`, "{reason"), /the body is not JSON/],
	];
	try {
		for (const [what, pending, message] of cases) {
			tally({ badInputsTried: 1 });
			const response = await pending;
			const body = (await response.json()) as { error: string };
			expect({ what, status: response.status }).toEqual({ what, status: 400 });
			expect(body.error).toMatch(message);
			tally({ badInputsRejected: 1 });
		}
	} finally {
		close();
	}
});

test("wrong-typed MCP inputs get an error result naming the value", async () => {
	const { repo, runId } = await repoWithRun();
	const { client } = await mcpClient(repo.dir);
	const cases: [string, Record<string, unknown>, RegExp][] = [
		["crew_run", { goal: "g", workflow: "one", concurrency: "four" }, /concurrency/],
		["crew_run", { goal: "", workflow: "one" }, /goal/],
		["crew_events", { runId, since: -1 }, /since/],
		["crew_status", { runId: 42 }, /runId/],
		["crew_result", { runId, task: "../../crew.db" }, /no task or step '\.\.\/\.\.\/crew\.db'/],
		["crew_cancel", { runId: "../x" }, /invalid run id "\.\.\/x"/],
	];
	try {
		for (const [name, args, message] of cases) {
			tally({ badInputsTried: 1 });
			const result = await client.callTool({ name, arguments: args });
			const text = (result.content as { text: string }[])[0]?.text ?? "";
			expect({ name, isError: result.isError }).toEqual({ name, isError: true });
			expect(text).toMatch(message);
			tally({ badInputsRejected: 1 });
		}
	} finally {
		await client.close();
	}
});
