// @slow: 50 runs, each killed -9 at random moments and resumed to completion
import { setTimeout as sleep } from "node:timers/promises";
import { test } from "vitest";
import { prng } from "../../bench/prng.mjs";
import { groupsCarrying } from "../../src/runtimes/process/process-group.js";
import { cancelLiveRuns, crewProcess, exitOf, isAlive, read, TestRepo, waitFor } from "../helpers.js";
import { tally } from "./tally.js";

const RUNS = 50;
const TASKS = 20;

/** Agents by how long a task takes: mixed durations from 20 ms to 600 ms. */
const PACES: Readonly<Record<string, number>> = { brisk: 20, steady: 120, slow: 300, slower: 600 };

/** A 20-task layered DAG: four layers of five, each task on one or two of the layer before. */
function dag(random: () => number): { id: string; role: string; dependsOn: string[] }[] {
	const roles = Object.keys(PACES);
	const steps: { id: string; role: string; dependsOn: string[] }[] = [];
	for (let i = 0; i < TASKS; i++) {
		const layer = Math.floor(i / 5);
		const before = steps.filter((_, k) => Math.floor(k / 5) === layer - 1).map((s) => s.id);
		const deps = new Set<string>();
		for (let d = 0; d < 1 + Math.floor(random() * 2) && before.length > 0; d++) {
			deps.add(before[Math.floor(random() * before.length)] as string);
		}
		steps.push({ id: `t${i}`, role: roles[Math.floor(random() * roles.length)] as string, dependsOn: [...deps] });
	}
	return steps;
}

// A few runs at a time: they mostly wait on their workers, and the machine has two cores.
test.concurrent.for(Array.from({ length: RUNS }, (_, i) => i + 1))(
	"run %i: kill -9 of the runner at random moments, then resume: it completes, nothing completed runs again, no process is left",
	async (seed, { expect }) => {
		const random = prng(seed);
		const repo = new TestRepo();
		for (const [role, ms] of Object.entries(PACES)) repo.agent(role, `--sleep ${ms}`);
		repo.workflow("dag", dag(random));
		let runner = crewProcess(repo.dir, ["run", `faults ${seed}`, "--workflow", "dag", "--concurrency", "4"]);
		const runners = [runner];
		try {
			const runId = await waitFor("the run recorded", () => read(repo.dir, (r) => r.repo.runs()[0]?.id));
			const kills: { at: number; completed: Set<string> }[] = [];
			// One to three kills, each after 100-1500 ms of running: early, mid-run, or near the end.
			const planned = 1 + Math.floor(random() * 3);
			for (let k = 0; k < planned; k++) {
				await Promise.race([sleep(100 + Math.floor(random() * 1400)), exitOf(runner)]);
				if (runner.exitCode !== null) break;
				runner.kill("SIGKILL");
				await exitOf(runner);
				const at = Date.now();
				const completed = read(repo.dir, (r) =>
					r
						.status(runId)
						.tasks.filter((t) => t.status === "completed")
						.map((t) => t.id),
				);
				kills.push({ at, completed: new Set(completed) });
				runner = crewProcess(repo.dir, ["resume", runId]);
				runners.push(runner);
			}
			await exitOf(runner);
			tally({ runnersKilled: kills.length });

			const final = read(repo.dir, (r) => r.status(runId));
			expect(final.run.status).toBe("completed");
			expect(final.tasks.filter((t) => t.status === "completed")).toHaveLength(TASKS);
			const starts = repo.starts();
			const reruns = kills.flatMap(({ at, completed }) =>
				starts.filter((s) => completed.has(s.task) && s.time > at).map((s) => s.task),
			);
			const left =
				groupsCarrying({ CREW_RUN_ID: runId }).length + runners.filter((r) => r.pid && isAlive(r.pid)).length;
			tally({ runsCompleted: 1, tasksRerunAfterCompletion: reruns.length, processesLeft: left });
			expect(reruns).toEqual([]);
			expect(left).toBe(0);
			// Every task ran to completion at least once, and each completed exactly once in the store.
			for (const t of final.tasks) expect(starts.some((s) => s.task === t.id)).toBe(true);
		} finally {
			for (const r of runners) r.kill("SIGKILL");
			await cancelLiveRuns(repo.dir);
		}
	},
);
