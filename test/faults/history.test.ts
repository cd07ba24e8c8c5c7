// @slow: 150 random runs, each with faults at random moments, replayed against their records
import { setTimeout as sleep } from "node:timers/promises";
import { test } from "vitest";
import { prng } from "../../bench/prng.mjs";
import { compareRuns } from "../../src/engine/history/diff.js";
import { runWorkflow, testCrew } from "../engine/engine-helpers.js";
import { crew, crewProcess, exitOf, read, type StepDef, TestRepo, waitFor } from "../helpers.js";
import { tally } from "./tally.js";

/**
 * History says only what happened, tried on random runs: each seed makes a random DAG of command
 * agents, some failing (some only at first, with retries to spare), and runs it: one run in three
 * is killed -9 at a random moment and resumed, one in six cancelled. Then the run's replay makes the same attempts of
 * each task and ends each task and the run as they ended; the run diffed with itself differs in
 * nothing; and a fork from a random task reuses exactly the tasks that completed outside what that
 * task leads to.
 */
const RUNS = Number(process.env.CREW_HISTORY_RUNS ?? 150);

/** Up to eight tasks, each on some of those before it; one in seven fails, one in five at first only. */
function randomSteps(random: () => number): StepDef[] {
	const steps: StepDef[] = [];
	const size = 3 + Math.floor(random() * 6);
	for (let i = 0; i < size; i++) {
		const dependsOn = steps.map((s) => s.id).filter(() => random() < 0.35);
		const pick = random();
		const role = pick < 0.15 ? "bad" : pick < 0.35 ? "flaky" : pick < 0.6 ? "slow" : "ok";
		const retries = String(Math.floor(random() * 3));
		steps.push({ id: `t${i}`, role, ...(dependsOn.length > 0 ? { dependsOn } : {}), extra: { retries } });
	}
	return steps;
}

/** The tasks `from` leads to, itself included. */
function downstream(steps: readonly StepDef[], from: string): Set<string> {
	const reached = new Set([from]);
	for (const step of steps) if (step.dependsOn?.some((d) => reached.has(d))) reached.add(step.id);
	return reached;
}

/** A run as history tells it: its status and each task's status and attempts. */
function told(dir: string, runId: string): { status: string; tasks: string[] } {
	const shown = read(dir, (r) => r.status(runId));
	return { status: shown.run.status, tasks: shown.tasks.map((t) => `${t.id} ${t.status} x${t.attempts}`) };
}

// A few runs at a time: they mostly wait on their agents, and the machine has two cores.
test.concurrent.for(Array.from({ length: RUNS }, (_, i) => i + 1))(
	"history of random run %i: its replay makes the same attempts and ends as it did, it differs from itself in nothing, a fork reuses what it should",
	async (seed, { expect }) => {
		const random = prng(seed);
		const repo = new TestRepo();
		repo
			.agent("ok")
			.agent("slow", "--sleep 150")
			.agent("flaky", "--fail-first 1")
			.commandAgent("bad", `node -e "console.log('no'); process.exit(3)"`);
		const steps = randomSteps(random);
		repo.workflow("random", steps);
		const mismatches: string[] = [];
		const differ = (what: string, recorded: unknown, said: unknown) => {
			if (JSON.stringify(recorded) !== JSON.stringify(said))
				mismatches.push(`${what}: recorded ${JSON.stringify(recorded)}, said ${JSON.stringify(said)}`);
		};

		const concurrency = 1 + Math.floor(random() * 3);
		const args = ["run", `history ${seed}`, "--workflow", "random", "--concurrency", String(concurrency)];
		let runId: string;
		if (seed % 3 === 0 || seed % 6 === 1) {
			const runner = crewProcess(repo.dir, args);
			runId = await waitFor("the run recorded", () => read(repo.dir, (r) => r.repo.runs()[0]?.id));
			await Promise.race([sleep(100 + Math.floor(random() * 500)), exitOf(runner)]);
			if (seed % 3 === 0) {
				runner.kill("SIGKILL");
				await exitOf(runner);
				await crew(repo.dir, ["resume", runId]);
			} else {
				await crew(repo.dir, ["cancel", runId]);
				await exitOf(runner);
			}
		} else runId = (await runWorkflow(repo, { workflow: "random", concurrency })).runId;
		const recorded = told(repo.dir, runId);
		expect(recorded.status).not.toBe("running");

		// What history says is the engine's to say: asked in this process, as crew replay, diff and fork --dry ask it.
		const engine = testCrew(repo);
		try {
			const replayId = await engine.replay(runId, false, {});
			await engine.execute(replayId);
			differ("replay", recorded, told(repo.dir, replayId));

			const self = read(repo.dir, (reader) => compareRuns(reader, runId, runId));
			differ(
				"the run diffed with itself",
				[],
				self.tasks.filter((t) => t.changed.length > 0).map((t) => t.taskId),
			);

			const from = steps[Math.floor(random() * steps.length)]?.id as string;
			const fork = await engine.planFork({ runId, from: [from], now: {} });
			const again = downstream(steps, from);
			const completed = new Set(recorded.tasks.filter((t) => t.includes(" completed ")).map((t) => t.split(" ")[0]));
			const reusable = steps.map((s) => s.id).filter((id) => !again.has(id) && completed.has(id));
			differ(
				`fork --from ${from}`,
				reusable,
				fork.decision.reused.map((t) => t.id),
			);
		} finally {
			engine.close();
		}

		tally({ historyRuns: 1, historyMismatches: mismatches.length });
		expect(mismatches, `seed ${seed}: ${repo.dir}`).toEqual([]);
	},
);
