import { execFile } from "node:child_process";
import { join } from "node:path";
import { expect, test } from "vitest";
import { ROOT } from "../helpers.js";

test("the quick-start demo runs the sample team to completion and verifies the fix", async () => {
	const { code, stdout } = await new Promise<{ code: number; stdout: string }>((resolve) => {
		execFile(process.execPath, [join(ROOT, "examples", "demo.mjs")], { cwd: ROOT }, (error, out) =>
			resolve({ code: error ? Number(error.code ?? 1) : 0, stdout: out }),
		);
	});
	expect(code).toBe(0);
	expect(stdout).toMatch(/run \S+ completed in .*: 6 completed/);
	expect(stdout).toContain("M src/slug.js");
	expect(stdout).toMatch(/# pass 2\n\s+# fail 0\n\s+PASS/);
});
