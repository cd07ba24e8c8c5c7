/** The median of a list of numbers. */
export function median(values) {
	const sorted = [...values].sort((a, b) => a - b);
	const mid = sorted.length >> 1;
	return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Progress goes to stderr, so stdout holds only the results. */
export function log(message) {
	process.stderr.write(`${message}\n`);
}

/**
 * `CREW_BENCH_SMOKE=1`: a bench runs once at its smallest sizes, to show that it still works. It
 * then writes no results and holds no figure to its target; it still fails when anything does.
 */
export const SMOKE = process.env.CREW_BENCH_SMOKE === "1";
