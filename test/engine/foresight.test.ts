import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { crew, gitRepo, lastJson, read, type TestRepo, waitFor } from "../helpers.js";

/**
 * A repository whose workflow `pair` has two parallel tasks writing the first line of notes.txt
 * two ways: a at once; b once the test lets it start (`start`), then waiting for the test to let
 * it end (`open`).
 */
function pair(): { repo: TestRepo; start: () => void; open: () => void } {
	const repo = gitRepo();
	repo.writeFile("notes.txt", "line one\nline two\nline three\n");
	const git = (...args: string[]) => execFileSync("git", args, { cwd: repo.dir, stdio: "pipe" });
	git("add", "notes.txt");
	git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "notes");
	const gates = join(repo.dir, ".git", "gates");
	mkdirSync(gates);
	const agent = (name: string, command: string) =>
		repo.writeFile(`.crew/agents/${name}.md`, `---\nname: ${name}\nruntime: command\ncommand: ${command}\n---\n`);
	agent("writer-a", "sed -i 1s/.*/from-a/ notes.txt; echo wrote");
	const gate = (name: string) => `while [ ! -f ${gates}/${name} ]; do sleep 0.1; done`;
	agent("writer-b", `${gate("b-start")}; sed -i 1s/.*/from-b/ notes.txt; echo wrote; ${gate("b")}`);
	repo.workflow("pair", [
		{ id: "a", role: "writer-a", text: "Put from-a on the first line. Nothing else." },
		{ id: "b", role: "writer-b", text: "Put from-b on the first line." },
	]);
	return {
		repo,
		start: () => writeFileSync(join(gates, "b-start"), ""),
		open: () => writeFileSync(join(gates, "b"), ""),
	};
}

/** `crew run` of the workflow `pair` in worktrees, its conflicts left for a person. */
const PAIR_RUN = ["run", "g", "--workflow", "pair", "--workspace", "worktree", "--integration", "manual"];

test("a collision between two tasks' changes is foreseen while one still works: recorded once with its files and lines, and the working task is told", async () => {
	const { repo, start, open } = pair();
	const started = await crew(repo.dir, [...PAIR_RUN, "--detach", "--json"]);
	expect(started.code, started.stderr).toBe(0);
	const runId = lastJson(started.stdout).runId;
	await waitFor(
		"a to end",
		() => read(repo.dir, (r) => r.status(runId).tasks.find((t) => t.id === "a")?.status) === "completed",
	);
	start();
	const predicted = await waitFor("the prediction", () =>
		read(repo.dir, (r) => r.events(runId).find((e) => e.type === "integration.predicted")),
	);
	expect(predicted.data).toEqual({
		tasks: ["a", "b"],
		files: ["notes.txt"],
		regions: [{ file: "notes.txt", lines: [1, 1] }],
	});
	expect(read(repo.dir, (r) => r.status(runId).tasks.find((t) => t.id === "b")?.status)).toBe("running");
	const told = await waitFor("the message to b", () =>
		read(repo.dir, (r) => r.events(runId).find((e) => e.type === "task.steered" && e.taskId === "b")),
	);
	expect(String(told.data.text)).toContain("task a works beside you");
	expect(String(told.data.text)).toContain("notes.txt lines 1–1");
	expect(String(told.data.text)).toContain('Task a was asked: "Put from-a on the first line."');
	open();
	await waitFor("the run to end", () => read(repo.dir, (r) => r.status(runId).run.finishedAt), 30_000);
	const events = read(repo.dir, (r) => r.events(runId));
	expect(events.filter((e) => e.type === "integration.predicted")).toHaveLength(1);
	// a had ended: it is not disturbed.
	expect(events.filter((e) => e.type === "task.steered" && e.taskId === "a")).toHaveLength(0);
	const status = await crew(repo.dir, ["status", runId]);
	expect(status.stdout).toContain("foreseen: a and b both change notes.txt lines 1–1");
});

test("--no-foresight leaves the tasks' changes alone while they work", async () => {
	const { repo, start, open } = pair();
	start();
	open();
	const run = await crew(repo.dir, [...PAIR_RUN, "--no-foresight", "--json"]);
	const runId = lastJson(run.stdout).runId;
	const events = read(repo.dir, (r) => r.events(runId));
	expect(events.filter((e) => e.type === "integration.predicted")).toHaveLength(0);
	expect(read(repo.dir, (r) => r.run(runId).integration?.conflicts.map((c) => c.task))).toEqual(["b"]);
});

test("tasks that change the files they share the same way are merged on trial neither while they work nor before they are integrated", async () => {
	const repo = gitRepo();
	repo.writeFile(
		".crew/agents/same.md",
		"---\nname: same\nruntime: command\ncommand: echo same > out.txt; sleep 1.5; echo done\n---\n",
	);
	repo.workflow(
		"same",
		Array.from({ length: 4 }, (_, i) => ({ id: `s${i}`, role: "same" })),
	);
	const trace = join(repo.dir, ".git", "trace.log");
	const run = await crew(repo.dir, ["run", "g", "--workflow", "same", "--workspace", "worktree", "--json"], 60_000, {
		...process.env,
		GIT_TRACE: trace,
	});
	expect(lastJson(run.stdout).status, run.stderr).toBe("completed");
	const gitCommands = readFileSync(trace, "utf8")
		.split("\n")
		.filter((l) => l.includes("trace: built-in: git"));
	expect(gitCommands.filter((l) => l.includes(" merge-tree ")).length).toBe(0);
	// Foresight did look: it read each task's worktree while the tasks worked.
	expect(gitCommands.filter((l) => l.includes(" write-tree")).length).toBeGreaterThan(0);
});
