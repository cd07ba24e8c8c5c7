/**
 * Summarises a V8 `.cpuprofile` (from `node --cpu-prof`) as the top functions by self time:
 * `node bench/cpu-top.mjs <file.cpuprofile> [count]`. Used to find the hot spots behind a figure.
 */
import { readFileSync } from "node:fs";

const [file, count = "25"] = process.argv.slice(2);
const profile = JSON.parse(readFileSync(file, "utf8"));
const byId = new Map(profile.nodes.map((node) => [node.id, node]));

// Each sample names the node that was on top of the stack; its time is the delta that follows it.
const selfUs = new Map();
for (let k = 0; k < profile.samples.length; k++) {
	const id = profile.samples[k];
	selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[k + 1] ?? 0));
}

const totals = new Map();
let all = 0;
for (const [id, us] of selfUs) {
	const { functionName, url, lineNumber } = byId.get(id).callFrame;
	const where = url ? `${url.replace(/^.*\/(dist|node_modules)\//, "$1/")}:${lineNumber + 1}` : "";
	const key = `${functionName || "(anonymous)"} ${where}`.trim();
	totals.set(key, (totals.get(key) ?? 0) + us);
	all += us;
}

console.log(`total sampled: ${(all / 1000).toFixed(0)} ms`);
for (const [key, us] of [...totals].sort((a, b) => b[1] - a[1]).slice(0, Number(count))) {
	console.log(`${(us / 1000).toFixed(1).padStart(9)} ms ${((100 * us) / all).toFixed(1).padStart(5)}%  ${key}`);
}
