// @module-tag node22
// @slow: every crew command that reads or writes the store, each a crew process of its own, on a read-only mount
import { execFile } from "node:child_process";
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { openWriter } from "../../../src/store/database.js";
import { CLI, type CliResult, completedRun, crew, gitRepo, type TestRepo } from "../../helpers.js";

/**
 * What the file system refuses (a read-only mount, a folder that does not exist, a full device,
 * no permission) is said in one line naming the path and the cause, by every command that writes;
 * and a store on a read-only mount can still be read. The tests run as root, whom permissions do
 * not stop: bubblewrap mounts a repository read-only, or runs crew as a user without rights.
 */

/** Runs crew in `dir` under bubblewrap, the whole file system as it is but for `options`, as `crew` runs it. */
function crewIn(dir: string, options: readonly string[], args: readonly string[]): Promise<CliResult> {
	return new Promise((done) => {
		execFile(
			"bwrap",
			["--dev-bind", "/", "/", ...options, "--", process.execPath, CLI, ...args],
			{ cwd: dir, timeout: 60_000, maxBuffer: 64 * 1024 * 1024 },
			(error, stdout, stderr) =>
				done({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, stdout, stderr }),
		);
	});
}

/** crew in `dir` with `dir` mounted read-only. */
function readOnly(dir: string, args: readonly string[]): Promise<CliResult> {
	return crewIn(dir, ["--ro-bind", dir, dir], args);
}

