/**
 * Every bench of `npm run bench`, in its order, each at its smallest size (`CREW_BENCH_SMOKE=1`):
 * `node bench/smoke.mjs`, or `npm run bench:smoke`, which builds dist/ first. Stops at the first
 * bench that fails, exiting non-zero; prints each bench's wall time.
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { log } from "./stats.mjs";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
// The list is package.json's `bench` script, so a bench added there is smoke-tested too.
const { scripts } = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
const BENCHES = [...scripts.bench.matchAll(/node (bench\/\S+\.mjs)/g)].map((match) => match[1]);
if (BENCHES.length === 0) throw new Error("package.json's bench script runs no bench/*.mjs");

/** Runs `bench` to its end; resolves with its exit code, or the signal that ended it. */
function smoke(bench) {
	return new Promise((resolve, reject) => {
		const child = spawn(process.execPath, [bench], {
			cwd: ROOT,
			stdio: ["ignore", "inherit", "inherit"],
			env: { ...process.env, CREW_BENCH_SMOKE: "1" },
		});
		child.on("error", reject);
		child.on("exit", (code, signal) => resolve(code ?? signal));
	});
}

const times = [];
for (const bench of BENCHES) {
	log(`== ${bench}`);
	const start = performance.now();
	const ended = await smoke(bench);
	const seconds = (performance.now() - start) / 1000;
	times.push(`${bench.padEnd(28)}${seconds.toFixed(1).padStart(7)} s${ended === 0 ? "" : `  FAILED (${ended})`}`);
	if (ended !== 0) {
		process.exitCode = 1;
		break;
	}
}
process.stdout.write(`\nbench smoke, wall time of each:\n${times.map((line) => `  ${line}`).join("\n")}\n`);
