import { execFile, execFileSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "vitest";
import { testCrew } from "../../engine/engine-helpers.js";
import { cancelLiveRuns, crew, crewProcess, exitOf, isAlive, ROOT, TestRepo, waitFor } from "../../helpers.js";

const PLANT = join(ROOT, "test", "fixtures", "planted-attempt.mjs");

/** Whether this machine can give a test a pid namespace of its own, where nothing outside can be hit. */
function pidNamespaces(): boolean {
	try {
		execFileSync("unshare", ["--pid", "--fork", "--mount-proc", "true"], { stdio: "ignore" });
		return true;
	} catch {
		return false;
	}
}

const isolated = pidNamespaces();
if (!isolated) console.warn("skipping: `unshare --pid --fork --mount-proc` is not available (util-linux, root)");

interface Outcome {
	readonly code: number;
	readonly stdout: string;
	readonly stderr: string;
	readonly survived: readonly boolean[];
}

/** A queued run of one task, whose planted attempt row names `plant`, then `command` in a namespace of its own. */
async function plantedRun(plant: string, command: (runId: string) => string[]): Promise<Outcome> {
	const repo = new TestRepo().agent("worker");
	repo.workflow("one", [{ id: "a" }]);
	const crew = testCrew(repo);
	let runId: string;
	try {
		runId = crew.create(await crew.plan({ goal: "g", workflow: "one" }));
	} finally {
		crew.close();
	}
	return new Promise((resolve, reject) => {
		execFile(
			"unshare",
			["--pid", "--fork", "--mount-proc", "setsid", process.execPath, PLANT, repo.dir, runId, plant, ...command(runId)],
			{ timeout: 90_000 },
			(error, stdout, stderr) => {
				if (error) reject(new Error(`${error.message}\n${stderr}`));
				else resolve(JSON.parse(stdout.trim().split("\n").at(-1) ?? "{}"));
			},
		);
	});
}

const plants = ["pgid 1", "pid 1", "no start time", "another start time"];
const commands: [string, (runId: string) => string[]][] = [
	["crew cancel", (runId) => ["cancel", runId]],
	["crew resume", (runId) => ["resume", runId]],
	["crew reconcile --fix", () => ["reconcile", "--fix"]],
];

for (const [name, command] of commands) {
	test.skipIf(!isolated)(
		`${name} signals no process an attempt row names unless crew started it (pid or group 1, no or another start time)`,
		async () => {
			const seen = [];
			for (const plant of plants) {
				const outcome = await plantedRun(plant, command);
				seen.push({ plant, survived: outcome.survived, said: outcome.stdout + outcome.stderr });
			}
			const all = [true, true];
			expect(
				seen.map(({ plant, survived }) => ({ plant, survived })),
				JSON.stringify(seen),
			).toEqual(plants.map((plant) => ({ plant, survived: all })));
		},
		120_000,
	);
}

test("a helper an agent left in a session of its own is still ended when its runner was killed and the run is cancelled", async () => {
	const repo = new TestRepo();
	const gates = mkdtempSync(join(tmpdir(), "crew-gates-"));
	repo.agent("worker", `--escape --gate ${gates}`);
	repo.workflow("one", [{ id: "a" }]);
	const runner = crewProcess(repo.dir, ["run", "g", "--workflow", "one"]);
	try {
		const start = await waitFor("the worker and its helper", () => repo.starts("a")[0]);
		runner.kill("SIGKILL");
		await exitOf(runner);
		expect(isAlive(start.escaped ?? 0)).toBe(true);
		const runId = (JSON.parse((await crew(repo.dir, ["runs", "--json"])).stdout) as { id: string }[])[0]?.id;
		expect(await crew(repo.dir, ["cancel", runId as string])).toMatchObject({ code: 0 });
		expect(isAlive(start.pid)).toBe(false);
		expect(isAlive(start.escaped ?? 0)).toBe(false);
	} finally {
		runner.kill("SIGKILL");
		await cancelLiveRuns(repo.dir);
	}
});
