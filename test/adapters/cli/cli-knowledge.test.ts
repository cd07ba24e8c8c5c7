import { readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { crew, TestRepo } from "../../helpers.js";

/** The result of task `a` of the run `args` start. */
async function resultOf(dir: string, args: readonly string[]): Promise<{ stderr: string; text: string }> {
	const run = await crew(dir, ["run", ...args, "--json"]);
	expect(run.code, run.stderr).toBe(0);
	const { runId } = JSON.parse(run.stdout.trim().split("\n").pop() as string) as { runId: string };
	return { stderr: run.stderr, text: (await crew(dir, ["result", runId, "a"])).stdout };
}

/** A command agent whose answer is its prompt, then two proposed notes, one written to fool a shell. */
function echoing(repo: TestRepo): void {
	const notes = `echo "KNOWLEDGE: tests run with npm test"; echo 'KNOWLEDGE: it'"'"'s $(touch pwned)'`;
	repo.writeFile(
		".crew/agents/echo.md",
		`---\nname: echo\nruntime: command\ncommand: cat "$CREW_PROMPT_FILE"; echo; ${notes}\nsandbox: off\n---\n`,
	);
	repo.workflow("one", [{ id: "a", role: "echo", text: "STEP-TEXT do the thing" }]);
}

test("the project's knowledge comes before every task's prompt, bounded, unless --no-knowledge; an agent's proposed note is listed by crew knowledge, and crew knowledge add adds it", async () => {
	const repo = new TestRepo();
	echoing(repo);
	expect((await crew(repo.dir, ["knowledge", "add", "Use tabs, not spaces."])).code).toBe(0);
	expect(readFileSync(join(repo.dir, ".crew", "knowledge.md"), "utf8")).toBe(
		"# Project knowledge\n\n- Use tabs, not spaces.\n",
	);

	const told = (await resultOf(repo.dir, ["g", "--workflow", "one"])).text;
	expect(told.indexOf("- Use tabs, not spaces.")).toBeGreaterThan(told.indexOf("## Project knowledge"));
	expect(told.indexOf("## Project knowledge")).toBeGreaterThanOrEqual(0);
	expect(told.indexOf("## Task")).toBeGreaterThan(told.indexOf("</knowledge>"));
	expect(told.indexOf("STEP-TEXT")).toBeGreaterThan(told.indexOf("## Task"));

	const shown = await crew(repo.dir, ["knowledge"]);
	expect(shown.stdout).toContain("- Use tabs, not spaces.\n");
	expect(shown.stdout).toMatch(
		/Proposed by the agents of run \S+, not added:\n {2}a: tests run with npm test\n {4}crew knowledge add 'tests run with npm test'\n/,
	);
	// Offered as one single-quoted word: pasted, no shell expands what an agent wrote.
	expect(/crew knowledge add ('it.*)\n/.exec(shown.stdout)?.[1]).toBe(`'it'\\''s $(touch pwned)'`);
	expect((await crew(repo.dir, ["knowledge", "add", "tests run with npm test"])).code).toBe(0);
	const after = (await crew(repo.dir, ["knowledge"])).stdout;
	expect(after).not.toContain("a: tests run with npm test");
	expect(after).toContain("a: it's $(touch pwned)");

	const without = (await resultOf(repo.dir, ["g", "--workflow", "one", "--no-knowledge"])).text;
	expect(without).not.toContain("Project knowledge");
	expect(without).toContain("STEP-TEXT");

	// Past 16 KB, the start of it, cut after a whole line, and where the rest is.
	writeFileSync(join(repo.dir, ".crew", "knowledge.md"), `${"x".repeat(99)}\n`.repeat(200));
	const cut = (await resultOf(repo.dir, ["g", "--workflow", "one"])).text;
	expect(cut.match(/^x{99}$/gm)).toHaveLength(163);
	expect(cut).toContain("(cut at 16 KB: the rest is in .crew/knowledge.md)");
});

test("a knowledge file that is a link is not followed: a warning, and neither a prompt nor crew knowledge carries what it points at", async () => {
	const repo = new TestRepo();
	echoing(repo);
	repo.writeFile("secret.txt", "PLANTED-SECRET\n");
	symlinkSync(join(repo.dir, "secret.txt"), join(repo.dir, ".crew", "knowledge.md"));
	const run = await resultOf(repo.dir, ["g", "--workflow", "one"]);
	expect(run.stderr).toContain("knowledge.md is not read: it is a link; crew reads no knowledge from it");
	expect(run.text).toContain("STEP-TEXT");
	expect(run.text).not.toContain("PLANTED-SECRET");
	const shown = await crew(repo.dir, ["knowledge"]);
	expect(shown.stdout).not.toContain("PLANTED-SECRET");
	expect(shown.stderr).toContain("it is a link");
	const added = await crew(repo.dir, ["knowledge", "add", "x"]);
	expect(added.code).not.toBe(0);
	expect(added.stderr).toContain("it is a link; crew reads no knowledge from it, nor adds to it");
	expect(readFileSync(join(repo.dir, "secret.txt"), "utf8")).toBe("PLANTED-SECRET\n");
});
