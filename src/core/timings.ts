// Where one command's time goes, phase by phase, when the user sets CREW_TIMINGS: for "why is this slow".

/** The prefix of crew's phases among the process's performance measures. */
const PREFIX = "crew:";

/**
 * Past this many phases a process stops recording: a long-lived `crew serve` or runner with
 * CREW_TIMINGS set must not grow without end.
 */
const MAX_PHASES = 5000;

/** Whether phases are recorded: CREW_TIMINGS set to anything but empty or `0`. */
export function timingsOn(env: Readonly<Record<string, string | undefined>> = process.env): boolean {
	const value = env.CREW_TIMINGS;
	return value !== undefined && value !== "" && value !== "0";
}

/** Records that phase `name` ran from `start` (a `performance.now()` reading) until now. */
export function phaseSince(name: string, start: number): void {
	if (!timingsOn() || performance.getEntriesByType("measure").length >= MAX_PHASES) return;
	performance.measure(`${PREFIX}${name}`, { start, end: performance.now() });
}

/**
 * Runs `fn` as phase `name`: when timings are on, its time (until its promise settles, for one that
 * returns a promise) is recorded; otherwise it just runs.
 */
export function timed<T>(name: string, fn: () => T): T {
	if (!timingsOn()) return fn();
	const start = performance.now();
	let value: T;
	try {
		value = fn();
	} catch (error) {
		phaseSince(name, start);
		throw error;
	}
	if (value instanceof Promise) return value.finally(() => phaseSince(name, start)) as T;
	phaseSince(name, start);
	return value;
}

/**
 * The phases recorded in this process, one line each, by start: when it began and how long it took,
 * in ms from Node's own start, a phase inside another indented below it. Node's start-up comes first.
 */
export function timingsReport(): string {
	const phases = performance
		.getEntriesByType("measure")
		.filter((entry) => entry.name.startsWith(PREFIX))
		.map((entry) => ({
			name: entry.name.slice(PREFIX.length),
			start: entry.startTime,
			end: entry.startTime + entry.duration,
		}))
		.sort((a, b) => a.start - b.start || b.end - a.end);
	const open: { end: number }[] = [];
	const lines = phases.map((phase) => {
		while (open.length > 0 && (open.at(-1)?.end ?? 0) < phase.end) open.pop();
		const line = `${ms(phase.start)}${ms(phase.end - phase.start)}  ${"  ".repeat(open.length)}${phase.name}`;
		open.push(phase);
		return line;
	});
	const boot = performance.nodeTiming.bootstrapComplete;
	return [
		`crew: timings in ms (CREW_TIMINGS), pid ${process.pid}:`,
		`   start     took  phase`,
		`${ms(0)}${ms(boot)}  Node's own start-up`,
		...lines,
		`${ms(0)}${ms(performance.now())}  in all, until this report`,
	].join("\n");
}

function ms(value: number): string {
	return value.toFixed(1).padStart(8);
}
