import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { expect, test } from "vitest";
import { ROOT } from "../helpers.js";

/** Every TypeScript file under src/. */
function sources(): string[] {
	const src = join(ROOT, "src");
	return readdirSync(src, { recursive: true, encoding: "utf8" })
		.filter((f) => f.endsWith(".ts"))
		.map((f) => join(src, f));
}

// A reader opening any file learns what it is from its first line, before any declaration's own comment.
test("every source file opens with one line saying what it is, then a blank line", () => {
	const wrong: string[] = [];
	for (const file of sources()) {
		const [first = "", second = ""] = readFileSync(file, "utf8").split("\n", 2);
		if (!/^\/\/ [A-Z`].{10,}$/.test(first) || first.length > 120 || second !== "")
			wrong.push(`${relative(ROOT, file)}: ${first.slice(0, 60)}`);
	}
	expect(wrong).toEqual([]);
});
