import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "vitest";
import { crew } from "../../helpers.js";

test("a command that fails where there was no .crew/ leaves none, in a folder or a git repository; one that was there stays", async () => {
	const folder = mkdtempSync(join(tmpdir(), "crew-plain-"));
	const agent = await crew(folder, ["agent", "hi", "--agent", "scout"]);
	expect(agent.code).toBe(2);
	expect(agent.stderr).toContain("no agent 'scout'");
	expect(readdirSync(folder)).toEqual([]);

	const repo = mkdtempSync(join(tmpdir(), "crew-repo-"));
	execFileSync("git", ["init", "-q"], { cwd: repo });
	const run = await crew(repo, ["run", "hi", "--team", "nosuch"]);
	expect(run.code).toBe(2);
	expect(readdirSync(repo)).toEqual([".git"]);

	// A .crew/ of the person's own is theirs, whatever fails.
	mkdirSync(join(folder, ".crew", "agents"), { recursive: true });
	writeFileSync(join(folder, ".crew", "agents", "mine.md"), "---\nname: mine\n---\nMine.\n");
	expect((await crew(folder, ["agent", "hi", "--agent", "scout"])).code).toBe(2);
	expect(readdirSync(join(folder, ".crew", "agents"))).toEqual(["mine.md"]);
});
