import { expect, test } from "vitest";
import { excerpt } from "../../src/core/terminal-text.js";

const WHERE = "crew status r1 --json for all";

test("an excerpt of text that fits is the text itself", () => {
	expect(excerpt("fix the login form", 40, WHERE)).toBe("fix the login form");
	expect(excerpt("x".repeat(40), 40, WHERE)).toBe("x".repeat(40));
});

test("an excerpt of a long text is cut between words, and says how long the whole is and where to read it", () => {
	const goal = "word ".repeat(838_861).slice(0, 4_194_304);
	const shown = excerpt(goal, 60, WHERE);
	expect(shown).toBe(`${"word ".repeat(11)}word… (4,194,304 characters; crew status r1 --json for all)`);
});

test("an excerpt cuts one long word where the bound is, never in the middle of a character", () => {
	expect(excerpt("a".repeat(100), 10, WHERE)).toBe(`${"a".repeat(10)}… (100 characters; ${WHERE})`);
	const emoji = `${"a".repeat(9)}${"😀".repeat(20)}`;
	expect(excerpt(emoji, 10, WHERE)).toBe(`${"a".repeat(9)}… (49 characters; ${WHERE})`);
});

test("an excerpt with nowhere named is only cut, for a view with no room for the note", () => {
	expect(excerpt("fix the login form and its tests", 20)).toBe("fix the login form…");
});

test("an excerpt of text of several lines shows its first line and counts the whole", () => {
	expect(excerpt("fix the login form\nand its tests", 60, WHERE)).toBe(`fix the login form… (32 characters; ${WHERE})`);
	expect(excerpt("fix the login form of the site\nand its tests", 40, WHERE)).toBe(
		`fix the login form of the site… (44 characters; ${WHERE})`,
	);
});

test("a log's path in a cut text is kept whole after the note", () => {
	const path = "/home/me/project/.crew/runs/20261204-031613-d442e7/tasks/a/attempt-1.stderr.log";
	const error = `pi exited with code 1: Error: ${"the provider refused ".repeat(20)}(log: ${path}); crew's network gate could not connect to api.example.com:443`;
	const shown = excerpt(error, 100, WHERE);
	expect(shown.startsWith("pi exited with code 1: Error: the provider refused the")).toBe(true);
	expect(shown).toContain(`… (${error.length.toLocaleString("en-US")} characters; ${WHERE}) (log: ${path})`);
	expect(shown.endsWith(` (log: ${path})`)).toBe(true);
	expect(shown.length).toBeLessThan(100 + WHERE.length + path.length + 40);
	// Whole when it fits, as written.
	const short = `exit code 1: ${"boom ".repeat(30)}(log: ${path})`;
	expect(excerpt(short, 200, WHERE)).toBe(short);
});
