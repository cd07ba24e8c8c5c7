/**
 * `node bench/status-reads.mjs <dir> <runId> <count>`: times what `crew status --json` does in
 * process (open a read-only reader, build the JSON, close) `count` times in a fresh process, so
 * the bench's own heap does not weigh on it, and prints the median in ms.
 */
import { projectAt, RunReader } from "../dist/index.js";

const [dir, runId, count = "20"] = process.argv.slice(2);
const times = [];
for (let k = 0; k < Number(count); k++) {
	const start = performance.now();
	const reader = new RunReader(projectAt(dir));
	reader.statusJson(runId);
	reader.close();
	times.push(performance.now() - start);
}
times.sort((a, b) => a - b);
process.stdout.write(`${times[times.length >> 1]}\n`);
