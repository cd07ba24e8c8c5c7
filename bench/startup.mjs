/**
 * What a CLI command costs over starting Node at all: `node bench/startup.mjs [rounds]` (part of
 * `npm run bench`). Every command is spawned fresh, round by round interleaved with Node running an
 * empty ES module (the floor of any Node CLI), so a slow spell of the shared machine hits them all
 * alike. Prints each command's median, its ratio to the empty module's median and the target, and
 * writes them to bench/results/startup.json.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { arch, cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { dryRunProject, makeDag } from "./dags.mjs";
import { lastJsonLine, run, sourceVersion } from "./processes.mjs";
import { log, median, SMOKE } from "./stats.mjs";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const BIN = join(ROOT, "bin", "crew.js");
const ONE_RUN = join(ROOT, "bench", "one-run.mjs");
const RESULTS = join(ROOT, "bench", "results", "startup.json");
const ROUNDS = SMOKE ? 1 : Number(process.argv[2] ?? 25);
if (!Number.isInteger(ROUNDS) || ROUNDS < 1)
	throw new Error(`rounds must be a positive integer, not ${process.argv[2]}`);
/** The tasks of the large run whose status is read. */
const LARGE = SMOKE ? 100 : 10_000;

const temp = mkdtempSync(join(tmpdir(), "crew-bench-startup-"));

/** A finished run of an n-task chain made in process (bench/one-run.mjs); returns its project and id. */
async function finishedRun(name, n) {
	const dir = join(temp, name);
	mkdirSync(dir);
	const { stdout } = await run(process.execPath, [ONE_RUN, "chain", String(n), dir]);
	const result = lastJsonLine(stdout);
	if (result.status !== "completed") throw new Error(`${name}: run ended ${result.status}`);
	return { dir, runId: result.runId };
}

/** A project whose workflow `one` has a single step, for `crew run --runtime dry-run`. */
function oneStepProject() {
	const dir = join(temp, "one-step");
	dryRunProject(dir, "one", makeDag("chain", 1));
	return dir;
}

/** A trusted git repository whose command agent `noop` runs `true`: one delegation, nothing else. */
function noopProject() {
	const dir = join(temp, "noop");
	mkdirSync(join(dir, ".crew", "agents"), { recursive: true });
	writeFileSync(
		join(dir, ".crew", "agents", "noop.md"),
		'---\nname: noop\nruntime: command\ncommand: "true"\n---\nnoop\n',
	);
	execFileSync("git", ["init", "-q"], { cwd: dir });
	execFileSync(process.execPath, [BIN, "trust"], { cwd: dir, stdio: "ignore" });
	return dir;
}

const source = sourceVersion(ROOT);
log(
	`startup bench of ${source}: ${ROUNDS} rounds, ${cpus().length} CPUs, node ${process.version}; making fixtures in ${temp}`,
);
const small = await finishedRun("small", 10);
const large = await finishedRun("large", LARGE);
const oneStep = oneStepProject();
const noop = noopProject();
const empty = join(temp, "empty.mjs");
writeFileSync(empty, "");

const crew = (...args) => [BIN, ...args];
/** The commands timed, each with its target as a ratio to the empty module; null: the reference. */
const COMMANDS = [
	{ name: "node <empty .mjs>", args: [empty], cwd: temp, target: null },
	{ name: "crew --version", args: crew("--version"), cwd: temp, target: 1.05 },
	{ name: "crew status --json (10 tasks)", args: crew("status", small.runId, "--json"), cwd: small.dir, target: 1.25 },
	{ name: "crew runs --json", args: crew("runs", "--json"), cwd: small.dir, target: 1.3 },
	{ name: "crew events --json (10 tasks)", args: crew("events", small.runId, "--json"), cwd: small.dir, target: 1.3 },
	{
		name: `crew status --json (${LARGE.toLocaleString("en")} tasks)`,
		args: crew("status", large.runId, "--json"),
		cwd: large.dir,
		target: 1.75,
	},
	{
		name: "crew run, one step, dry-run",
		args: crew("run", "bench", "--workflow", "one", "--runtime", "dry-run", "--json"),
		cwd: oneStep,
		target: 1.5,
		check: (stdout) => {
			const { status } = lastJsonLine(stdout);
			if (status !== "completed") throw new Error(`crew run ended ${status}`);
		},
	},
	...["off", "workspace"].map((level) => ({
		name: `crew agent, \`true\`, sandbox ${level}`,
		args: crew("agent", "hi", "--agent", "noop", "--sandbox", level, "--json"),
		cwd: noop,
		target: level === "off" ? 2.0 : 2.3,
		check: (stdout) => {
			const { status } = lastJsonLine(stdout);
			if (status !== "completed") throw new Error(`crew agent ended ${status}`);
		},
	})),
];

const samples = COMMANDS.map(() => []);
for (let round = 0; round < ROUNDS; round++) {
	for (const [k, command] of COMMANDS.entries()) {
		const { ms, stdout } = await run(process.execPath, command.args, { cwd: command.cwd });
		command.check?.(stdout);
		samples[k].push(ms);
	}
	if ((round + 1) % 5 === 0) log(`round ${round + 1} of ${ROUNDS}`);
}

const floor = median(samples[0]);
const rows = COMMANDS.map((command, k) => {
	const ms = median(samples[k]);
	const ratio = ms / floor;
	return {
		command: command.name,
		medianMs: ms,
		ratio,
		target: command.target,
		met: command.target === null || ratio <= command.target,
	};
});

const lines = [
	"",
	`CLI start-up: medians of ${ROUNDS} interleaved rounds, each command a fresh process, as a ratio to node <empty .mjs>`,
	`  ${"command".padEnd(36)}${"median".padStart(10)}${"ratio".padStart(8)}   target`,
	...rows.map(
		(r) =>
			`  ${r.command.padEnd(36)}${`${r.medianMs.toFixed(1)} ms`.padStart(10)}${`${r.ratio.toFixed(2)}x`.padStart(8)}   ${r.target === null ? "reference" : `<= ${r.target.toFixed(2)}x${r.met ? "" : "  MISSED"}`}`,
	),
];
process.stdout.write(`${lines.join("\n")}\n`);

if (!SMOKE) {
	mkdirSync(join(ROOT, "bench", "results"), { recursive: true });
	const results = {
		date: new Date().toISOString(),
		source,
		machine: { node: process.version, arch: arch(), cpus: cpus().length, cpu: cpus()[0]?.model ?? "" },
		rounds: ROUNDS,
		rows,
	};
	writeFileSync(RESULTS, `${JSON.stringify(results, null, "\t")}\n`);
	log(`results written to ${RESULTS}`);
}
rmSync(temp, { recursive: true, force: true });
