import { mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "vitest";
import { LiveGroups, runWorkerProcess } from "../../src/runtimes/process/worker-process.js";

test("a program that cannot be started at all fails with the reason, keeping no descriptor open", async () => {
	const dir = mkdtempSync(join(tmpdir(), "crew-worker-"));
	// One argument past the 128 KiB Linux allows: the system refuses to start the program.
	const start = (n: number) =>
		runWorkerProcess({
			file: "/bin/true",
			args: ["x".repeat(200 * 1024)],
			cwd: dir,
			env: { PATH: process.env.PATH },
			stdin: null,
			logFile: join(dir, `attempt-${n}.stderr.log`),
			maxLogBytes: 1024,
			graceMs: 100,
			live: new LiveGroups(),
			signal: new AbortController().signal,
			onEvent: () => undefined,
			onStdout: () => undefined,
			token: "0",
		});
	const first = await start(1);
	expect(first.spawnError?.message).toMatch(/E2BIG/);
	const before = readdirSync("/proc/self/fd").length;
	for (let n = 2; n <= 21; n++) expect((await start(n)).spawnError?.message).toMatch(/E2BIG/);
	expect(readdirSync("/proc/self/fd").length).toBe(before);
});

test("a worker that ended by itself keeps its result when it is stopped while what it left is cleared away", async () => {
	const dir = mkdtempSync(join(tmpdir(), "crew-worker-"));
	const stop = new AbortController();
	const exit = runWorkerProcess({
		file: "/bin/sh",
		// It ends at once, leaving in its group a child that ignores SIGTERM: crew waits out the grace.
		args: ["-c", `trap '' TERM; sleep 30 & echo done; exit 0`],
		cwd: dir,
		env: { PATH: process.env.PATH },
		stdin: null,
		logFile: join(dir, "attempt-1.stderr.log"),
		maxLogBytes: 1024,
		graceMs: 1500,
		live: new LiveGroups(),
		signal: stop.signal,
		onEvent: () => undefined,
		// Stopped once it has ended, while crew waits for its child.
		onStdout: () => setTimeout(() => stop.abort(new Error("cancelled while its group was cleared away")), 300),
		token: "1",
	});
	await expect(exit).resolves.toMatchObject({ code: 0 });
});
