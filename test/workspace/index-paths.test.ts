import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "vitest";
import { indexSurelyLacks } from "../../src/workspace/git-surfaces/index-paths.js";

/** A checkout whose index holds `files`, each written first. */
function checkout(...files: string[]): { dir: string; git: (...args: string[]) => void } {
	const dir = mkdtempSync(join(tmpdir(), "crew-index-paths-"));
	const git = (...args: string[]) => {
		execFileSync("git", args, { cwd: dir, stdio: "pipe" });
	};
	git("init", "-q");
	for (const file of files) {
		mkdirSync(join(dir, file, ".."), { recursive: true });
		writeFileSync(join(dir, file), "x\n");
	}
	if (files.length > 0) git("add", "-f", ...files);
	return { dir, git };
}

test("an index of version 2 or 3 is read whole: a path it lacks is surely lacked, one it holds (there or below) is not", () => {
	const names = ["README.md", "src/a.ts", `deep/${"long-folder-name/".repeat(12)}file.ts`];
	expect(indexSurelyLacks(checkout(...names).dir, ".crew/crew.db")).toBe(true);
	expect(indexSurelyLacks(checkout(...names, ".crew/crew.db").dir, ".crew/crew.db")).toBe(false);
	expect(indexSurelyLacks(checkout(...names, "sub/.crew/crew.db").dir, ".crew/crew.db")).toBe(false);
	// An entry added with intent to add carries extended flags, which makes the index version 3.
	const three = checkout(...names);
	writeFileSync(join(three.dir, "later.ts"), "x\n");
	three.git("add", "-N", "later.ts");
	expect(indexSurelyLacks(three.dir, ".crew/crew.db")).toBe(true);
	expect(indexSurelyLacks(three.dir, "later.ts")).toBe(false);
});

test("where the index cannot be read whole so, git must be asked: version 4, a split index, no index, no checkout", () => {
	const four = checkout("README.md");
	four.git("update-index", "--index-version", "4");
	expect(indexSurelyLacks(four.dir, ".crew/crew.db")).toBe(false);
	const split = checkout("README.md");
	split.git("update-index", "--split-index");
	expect(indexSurelyLacks(split.dir, ".crew/crew.db")).toBe(false);
	expect(indexSurelyLacks(checkout().dir, ".crew/crew.db")).toBe(false);
	expect(indexSurelyLacks(mkdtempSync(join(tmpdir(), "crew-no-checkout-")), ".crew/crew.db")).toBe(false);
});
