// @module-tag node22
// @slow: ten confined runs, each task started under bwrap with its network gate
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { crew, repositoryCaches, waitFor } from "../helpers.js";

/**
 * Runs confined by crew's sandbox, through the CLI, with real bubblewrap. Repositories and homes
 * are under the test's temporary folder, which is outside /tmp: a confined process gets a /tmp of
 * its own, where a write "outside" would land unseen rather than be refused.
 */
let server: Server;
let port: number;
let hits = 0;

beforeAll(async () => {
	server = createServer((_request, response) => {
		hits += 1;
		response.end("reached");
	});
	await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
	port = (server.address() as AddressInfo).port;
});

afterAll(() => server?.close());

/** A repository with one command agent `worker` running `command`, its own home with a planted key, trusted. */
async function project(command: string, agentExtra = "", stepExtra = "") {
	const base = mkdtempSync(join(tmpdir(), "crew-sandboxed-"));
	const dir = join(base, "repo");
	const home = join(base, "home");
	mkdirSync(join(home, ".ssh"), { recursive: true });
	writeFileSync(join(home, ".ssh", "id_test"), "PLANTED-SECRET\n");
	mkdirSync(join(dir, ".crew", "agents"), { recursive: true });
	mkdirSync(join(dir, ".crew", "workflows"), { recursive: true });
	writeFileSync(join(dir, "notes.md"), "original\n");
	writeFileSync(
		join(dir, ".crew", "agents", "worker.md"),
		`---\nname: worker\nruntime: command\ncommand: ${command}\n${agentExtra}---\nYou work.\n`,
	);
	writeFileSync(
		join(dir, ".crew", "workflows", "one.workflow.md"),
		`---\nname: one\n---\n## work\nrole: worker\nretries: 0\n${stepExtra}\nDo {goal}\n`,
	);
	const env = { ...process.env, HOME: home, XDG_CONFIG_HOME: join(home, ".config") };
	const run = (args: readonly string[], extraEnv: NodeJS.ProcessEnv = {}) =>
		crew(dir, args, 60_000, { ...env, ...extraEnv });
	return { base, dir, home, run };
}

async function statusOf(run: (args: readonly string[]) => Promise<{ stdout: string }>) {
	return JSON.parse((await run(["status", "--json"])).stdout) as {
		tasks: { id: string; status: string; error: string | null; sandbox: unknown }[];
	};
}

test("by default a task writes its workspace and nothing beside it, and sees no secret nor crew's store", async () => {
	const { base, dir, home, run } = await project(
		`echo mine > own.txt; echo escaped > ../outside.txt; echo escaped > $HOME/x; cat $HOME/.ssh/id_test; ls .crew; echo end`,
	);
	expect((await run(["trust"])).code).toBe(0);
	const result = await run(["run", "-w", "one", "try"]);
	expect(result.stderr).not.toMatch(/sandbox off/);
	expect(result.code).toBe(0);
	expect(readFileSync(join(dir, "own.txt"), "utf8")).toBe("mine\n");
	expect(existsSync(join(base, "outside.txt"))).toBe(false);
	expect(existsSync(join(home, "x"))).toBe(false);
	const runDir = readdirOne(join(dir, ".crew", "runs"));
	const log = readFileSync(join(runDir, "tasks", "work", "attempt-1.stderr.log"), "utf8");
	expect(log).toMatch(/outside\.txt: Read-only file system/);
	expect(log).toMatch(/x: Read-only file system/);
	expect(log).toMatch(/id_test: No such file/);
	const said = readFileSync(join(runDir, "tasks", "work", "result.md"), "utf8");
	expect(`${said}${log}`).not.toContain("PLANTED-SECRET");
	expect(said).not.toMatch(/crew\.db/);
	expect(readFileSync(join(home, ".ssh", "id_test"), "utf8")).toBe("PLANTED-SECRET\n");
	const status = await statusOf(run);
	expect(status.tasks[0]?.sandbox).toEqual({ level: "workspace", readOnly: false, caches: repositoryCaches(home) });
	expect((await run(["status"])).stdout).toMatch(/work +worker +completed .*attempt 1 +sandbox workspace/);
	const runId = runDir.split("/").pop() as string;
	const denied = (await eventsOf(run, runId)).filter((e) => e.type === "sandbox.denied").map((e) => e.data);
	expect(denied).toEqual([{ path: join(base, "outside.txt") }, { path: join(home, "x") }]);
	expect((await run(["logs", runId, "work"])).stdout).toMatch(/the sandbox refused a write to .*outside\.txt/);
});