function escaped(text: string): string {
	return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** A folder that is a repository (it has `.git`) and nothing else: crew has never run there. */
function emptyRepository(): string {
	const dir = mkdtempSync(join(tmpdir(), "crew-files-"));
	mkdirSync(join(dir, ".git"));
	return dir;
}

describe("a repository whose store exists, on a read-only mount", () => {
	let repo: TestRepo;
	let runId: string;
	let bundle: string;

	beforeAll(async () => {
		repo = gitRepo().agent("worker");
		repo.workflow("two", [{ id: "a" }, { id: "b", dependsOn: ["a"] }]);
		runId = await completedRun(repo, ["run", "goal", "--workflow", "two"]);
		bundle = join(mkdtempSync(join(tmpdir(), "crew-bundle-")), "run.json");
		const exported = await crew(repo.dir, ["export", runId, "-o", bundle]);
		expect(exported.code, exported.stderr).toBe(0);
	}, 180_000);

	afterAll(() => {
		if (repo) rmSync(repo.dir, { recursive: true, force: true });
	});

	/** A read command, with RUN for the run's id, and what its output shows of the run. */
	const reads: { command: string; shows: string }[] = [
		{ command: "status", shows: "RUN" },
		{ command: "status RUN --json", shows: '"status":"completed"' },
		{ command: "runs", shows: "RUN" },
		{ command: "runs --json", shows: '"id":"RUN"' },
		{ command: "events RUN", shows: "run.completed" },
		{ command: "logs RUN a", shows: "attempt 1" },
		{ command: "result RUN b --json", shows: '"taskId":"b"' },
		{ command: "inbox", shows: "nothing waits for you" },
		{ command: "watch RUN", shows: "completed" },
		{ command: "diff RUN RUN", shows: "RUN" },
		{ command: "show agent worker", shows: "You are worker" },
		{ command: "knowledge", shows: "" },
		{ command: "export RUN -o OUT", shows: "exported run RUN (2 tasks" },
	];

	test.each(reads)("crew $command reads it", async ({ command, shows }) => {
		const read = await readOnly(
			repo.dir,
			command.replaceAll("RUN", runId).replaceAll("OUT", `${bundle}.again`).split(" "),
		);
		expect(read.stderr.replace(/^no project knowledge yet .*\n/, "")).toBe("");
		expect(read.code).toBe(0);
		expect(read.stdout).toContain(shows.replaceAll("RUN", runId));
	});

	/** Commands that write the store or files in `.crew/`, with RUN for the run's id and BUNDLE for an export of it. */
	const writes: string[] = [
		"run again --workflow two",
		"agent hello --agent worker",
		"resume RUN",
		"retry RUN a",
		"cancel RUN",
		"approve RUN",
		"reject RUN --reason no",
		"forget RUN --yes",
		"prune --keep 0 --yes",
		"fork RUN",
		"import BUNDLE",
		"reconcile --fix",
		"knowledge add note",
		"init",
	];

	test.each(writes)("crew %s says the file system is read-only, naming where it would write", async (command) => {
		const args = command.replaceAll("RUN", runId).replaceAll("BUNDLE", bundle).split(" ");
		const written = await readOnly(repo.dir, args);
		expect(written.stderr).toMatch(
			new RegExp(`^crew: cannot write ${escaped(repo.dir)}/\\.crew\\S*: the file system is read-only \\(EROFS\\)\\n$`),
		);
		expect(written.code).toBe(1);
	});

	test("crew export into the read-only folder names the file it cannot write", async () => {
		const written = await readOnly(repo.dir, ["export", runId]);
		expect(written.stderr).toBe(
			`crew: cannot write ${repo.dir}/${runId}.crew-run.json: the file system is read-only (EROFS)\n`,
		);
		expect(written.code).toBe(1);
	});
});

test("while a process that may write the store holds it open, the read-only mount reads it and refuses to write", async () => {
	const repo = gitRepo().agent("worker");
	repo.workflow("one", [{ id: "a" }]);
	const runId = await completedRun(repo, ["run", "goal", "--workflow", "one"]);
	// A runner on a mount that may write: the store's -wal and -shm files are beside it.
	const writer = openWriter(join(repo.dir, ".crew", "crew.db"));
	try {
		expect(existsSync(join(repo.dir, ".crew", "crew.db-shm"))).toBe(true);
		const status = await readOnly(repo.dir, ["status", runId]);
		expect(status.stderr).toBe("");
		expect(status.stdout).toContain(runId);
		const cancel = await readOnly(repo.dir, ["cancel", runId]);
		expect(cancel.stderr).toBe(`crew: cannot write ${repo.dir}/.crew: the file system is read-only (EROFS)\n`);
		expect(cancel.code).toBe(1);
	} finally {
		writer.close();
		rmSync(repo.dir, { recursive: true, force: true });
	}
});

test("crew init and crew run where crew never ran, on a read-only mount, say .crew cannot be made there", async () => {
	const dir = emptyRepository();
	for (const args of [["init"], ["run", "a goal"]]) {
		const refused = await readOnly(dir, args);
		expect(refused.stderr).toBe(`crew: cannot create the folder ${dir}/.crew: the file system is read-only (EROFS)\n`);
		expect(refused.code).toBe(1);
	}
	rmSync(dir, { recursive: true, force: true });
});

describe("crew export to a place it cannot write", () => {
	let repo: TestRepo;
	let runId: string;

	beforeAll(async () => {
		repo = gitRepo().agent("worker");
		repo.workflow("one", [{ id: "a" }]);
		runId = await completedRun(repo, ["run", "goal", "--workflow", "one"]);
	}, 180_000);

	afterAll(() => {
		if (repo) rmSync(repo.dir, { recursive: true, force: true });
	});

	test("into a folder that does not exist: the first folder missing is named, as bad input", async () => {
		const file = join(repo.dir, "missing", "deeper", "run.json");
		const refused = await crew(repo.dir, ["export", runId, "-o", file]);
		expect(refused.stderr).toBe(
			`crew: cannot open ${file}: the folder ${join(repo.dir, "missing")} does not exist (ENOENT)\n`,
		);
		expect(refused.code).toBe(2);
	});

	test("under a file: the file is named as not a folder, as bad input", async () => {
		writeFileSync(join(repo.dir, "plain.txt"), "x\n");
		const file = join(repo.dir, "plain.txt", "run.json");
		const refused = await crew(repo.dir, ["export", runId, "-o", file]);
		expect(refused.stderr).toBe(
			`crew: cannot open ${file}: ${join(repo.dir, "plain.txt")} is not a folder (ENOTDIR)\n`,
		);
		expect(refused.code).toBe(2);
	});

	test("onto a full device: no space left, naming the file", async () => {
		const refused = await crew(repo.dir, ["export", runId, "-o", "/dev/full"]);
		expect(refused.stderr).toBe("crew: cannot write /dev/full: no space left on the device (ENOSPC)\n");
		expect(refused.code).toBe(1);
	});
});

test("crew init in a folder the user may not write says permission is denied, naming the folder", async () => {
	const dir = emptyRepository();
	// Owned by a user the namespace does not map: crew, run as an ordinary user there, may read it only.
	chownSync(dir, 12345, 12345);
	chmodSync(dir, 0o755);
	const refused = await crewIn(dir, ["--unshare-user", "--uid", "1000", "--gid", "1000"], ["init"]);
	expect(refused.stderr).toBe(`crew: cannot create the folder ${dir}/.crew: permission denied (EACCES)\n`);
	expect(refused.code).toBe(1);
	rmSync(dir, { recursive: true, force: true });
});
