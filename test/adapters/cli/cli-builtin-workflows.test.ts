import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { crew, gitRepo } from "../../helpers.js";

test.each([
	{ workflow: "chain", tasks: 5, reader: "plan", reads: "understanding.md" },
	{ workflow: "proven-fix", tasks: 4, reader: "fix", reads: "repro.md" },
	{ workflow: "distill", tasks: 9, reader: "merge", reads: "research-history.md" },
])(
	"the builtin $workflow runs end to end with the implementation team, in its worktrees, its steps handing their outputs on",
	async ({ workflow, tasks, reader, reads }) => {
		const repo = gitRepo();
		const run = await crew(repo.dir, [
			"run",
			"g",
			"--workflow",
			workflow,
			"--team",
			"implementation",
			"--runtime",
			"dry-run",
			"--json",
		]);
		expect(run.code, run.stderr).toBe(0);
		const { runId } = JSON.parse(run.stdout.trim().split("\n").pop() as string) as { runId: string };
		const status = JSON.parse((await crew(repo.dir, ["status", runId, "--json"])).stdout) as {
			tasks: { status: string }[];
		};
		expect(status.tasks.map((t) => t.status)).toEqual(Array(tasks).fill("completed"));
		const prompt = readFileSync(join(repo.dir, ".crew", "runs", runId, "tasks", reader, "prompt.md"), "utf8");
		expect(prompt).toContain(`<file name="shared/${reads}"`);
	},
);