test("in a worktree a task's own edit reaches its branch; a write to the main checkout is refused", async () => {
	const { dir, run } = await project(
		'echo mine > own.txt; echo escaped > "$(git rev-parse --git-common-dir)/../escaped.txt"; echo tried',
	);
	const git = committed(dir);
	await run(["trust"]);
	const result = await run(["run", "-w", "one", "edit", "--workspace", "worktree"]);
	expect(result.code).toBe(0);
	expect(existsSync(join(dir, "escaped.txt"))).toBe(false);
	const runDir = readdirOne(join(dir, ".crew", "runs"));
	const log = readFileSync(join(runDir, "tasks", "work", "attempt-1.stderr.log"), "utf8");
	expect(log).toMatch(/escaped\.txt: Read-only file system/);
	const runId = runDir.split("/").pop() as string;
	expect(git("show", `crew/${runId}:own.txt`)).toBe("mine\n");
});

test("a confined agent's own git add -A && git commit commits exactly its change, in the checkout and in a worktree", async () => {
	for (const workspace of ["shared", "worktree"]) {
		const { dir, run } = await project(
			"echo mine > own.txt && git add -A && git -c user.name=a -c user.email=a@a commit -qm agent && git status --porcelain && echo committed",
		);
		// Its resources tracked, and no `.crew/.gitignore`: a repository that never ran crew init.
		const git = committed(dir, "");
		await run(["trust"]);
		const base = git("rev-parse", "HEAD").trim();
		const result = await run(["run", "-w", "one", "commit", "--workspace", workspace, "--json"]);
		expect(result.code, `${workspace}: ${result.stderr}`).toBe(0);
		const { runId } = JSON.parse(result.stdout.trim().split("\n").at(-1) as string) as { runId: string };
		const branch = workspace === "shared" ? "HEAD" : `crew-tasks/${runId}/work`;
		expect(git("log", "--format=%s", `${base}..${branch}`).trim(), workspace).toMatch(/^agent$/m);
		expect(git("diff", "--name-status", `${base}..${branch}`).trim(), workspace).toBe("A\town.txt");
		if (workspace === "shared") expect(git("status", "--porcelain").trim()).toBe("");
	}
});

test("a scaffolder's nested repository is moved out of its workspace, its files kept, and crew says so", async () => {
	for (const workspace of ["shared", "worktree"]) {
		const { dir, run } = await project(
			"mkdir app && cd app && git init -q && echo made > index.js && git add -A && git -c user.name=a -c user.email=a@a commit -qm init && echo scaffolded",
		);
		const git = committed(dir, "");
		await run(["trust"]);
		const result = await run(["run", "-w", "one", "scaffold", "--workspace", workspace, "--json"]);
		expect(result.code, `${workspace}: ${result.stderr}`).toBe(0);
		const { runId } = JSON.parse(result.stdout.trim().split("\n").at(-1) as string) as { runId: string };
		if (workspace === "shared") {
			expect(readFileSync(join(dir, "app", "index.js"), "utf8")).toBe("made\n");
			expect(existsSync(join(dir, "app", ".git"))).toBe(false);
			expect(git("status", "--porcelain", "-uall").trim()).toBe("?? app/index.js");
		} else {
			expect(git("ls-tree", "-r", `crew/${runId}`, "app").trim()).toMatch(/^100644 blob \w+\tapp\/index\.js$/);
		}
		const [task] = (await statusOf(run)).tasks as unknown as { setAside: { path: string; movedTo: string }[] }[];
		expect(task?.setAside.map(({ path }) => path)).toEqual(["app/.git"]);
		const movedTo = task?.setAside[0]?.movedTo as string;
		expect(existsSync(join(movedTo, "HEAD"))).toBe(true);
		const note = `nested repository app/.git moved to ${movedTo}: its config could run programs at your next git command there`;
		expect((await run(["status", runId])).stdout).toContain(`attempt 1: ${note}`);
		expect((await run(["logs", runId, "work"])).stdout).toContain(note);
	}
});

