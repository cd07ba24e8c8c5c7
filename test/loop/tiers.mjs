// Runs the test tiers, prints each one's wall and CPU time and slowest files, and warns where they grew.

/**
 * `node test/loop/tiers.mjs` (what `npm test` runs after the build): the suite, the fault and attack
 * suites, the Node 22 tier and every bench at its smallest size, the light ones beside each other;
 * `node test/loop/tiers.mjs quick [vitest arguments]` (`npm run test:quick`): the quick tier. Every
 * tier runs, whatever the one before it did; the exit code is the first failure's.
 *
 * A tier's CPU time is what its process and the descendants it waited for spent
 * (test/loop/counted.mjs): a process that outlives its parent, as a detached runner does, is not
 * counted. How busy the machine's CPUs were meanwhile is printed beside it, so a slow spell caused
 * by something else shows as such. Each vitest tier's files report their own times and failures
 * (test/loop/outcomes.ts). The figures are compared with test/loop/figures.json, those of the last
 * green run someone committed: a tier that took 20% more wall or CPU time is warned of loudly, with
 * the files that grew most; a file over 30 s that names no reason (`// @slow: <why>` in the file) is
 * warned of too. Warnings never fail the run: the machine is shared and noisy, and a red build for
 * a slow spell would teach everyone to ignore it. What failed is printed last, where a reader of the
 * output's end (CI's view of it) sees it: each failed test with its error's first line, or the end
 * of a tier's output when it is not vitest. When every tier passed, figures.json is rewritten
 * with this run's figures; committing it makes them the next run's baseline.
 */
import { execFileSync, spawn } from "node:child_process";
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { compare, failed as failures, slowest } from "./compare.mjs";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const FIGURES = join(ROOT, "test", "loop", "figures.json");
const RESULTS = join(ROOT, "test-results");
const VITEST = join(ROOT, "node_modules", "vitest", "vitest.mjs");
const COUNTED = join(ROOT, "test", "loop", "counted.mjs");
/** How many of its last lines are printed again for a failed tier that reports no failures of its own. */
const TAIL = 30;
/** Clock ticks per second, the unit of /proc's CPU times. */
const TICKS = Number(execFileSync("getconf", ["CLK_TCK"]).toString()) || 100;

const [group = "full", ...extra] = process.argv.slice(2);
const node = (name, script, vitest = false) => ({ name, args: [script], vitest });
/**
 * Each group's stages, in order; a stage's tiers run at once. A tier has a name, what runs, and
 * whether it is vitest (and so reports its files).
 */
const GROUPS = {
	full: [
		[{ name: "suite", args: [VITEST, "run"], vitest: true }],
		[{ name: "faults", args: [VITEST, "run", "--config", "vitest.faults.config.ts"], vitest: true }],
		// Each of these keeps half a core busy or less: beside each other they fill the two. The binding
		// is built apart from node_modules' own, which the other two load meanwhile.
		[
			{ name: "attacks", args: [VITEST, "run", "--config", "vitest.attacks.config.ts"], vitest: true },
			{ name: "honest work", args: [VITEST, "run", "--config", "vitest.honest.config.ts"], vitest: true },
			node("bench smoke", join(ROOT, "bench", "smoke.mjs")),
			node("node22 binding", join(ROOT, "test", "setup", "node22-binding.mjs")),
		],
		// Alone: it puts the Node 22 binding in node_modules while it runs.
		[node("node22", join(ROOT, "test", "node22.mjs"), true)],
	],
	quick: [[{ name: "quick", args: [VITEST, "run", ...extra], vitest: true, env: { CREW_TEST_TIER: "quick" } }]],
};
const stages = GROUPS[group];
if (!stages)
	throw new Error(`test/loop/tiers.mjs: no group '${group}'; expected one of ${Object.keys(GROUPS).join(", ")}`);
if (group === "full" && extra.length > 0)
	throw new Error(`test/loop/tiers.mjs: the full group takes no arguments, not ${extra.join(" ")}`);

/** The machine's CPU time so far, busy, waiting on disks and in all, in clock ticks (the first line of /proc/stat). */
function machineTicks() {
	const ticks = readFileSync("/proc/stat", "utf8").split("\n")[0]?.trim().split(/\s+/).slice(1).map(Number) ?? [];
	const [user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0] = ticks;
	const busy = user + nice + system + irq + softirq + steal;
	return { busy, iowait, all: busy + idle + iowait };
}

/**
 * Runs one tier to its end: its exit code, wall and CPU seconds (test/loop/counted.mjs), and its
 * files' seconds. `log`: the file its output goes to, when it runs beside others; else the terminal.
 */
