// @module-tag agent-cli
// @slow: the whole quick-start demo, whose sample team of real pi processes fixes the bug and verifies it
import { execFile } from "node:child_process";
import { readdirSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { ROOT } from "../helpers.js";

test("the quick-start demo runs the sample team with real pi processes, which fix the bug and verify it", async () => {
	// As a user runs it: its folders (the repository, pi's) under the system's /tmp, of which a
	// confined task gets a fresh one; the demo's own folders are unique, and removed after.
	const env = { ...process.env, TMPDIR: "/tmp" };
	const started = Date.now() - 1000;
	const { code, stdout } = await new Promise<{ code: number; stdout: string }>((resolve) => {
		execFile(process.execPath, [join(ROOT, "examples", "demo.mjs")], { cwd: ROOT, env }, (error, out) =>
			resolve({ code: error ? Number(error.code ?? 1) : 0, stdout: out }),
		);
	});
	for (const name of readdirSync("/tmp").filter((n) => n.startsWith("crew-demo-"))) {
		const folder = join("/tmp", name);
		if (statSync(folder).mtimeMs >= started) rmSync(folder, { recursive: true, force: true });
	}
	expect(code, stdout).toBe(0);
	expect(stdout).toMatch(/model: scripted, served on http:\/\/127\.0\.0\.1:\d+/);
	expect(stdout).toMatch(/run \S+ completed in .*: 6 completed/);
	expect(stdout).toContain("M src/slug.js");
	expect(stdout).toMatch(/evidence from earlier tasks:\n# pass 2\n# fail 0\nPASS/);
	// Two model requests per task: the tool call, then the report on its result.
	expect(stdout).toContain("the model answered 12 requests from pi");
});