test("a step with writes: src/ whose agent edits docs/x.md fails naming it, and the edit is not on the task's branch", async () => {
	const { dir, run } = await project(
		"mkdir -p src docs; echo a > src/a.ts; echo b > docs/x.md; echo c > notes.md",
		"",
		"writes: src/\n",
	);
	const git = committed(dir);
	await run(["trust"]);
	const result = await run(["run", "-w", "one", "edit", "--workspace", "worktree", "--json"]);
	expect(result.code).not.toBe(0);
	const { runId } = JSON.parse(result.stdout.trim().split("\n").at(-1) as string) as { runId: string };
	const status = await statusOf(run);
	expect(status.tasks[0]?.error).toBe(
		"changed files outside what it may write (only src), which crew put back: docs/x.md, notes.md",
	);
	const branch = `crew-tasks/${runId}/work`;
	expect(git("show", `${branch}:src/a.ts`)).toBe("a\n");
	expect(git("show", `${branch}:notes.md`)).toBe("original\n");
	expect(git("ls-tree", "-r", "--name-only", branch)).not.toContain("docs/x.md");
	const violated = (await eventsOf(run, runId)).filter((e) => e.type === "scope.violated").map((e) => e.data);
	expect(violated).toEqual([{ paths: ["docs/x.md", "notes.md"] }]);
});

test("a read-only agent's edit is refused and the file is unchanged", async () => {
	const { dir, home, run } = await project("echo changed > notes.md", "permissions: read-only\n");
	await run(["trust"]);
	const result = await run(["run", "-w", "one", "review"]);
	expect(result.code).not.toBe(0);
	expect(readFileSync(join(dir, "notes.md"), "utf8")).toBe("original\n");
	const status = await statusOf(run);
	expect(status.tasks[0]?.error).toMatch(/notes\.md: Read-only file system/);
	expect(status.tasks[0]?.sandbox).toEqual({ level: "workspace", readOnly: true, caches: repositoryCaches(home) });
});

test("at strict a check has no network; at workspace the same check reaches the server", async () => {
	const { dir, run } = await project("echo done", "", "verify: node check.mjs\n");
	writeFileSync(
		join(dir, "check.mjs"),
		`await fetch("http://127.0.0.1:${port}/").then((r) => r.text()).then(console.log, (e) => { console.log("refused", e.cause?.code, e.cause?.message); process.exit(1); });\n`,
	);
	await run(["trust"]);
	const before = hits;
	const strict = await run(["run", "-w", "one", "check", "--sandbox", "strict", "--json"]);
	const { runId } = JSON.parse(strict.stdout.trim().split("\n").at(-1) as string) as { runId: string };
	expect(strict.code).not.toBe(0);
	expect(hits).toBe(before);
	const failed = await statusOf(run);
	expect(failed.tasks[0]?.error).toMatch(/refused ECONNREFUSED/);
	const denied = (await eventsOf(run, runId)).filter((e) => e.type === "sandbox.denied").map((e) => e.data);
	expect(denied).toContainEqual({ host: "127.0.0.1", port });
	const open = await run(["run", "-w", "one", "check", "--sandbox", "workspace"]);
	expect(open.code).toBe(0);
	expect(hits).toBe(before + 1);
});

