import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { TestRepo } from "../helpers.js";

/**
 * Repositories whose runs gain tasks while they run: by `--until` passes, a planner's plan and a
 * workflow script. With `gated`, every task that joins while the run goes on waits until the test
 * calls `open()`, so a view can be read while those tasks run.
 */
export interface GrowingRepo {
	readonly repo: TestRepo;
	/** The `crew run` arguments after the goal. */
	readonly args: readonly string[];
	/** Lets the waiting tasks finish. */
	readonly open: () => void;
}

/** A shell line that waits for the file `go` when `gated`, then prints `done`. */
function waiter(gated: boolean): string {
	return gated ? "while [ ! -f go ]; do sleep 0.05; done; echo done" : "echo done";
}

function growing(repo: TestRepo, args: readonly string[]): GrowingRepo {
	return { repo, args, open: () => writeFileSync(join(repo.dir, "go"), "") };
}

/**
 * `work` then `review`, run twice under `--until`: the check passes once `work` ran twice; with
 * `gated`, the second pass's `work.2` waits.
 */
export function untilRepo(gated = false): GrowingRepo {
	const repo = new TestRepo();
	const second = gated ? 'if [ "$(wc -l < passes.txt)" -ge 2 ]; then while [ ! -f go ]; do sleep 0.05; done; fi; ' : "";
	repo.writeFile(
		".crew/agents/worker.md",
		`---\nname: worker\nruntime: command\ncommand: echo pass >> passes.txt; ${second}echo worked\n---\n`,
	);
	repo.writeFile(".crew/agents/glancer.md", "---\nname: glancer\nruntime: command\ncommand: echo looked\n---\n");
	repo.workflow("loop", [
		{ id: "work", role: "worker" },
		{ id: "review", role: "glancer", dependsOn: ["work"] },
	]);
	const check = 'if [ "$(wc -l < passes.txt)" -lt 2 ]; then echo "one pass so far"; exit 1; fi';
	return growing(repo, ["--workflow", "loop", "--until", check]);
}

/** The tasks of an `--until` run of `untilRepo`, in DAG order. */
export const UNTIL_ORDER = ["work", "review", "until.1", "work.2", "review.2", "until.2"];

/**
 * `assess` plans two phases (two tasks, then one) and `report` waits for it, so `report` comes to
 * wait for the plan's tasks, which join the run after it.
 */
export function plannerRepo(gated = false): GrowingRepo {
	const repo = new TestRepo();
	const plan = {
		phases: [
			{ name: "one", tasks: [1, 2].map((k) => ({ role: "worker", title: `part 1.${k}`, task: "do it" })) },
			{ name: "two", tasks: [{ role: "worker", title: "part 2.1", task: "do it" }] },
		],
	};
	const printed = `Here is the plan.\nADAPTIVE_PLAN_JSON_START\n${JSON.stringify(plan)}\nADAPTIVE_PLAN_JSON_END\n`;
	repo.writeFile("plan.txt", printed);
	repo.writeFile(".crew/agents/plotter.md", "---\nname: plotter\nruntime: command\ncommand: cat plan.txt\n---\n");
	repo.writeFile(".crew/agents/worker.md", `---\nname: worker\nruntime: command\ncommand: ${waiter(gated)}\n---\n`);
	repo.workflow("adaptive", [
		{ id: "assess", role: "plotter", extra: { expand: "plan" } },
		{ id: "report", role: "worker", dependsOn: ["assess"] },
	]);
	return growing(repo, ["--workflow", "adaptive"]);
}

/** The tasks of a run of `plannerRepo`, in DAG order. */
export const PLANNER_ORDER = ["assess", "assess.1.1", "assess.1.2", "assess.2.1", "report"];

/**
 * A script that reviews two packages at once in phase `review`, then tests in phase `test`;
 * with `gated`, the reviews wait.
 */
export function scriptRepo(gated = false): GrowingRepo {
	const repo = new TestRepo();
	repo.writeFile(
		".crew/agents/inspector.md",
		`---\nname: inspector\nruntime: command\ncommand: ${waiter(gated)}\n---\n`,
	);
	repo.writeFile(".crew/agents/tester.md", "---\nname: tester\nruntime: command\ncommand: echo PASS\n---\n");
	repo.writeFile(
		".crew/workflows/check.workflow.ts",
		`import type { WorkflowContext } from "crew/script";

export default async (ctx: WorkflowContext) => {
	ctx.phase("review");
	await ctx.fanOut(["a", "b"], (pkg) => ctx.agent({ role: "inspector", prompt: \`Review \${pkg}\` }));
	ctx.phase("test");
	return String(await ctx.agent({ role: "tester", prompt: "Run the tests" }));
};
`,
	);
	return growing(repo, ["--workflow", "check"]);
}
