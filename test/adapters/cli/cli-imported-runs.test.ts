import { execFileSync } from "node:child_process";
import { cpSync, existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { expect, test } from "vitest";
import type { RunBundle } from "../../../src/engine/history/bundle.js";
import { crew, TestRepo } from "../../helpers.js";

/** A repository whose one step fails; its run, exported, is the bundle the tests tamper with. */
async function failedRunBundle(): Promise<{ runId: string; bundle: RunBundle }> {
	const source = new TestRepo();
	source.writeFile(".crew/agents/worker.md", "---\nname: worker\nruntime: command\ncommand: exit 1\n---\n");
	source.workflow("once", [{ id: "go", extra: { retries: "0" } }]);
	const run = await crew(source.dir, ["run", "g", "--workflow", "once", "--json"]);
	expect(run.code).not.toBe(0);
	const runId = JSON.parse(run.stdout.trim().split("\n").at(-1) ?? "{}").runId as string;
	const file = join(source.dir, "run.json");
	expect((await crew(source.dir, ["export", runId, "-o", file])).code).toBe(0);
	return { runId, bundle: JSON.parse(readFileSync(file, "utf8")) };
}

/** The bundle with task `go` running `command` instead of its own agent's command. */
function withCommand(bundle: RunBundle, command: string): RunBundle {
	const taskData = bundle.rows.task_data.map((row) => {
		const spec = JSON.parse(String(row.spec));
		return { ...row, spec: JSON.stringify({ ...spec, agent: { ...spec.agent, command } }) };
	});
	return { ...bundle, rows: { ...bundle.rows, task_data: taskData } };
}

test("an imported run whose specs carry a command never runs it: resume, retry and approve refuse, viewing works", async () => {
	const { runId, bundle } = await failedRunBundle();
	const planted = (target: TestRepo) => withCommand(bundle, `touch ${join(target.dir, "planted-ran")}`);
	const importInto = async (target: TestRepo, content: unknown) => {
		const file = join(target.dir, "planted.json");
		writeFileSync(file, JSON.stringify(content));
		expect((await crew(target.dir, ["import", file])).code).toBe(0);
	};
	const refused = async (target: TestRepo, args: string[]) => {
		const result = await crew(target.dir, args);
		expect(result.code, args.join(" ")).not.toBe(0);
		expect(result.stderr, args.join(" ")).toContain(`run ${runId} was not made by this store here`);
		expect(result.stderr).toContain("crew import --rerun");
	};

	const failed = new TestRepo();
	await importInto(failed, planted(failed));
	await refused(failed, ["resume", runId]);
	await refused(failed, ["retry", runId, "go"]);
	expect(failed.exists("planted-ran")).toBe(false);
	expect((await crew(failed.dir, ["status", runId])).code).toBe(0);
	expect((await crew(failed.dir, ["events", runId])).code).toBe(0);
	expect((await crew(failed.dir, ["export", runId, "-o", join(failed.dir, "again.json")])).code).toBe(0);
	expect((await crew(failed.dir, ["forget", runId, "--yes"])).code).toBe(0);

	// The same run, as if it had stopped at an approval gate: what crew approve would start a runner for.
	const gated = new TestRepo();
	const content = planted(gated);
	await importInto(gated, {
		...content,
		rows: {
			...content.rows,
			runs: content.rows.runs.map((r) => ({ ...r, status: "interrupted" })),
			tasks: content.rows.tasks.map((t) => ({ ...t, status: "waiting", approved_at: null })),
		},
	});
	await refused(gated, ["approve", runId]);
	await new Promise((done) => setTimeout(done, 1000));
	expect(gated.exists("planted-ran")).toBe(false);
});

test("crew import --rerun plans the bundle's goal again with this repository's own workflow, under its trust", async () => {
	const { bundle } = await failedRunBundle();
	const target = new TestRepo({ trusted: false });
	target.writeFile(".crew/agents/worker.md", "---\nname: worker\nruntime: command\ncommand: touch local-ran\n---\n");
	target.workflow("once", [{ id: "go" }]);
	const file = join(target.dir, "planted.json");
	writeFileSync(file, JSON.stringify(withCommand(bundle, `touch ${join(target.dir, "planted-ran")}`)));

	const untrusted = await crew(target.dir, ["import", "--rerun", file]);
	expect(untrusted.code).not.toBe(0);
	expect(untrusted.stderr).toMatch(/is not trusted[\s\S]*agent 'worker' \(.*worker\.md\): touch local-ran/);
	expect(target.exists("local-ran")).toBe(false);

	expect((await crew(target.dir, ["trust"])).code).toBe(0);
	const rerun = await crew(target.dir, ["import", "--rerun", file, "--json"]);
	expect(rerun.code).toBe(0);
	expect(JSON.parse(rerun.stdout.trim().split("\n").at(-1) ?? "{}").status).toBe("completed");
	expect(target.exists("local-ran")).toBe(true);
	expect(target.exists("planted-ran")).toBe(false);
});

test("a crew.db tracked by git is refused, naming the file; reading its runs still works", async () => {
	const repo = new TestRepo().agent("worker");
	repo.workflow("once", [{ id: "go" }]);
	rmSync(join(repo.dir, ".git"), { recursive: true });
	execFileSync("git", ["init", "-q"], { cwd: repo.dir });
	const first = await crew(repo.dir, ["run", "g", "--workflow", "once", "--json"]);
	expect(first.code).toBe(0);
	const runId = JSON.parse(first.stdout.trim().split("\n").at(-1) ?? "{}").runId as string;
	execFileSync("git", ["add", "-f", ".crew/crew.db"], { cwd: repo.dir });

	const refused = await crew(repo.dir, ["run", "g", "--workflow", "once"]);
	expect(refused.code).not.toBe(0);
	expect(refused.stderr).toContain(".crew/crew.db is tracked by git");
	expect(repo.starts().length).toBe(1);
	expect((await crew(repo.dir, ["status", runId])).code).toBe(0);
});

test("a store copied from another repository keeps its runs as records: they are never executed here", async () => {
	const source = new TestRepo();
	source.writeFile(".crew/agents/worker.md", "---\nname: worker\nruntime: command\ncommand: exit 1\n---\n");
	source.workflow("once", [{ id: "go", extra: { retries: "0" } }]);
	const run = await crew(source.dir, ["run", "g", "--workflow", "once", "--json"]);
	const runId = JSON.parse(run.stdout.trim().split("\n").at(-1) ?? "{}").runId as string;

	const target = new TestRepo();
	target.writeFile(".crew/agents/worker.md", "---\nname: worker\nruntime: command\ncommand: touch local-ran\n---\n");
	target.workflow("once", [{ id: "go" }]);
	cpSync(join(source.dir, ".crew", "crew.db"), join(target.dir, ".crew", "crew.db"));
	const resumed = await crew(target.dir, ["resume", runId]);
	expect(resumed.code).not.toBe(0);
	expect(resumed.stderr).toContain(`run ${runId} was not made by this store here`);
	expect((await crew(target.dir, ["status", runId])).code).toBe(0);
	// The store itself goes on here: a new run runs.
	expect((await crew(target.dir, ["run", "g", "--workflow", "once"])).code).toBe(0);
	expect(target.exists("local-ran")).toBe(true);

	// In the repository that made it, its run is still its own.
	const retried = await crew(source.dir, ["retry", runId, "go"]);
	expect(retried.stderr).not.toContain("was not made by this store here");
});

test("credentials in an older bundle's run options are stored nowhere on import, and an older store's are left out of its export", async () => {
	const { runId, bundle } = await failedRunBundle();
	const queue = "redis://crew:queue-secret-71@127.0.0.1:6399/0";
	const repository = "https://x-access-token:repo-secret-72@git.example/org/app.git";
	const runs = bundle.rows.runs.map((row) => ({
		...row,
		options: JSON.stringify({ ...JSON.parse(String(row.options)), queue, repository }),
	}));
	const target = new TestRepo();
	const file = join(target.dir, "old.json");
	writeFileSync(file, JSON.stringify({ ...bundle, rows: { ...bundle.rows, runs } }));
	expect((await crew(target.dir, ["import", file])).code).toBe(0);
	rmSync(file);
	const stored = () =>
		["crew.db", "crew.db-wal"]
			.map((name) => join(target.dir, ".crew", name))
			.filter((path) => existsSync(path))
			.map((path) => readFileSync(path).toString("latin1"))
			.join("");
	for (const secret of ["queue-secret-71", "repo-secret-72"]) expect(stored()).not.toContain(secret);
	const status = JSON.parse((await crew(target.dir, ["status", runId, "--json"])).stdout);
	expect(status.run.options?.queue ?? JSON.stringify(status)).not.toContain("queue-secret-71");

	// A store written before credentials were left out: its export leaves them out all the same.
	const old = new TestRepo();
	const again = join(old.dir, "again.json");
	writeFileSync(again, JSON.stringify(bundle));
	expect((await crew(old.dir, ["import", again])).code).toBe(0);
	const db = new Database(join(old.dir, ".crew", "crew.db"));
	db.prepare("UPDATE runs SET options = json_set(options, '$.queue', ?)").run(queue);
	db.close();
	const out = join(old.dir, "out.json");
	expect((await crew(old.dir, ["export", runId, "-o", out])).code).toBe(0);
	expect(readFileSync(out, "utf8")).not.toContain("queue-secret-71");
	expect(readFileSync(out, "utf8")).toContain("redis://127.0.0.1:6399/0");
});