test("a project's file asking for a looser sandbox needs trust; trusted, its task runs unconfined", async () => {
	const { base, run } = await project("echo escaped > ../outside.txt", "sandbox: off\n");
	const refused = await run(["run", "-w", "one", "loosen"]);
	expect(refused.code).not.toBe(0);
	expect(refused.stderr).toMatch(
		/the sandbox of agent 'worker' \(.*worker\.md\): sandbox: off, looser than the run's workspace/,
	);
	expect(existsSync(join(base, "outside.txt"))).toBe(false);
	await run(["trust"]);
	expect((await run(["run", "-w", "one", "loosen"])).code).toBe(0);
	expect(readFileSync(join(base, "outside.txt"), "utf8")).toBe("escaped\n");
	const status = await statusOf(run);
	expect(status.tasks[0]?.sandbox).toEqual({ level: "off", readOnly: false });
});

test("without bubblewrap, or with it but no socat, a run asking for a sandbox is refused; one asking none runs unconfined, warned", async () => {
	const { base, run } = await project("echo escaped > ../outside.txt");
	await run(["trust"]);
	// A PATH with bubblewrap on it and nothing else.
	const bwrapOnly = mkdtempSync(join(tmpdir(), "crew-bwrap-only-"));
	symlinkSync(execFileSync("sh", ["-c", "command -v bwrap"], { encoding: "utf8" }).trim(), join(bwrapOnly, "bwrap"));
	for (const PATH of ["/nonexistent", bwrapOnly]) {
		const refused = await run(["run", "-w", "one", "asked", "--sandbox", "workspace"], { PATH });
		expect(refused.code).not.toBe(0);
		expect(refused.stderr).toMatch(
			/asks for sandbox 'workspace', and bubblewrap \(bwrap\) and socat are not both on PATH and working: install them \(Debian\/Ubuntu: apt-get install bubblewrap socat\)/,
		);
	}
	expect((await run(["runs", "--json"])).stdout.trim()).toBe("[]");
	const warned = await run(["run", "-w", "one", "unasked"], { PATH: bwrapOnly });
	expect(warned.code).toBe(0);
	expect(warned.stderr).toMatch(/warning: tasks run unconfined \(sandbox off\): bubblewrap \(bwrap\) and socat/);
	expect(existsSync(join(base, "outside.txt"))).toBe(true);
});

test("a cancelled confined task's process gets its grace, as an unconfined one does: it ends on SIGTERM its own way, and what it left is set aside", async () => {
	const { dir, run } = await project(
		"trap 'sleep 0.3; echo graceful > stopped.txt; exit 0' TERM; git init -q gen; touch started.txt; sleep 60 & wait",
	);
	await run(["trust"]);
	const started = await run(["run", "-w", "one", "wait", "--detach", "--json"]);
	const { runId } = JSON.parse(started.stdout.trim().split("\n").at(-1) as string) as { runId: string };
	await waitFor("the task to start", () => existsSync(join(dir, "started.txt")));
	expect((await run(["cancel", runId])).code).toBe(0);
	expect((await statusOf(run)).tasks[0]).toMatchObject({ status: "cancelled", sandbox: { level: "workspace" } });
	expect(readFileSync(join(dir, "stopped.txt"), "utf8")).toBe("graceful\n");
	expect(existsSync(join(dir, "gen", ".git"))).toBe(false);
});

/** Makes `dir` a git repository with its files committed; returns a git runner in it. */
/** `dir` as a repository on `main` with everything in it committed, but what `ignored` names (crew's whole folder by default). */
function committed(dir: string, ignored = ".crew/\n"): (...args: string[]) => string {
	const git = (...args: string[]) => execFileSync("git", args, { cwd: dir, encoding: "utf8" });
	git("init", "-q", "-b", "main");
	writeFileSync(join(dir, ".gitignore"), ignored);
	git("add", "-A");
	git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "base");
	return git;
}

async function eventsOf(run: (args: readonly string[]) => Promise<{ stdout: string }>, runId: string) {
	const lines = (await run(["events", runId, "--json"])).stdout.trim().split("\n");
	return lines.map((line) => JSON.parse(line) as { type: string; data: unknown });
}

function readdirOne(folder: string): string {
	const [only] = readdirSync(folder);
	return join(folder, only as string);
}
