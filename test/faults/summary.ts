import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Tally } from "./tally.js";

const RESULTS = fileURLToPath(new URL("../../test-results/", import.meta.url));
const TALLY = join(RESULTS, "faults-tally.jsonl");

/** Vitest global setup of the fault suite: a fresh tally before, the suite's own summary after. */
export function setup(): void {
	mkdirSync(RESULTS, { recursive: true });
	rmSync(TALLY, { force: true });
	process.env.CREW_FAULTS_TALLY = TALLY;
}

export function teardown(): void {
	const sum: Tally = {
		runnersKilled: 0,
		runsCompleted: 0,
		tasksRerunAfterCompletion: 0,
		processesLeft: 0,
		signalsSent: 0,
		cleanCancels: 0,
		faultyWorkers: 0,
		faultyWorkersHandled: 0,
		badInputsTried: 0,
		badInputsRejected: 0,
		historyRuns: 0,
		historyMismatches: 0,
	};
	const lines = existsSync(TALLY) ? readFileSync(TALLY, "utf8").split("\n").filter(Boolean) : [];
	for (const line of lines) {
		for (const [key, value] of Object.entries(JSON.parse(line) as Partial<Tally>)) {
			sum[key as keyof Tally] += value ?? 0;
		}
	}
	writeFileSync(join(RESULTS, "faults-summary.json"), `${JSON.stringify(sum, null, "\t")}\n`);
	const row = (label: string, value: string) => `  ${label.padEnd(58)}${value}`;
	process.stdout.write(
		[
			"",
			"crew fault suite summary",
			row("runners killed with SIGKILL mid-run", String(sum.runnersKilled)),
			row("runs completed after kills and resumes", String(sum.runsCompleted)),
			row("tasks run again after the store had them completed", `${sum.tasksRerunAfterCompletion} (must be 0)`),
			row("processes left after runs ended", `${sum.processesLeft} (must be 0)`),
			row("SIGTERM/SIGINT to a foreground runner: cancelled cleanly", `${sum.cleanCancels} of ${sum.signalsSent}`),
			row("misbehaving workers handled", `${sum.faultyWorkersHandled} of ${sum.faultyWorkers}`),
			row("bad inputs rejected with a clear error", `${sum.badInputsRejected} of ${sum.badInputsTried}`),
			row(
				`random runs replayed, diffed and forked (${sum.historyRuns}): mismatches`,
				`${sum.historyMismatches} (must be 0)`,
			),
			"",
		].join("\n"),
	);
}
