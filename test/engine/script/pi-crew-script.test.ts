import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { crew, read, TestRepo } from "../../helpers.js";

const FIXTURE = join(import.meta.dirname, "..", "..", "fixtures", "pi-crew", "audit.dwf.ts");

function agent(repo: TestRepo, name: string, command: string): void {
	repo.commandAgent(name, command);
}

test("a pi-crew .dwf.ts script runs unchanged: ctx.agent's result shape, fanOut, inputs, review and retry, pipeline, setResult, vars, budget, each call a recorded task", async () => {
	const repo = new TestRepo();
	// pi-crew's own examples import their types from pi-crew's source: such a type-only import is erased, never resolved.
	const script = readFileSync(FIXTURE, "utf8");
	const own = 'import type { WorkflowCtx as Own } from "../src/runtime/dynamic-workflow-context.js";\n';
	repo.writeFile(".crew/workflows/audit.dwf.ts", own + script);
	agent(repo, "scout", 'head -n1 "$CREW_PROMPT_FILE"');
	agent(repo, "merger", 'cat "$CREW_PROMPT_FILE"');
	agent(repo, "broken", "exit 3");
	agent(repo, "typed", `echo '{"count": 2}'`);
	agent(repo, "checker", "sh checker.sh");
	repo.writeFile(
		"checker.sh",
		`if [ -f reviewed ]; then echo '{"outcome": "accept", "feedback": "good"}'; else touch reviewed; echo '{"outcome": "changes_requested", "feedback": "FEEDBACK-1: add a summary"}'; fi\n`,
	);
	const args = JSON.stringify({ areas: ["auth", "input"] });
	const run = await crew(repo.dir, ["run", "audit", "--workflow", "audit", "--args", args, "--retries", "0", "--json"]);
	expect(run.code, run.stderr).toBe(0);
	const { runId } = JSON.parse(run.stdout.trim().split("\n").at(-1) as string) as { runId: string };

	const { tasks } = read(repo.dir, (r) => r.view(runId));
	expect(tasks.map((t) => [t.id, t.status])).toEqual([
		["scout-1.0.1", "completed"],
		["scout-1.1.1", "completed"],
		["merger-2", "completed"],
		["checker-3", "completed"],
		["merger-4", "completed"],
		["checker-5", "completed"],
		["scout-6.0.1", "completed"],
		["scout-6.1.1", "completed"],
		["scout-6.0.2", "completed"],
		["broken-7", "failed"],
		["typed-8", "completed"],
	]);
	const merged = readFileSync(join(repo.dir, ".crew", "runs", runId, "tasks", "merger-2", "result.md"), "utf8");
	expect(merged).toContain("## Inputs");
	expect(merged).toMatch(/<input name="[^"]*scout-1\.0\.1\/result\.md" chars="11">\nAudit auth\n<\/input>/);
	const retried = readFileSync(join(repo.dir, ".crew", "runs", runId, "tasks", "merger-4", "result.md"), "utf8");
	expect(retried).toContain("## Feedback on your previous answer");
	expect(retried).toContain("FEEDBACK-1: add a summary");
	const reviewPrompt = readFileSync(join(repo.dir, ".crew", "runs", runId, "tasks", "checker-5", "prompt.md"), "utf8");
	expect(reviewPrompt).toContain("Review the work of task merger-4");

	const shown = await crew(repo.dir, ["result", runId, "--json"]);
	const { result } = JSON.parse(shown.stdout) as { result: { artifactPath: string; meta: Record<string, unknown> } };
	expect(result.artifactPath).toBe(join(repo.dir, ".crew", "runs", runId, "tasks", "merger-2", "result.md"));
	expect(result.meta).toMatchObject({
		rounds: 2,
		piped: [true, null],
		broken: { ok: false },
		typed: { count: 2 },
		total: null,
		usage: true,
	});
	expect(String((result.meta.broken as { error: string }).error)).toContain("broken-7");
	const logged = read(repo.dir, (r) => r.events(runId, 0, 1000)).filter((e) => e.type === "script.log");
	expect(logged.map((e) => e.data.message)).toEqual([
		"pipeline[1] failed: cannot analyze y",
		'{"scanned":2,"rounds":2}',
	]);
});