async function runTier(tier, log) {
	const file = resultsOf(tier);
	const [outcomes, cpuFile] = [`${file}-outcomes.json`, `${file}-cpu`];
	// A file left by an earlier run would pass for this one's if this tier wrote none.
	for (const stale of [outcomes, cpuFile]) rmSync(stale, { force: true });
	const env = { ...process.env, ...tier.env, ...(tier.vitest ? { CREW_TEST_OUTCOMES: outcomes } : {}) };
	const output = log ? openSync(log, "w") : "inherit";
	const started = performance.now();
	const code = await new Promise((resolve, reject) => {
		const args = [COUNTED, cpuFile, process.execPath, ...tier.args];
		const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ["ignore", output, output] });
		child.once("error", reject);
		child.once("exit", (status, signal) => resolve(status ?? (signal ? 1 : 0)));
	});
	if (typeof output === "number") closeSync(output);
	const wall = round((performance.now() - started) / 1000);
	const { files = {}, failures } =
		tier.vitest && existsSync(outcomes) ? JSON.parse(readFileSync(outcomes, "utf8")) : {};
	const cpu = existsSync(cpuFile) ? round(Number(readFileSync(cpuFile, "utf8"))) : 0;
	const tail = code !== 0 && !failures && log ? readFileSync(log, "utf8").trimEnd().split("\n").slice(-TAIL) : [];
	return { name: tier.name, code, wall, cpu, files, failures: failures ?? [], tail };
}

/**
 * Runs a stage's tiers at once, each to its end, and adds to each how busy the machine's CPUs were
 * meanwhile (its tiers' own work and anything else running), in percent and CPU seconds. Beside
 * others, a tier's output is kept in test-results/ and printed whole when the stage ends.
 */
async function runStage(stage) {
	const before = machineTicks();
	const logs = stage.map((tier) => (stage.length > 1 ? `${resultsOf(tier)}.log` : undefined));
	const ran = await Promise.all(stage.map((tier, i) => runTier(tier, logs[i])));
	for (const log of logs) if (log) process.stdout.write(readFileSync(log, "utf8"));
	const after = machineTicks();
	const share = (key) => Math.round(((after[key] - before[key]) / Math.max(1, after.all - before.all)) * 100);
	const machine = {
		busy: share("busy"),
		machineCpu: round((after.busy - before.busy) / TICKS),
		iowait: share("iowait"),
	};
	return ran.map((tier) => ({ ...tier, ...machine }));
}

const round = (seconds) => Math.round(seconds * 10) / 10;
/** Where a tier's files in test-results/ begin: its name, one word. */
const resultsOf = (tier) => join(RESULTS, tier.name.replace(/\W+/g, "-"));

mkdirSync(RESULTS, { recursive: true });
const figures = existsSync(FIGURES) ? JSON.parse(readFileSync(FIGURES, "utf8")) : {};
const ran = [];
for (const stage of stages) {
	const tiers = await runStage(stage);
	ran.push(...tiers);
	const beside = (name) => stage.filter((tier) => tier.name !== name).map((tier) => tier.name);
	for (const { name, wall, cpu, busy, machineCpu, iowait } of tiers) {
		const others = beside(name);
		process.stdout.write(
			`tests: ${name} took ${wall} s (CPU ${cpu} s${others.length > 0 ? `, beside ${others.join(" and ")}` : ""}; ` +
				`the machine's CPUs ${busy}% busy, ${machineCpu} CPU-s, ${iowait}% waiting on disks)\n`,
		);
	}
}

const reasons = (file) => {
	const text = existsSync(join(ROOT, file)) ? readFileSync(join(ROOT, file), "utf8") : "";
	return /\/\/ @slow: (.+)/.exec(text)?.[1];
};
process.stdout.write(`\n${slowest(ran, reasons)}\n`);
const warnings = compare(ran, figures[group], reasons, extra.length > 0);
if (warnings.length > 0) process.stdout.write(`\n${warnings.join("\n")}\n`);

const failed = ran.find((tier) => tier.code !== 0);
if (failed) process.stdout.write(`\n${failures(ran).join("\n")}\n`);
if (!failed && extra.length === 0) {
	const commit = execFileSync("git", ["describe", "--always", "--dirty"], { cwd: ROOT }).toString().trim();
	figures[group] = {
		commit,
		date: new Date().toISOString().slice(0, 10),
		tiers: Object.fromEntries(ran.map(({ name, code, failures, tail, ...measured }) => [name, measured])),
	};
	writeFileSync(FIGURES, `${JSON.stringify(figures, null, "\t")}\n`);
	process.stdout.write(
		`\ntests: these figures are now test/loop/figures.json's; commit it to make them the baseline\n`,
	);
}
process.exitCode = failed ? failed.code : 0;
