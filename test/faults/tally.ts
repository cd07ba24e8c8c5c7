import { appendFileSync } from "node:fs";

/** What the fault suite counts across its tests; the summary sums every test's tally. */
export interface Tally {
	/** Runners killed with SIGKILL mid-run. */
	runnersKilled: number;
	/** Runs that ended completed after their kills and resumes. */
	runsCompleted: number;
	/** Starts of tasks the store had recorded completed before a kill: must be 0. */
	tasksRerunAfterCompletion: number;
	/** Processes of a run still alive after it ended: must be 0. */
	processesLeft: number;
	/** Foreground runners sent SIGTERM or SIGINT, and those that cancelled cleanly. */
	signalsSent: number;
	cleanCancels: number;
	/** Misbehaving workers run, and those crew handled as expected. */
	faultyWorkers: number;
	faultyWorkersHandled: number;
	/** Bad inputs tried, and those rejected with a clear error and nothing written outside `.crew/`. */
	badInputsTried: number;
	badInputsRejected: number;
	/** Random runs replayed, diffed with themselves and forked (history.test.ts), and what they said that did not happen: must be 0. */
	historyRuns: number;
	historyMismatches: number;
}

/** Adds to the suite's tally (a JSON-lines file the summary reads when the suite ends). */
export function tally(counts: Partial<Tally>): void {
	const file = process.env.CREW_FAULTS_TALLY;
	if (file) appendFileSync(file, `${JSON.stringify(counts)}\n`);
}
