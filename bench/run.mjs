/**
 * crew's benchmark: scheduler overhead per task in process and through the CLI, peak RSS, and the
 * cost of `crew status --json` on a 10,000-task run. Prints medians next to their targets and
 * writes them to bench/results/latest.json. Run with `npm run bench` (builds dist/ first).
 *
 * Every run gets a fresh project in a temp dir and a fresh process: runs then share no warmed-up
 * heap or page cache of a previous run's database, and each process's peak RSS is that run's own.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { arch, cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { dryRunProject, makeDag, SHAPES } from "./dags.mjs";
import { lastJsonLine, run, sourceVersion } from "./processes.mjs";
import { log, median, SMOKE } from "./stats.mjs";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const BIN = join(ROOT, "bin", "crew.js");
const ONE_RUN = join(ROOT, "bench", "one-run.mjs");
const STATUS_READS = join(ROOT, "bench", "status-reads.mjs");
const RESULTS = join(ROOT, "bench", "results", "latest.json");

const CONCURRENCY = 8;
/** Runs per size: small runs are noisy and cheap, 10,000-task runs take ~10 s each on 2 cores. */
const REPEATS = SMOKE ? { 100: 1 } : { 100: 5, 1000: 3, 10000: 2 };
const SIZES = SMOKE ? [100] : [100, 1000, 10000];
/** The tasks of the run whose status is read. */
const STATUS_TASKS = SMOKE ? 100 : 10000;
const STATUS_READS_IN_PROCESS = SMOKE ? 1 : 20;
const STATUS_READS_CLI = SMOKE ? 1 : 10;

const TARGET = {
	perTaskMs: 1,
	rssMb: 300,
	statusInProcessMs: 20,
	statusCliMs: 150,
};

/**
 * Loaded with `--import` into CLI runs: writes the process's peak RSS (KB) to a file on exit.
 * Node reports only its own rusage, not a child's, so the child has to tell.
 */
const RSS_ON_EXIT = `data:text/javascript,${encodeURIComponent(
	'import { writeFileSync } from "node:fs"; process.on("exit", () => writeFileSync(process.env.CREW_BENCH_RSS_FILE, String(process.resourceUsage().maxRSS)));',
)}`;

/**
 * Projects are deleted only when the bench ends (they take ~2 GB until then). On ext4 without a
 * journal, as on the VM this was written on, creating a file scans past inodes deleted in the last
 * few minutes, so deleting each 10,000-task run's 20,000 files and 10,000 folders right after it
 * made the next runs up to 2x slower. TMPDIR picks the file system.
 */
const projects = [];
function tempProject() {
	const dir = mkdtempSync(join(tmpdir(), "crew-bench-"));
	projects.push(dir);
	return dir;
}

/** One in-process run (bench/one-run.mjs) in its own process; returns what the child measured. */
async function inProcessRun(shape, n, dir) {
	const { stdout } = await run(process.execPath, [ONE_RUN, shape, String(n), dir, String(CONCURRENCY)]);
	const result = lastJsonLine(stdout);
	if (result.status !== "completed") throw new Error(`${shape} ${n}: run ended ${result.status}`);
	return result;
}

/** One `crew run --json` on the shape's workflow, timed from spawn to exit, with its peak RSS. */
async function cliRun(shape, n, dir) {
	dryRunProject(dir, "bench", makeDag(shape, n));
	const rssFile = join(dir, "rss.txt");
	const args = ["--import", RSS_ON_EXIT, BIN, "run", "bench", "--workflow", "bench"];
	args.push("--runtime", "dry-run", "--concurrency", String(CONCURRENCY), "--json");
	const { ms, stdout } = await run(process.execPath, args, {
		cwd: dir,
		env: { ...process.env, CREW_BENCH_RSS_FILE: rssFile },
	});
	const result = lastJsonLine(stdout);
	if (result.status !== "completed") throw new Error(`cli ${shape} ${n}: run ended ${result.status}`);
	return { ms, maxRssKb: Number(readFileSync(rssFile, "utf8")) };
}

/** Per-task overhead of runs of every shape and size; `measure` runs one and returns { ms, maxRssKb }. */
async function overheadTable(label, measure) {
	const rows = [];
	for (const n of SIZES) {
		for (const shape of SHAPES) {
			const samples = [];
			for (let k = 0; k < REPEATS[n]; k++) {
				samples.push(await measure(shape, n, tempProject()));
			}
			const ms = median(samples.map((s) => s.ms));
			const row = {
				shape,
				n,
				runs: samples.length,
				medianMs: ms,
				perTaskMs: ms / n,
				maxRssMb: Math.max(...samples.map((s) => s.maxRssKb)) / 1024,
			};
			rows.push(row);
			log(`${label} ${shape} ${n}: ${row.perTaskMs.toFixed(3)} ms/task (median of ${samples.length})`);
		}
	}
	// The marginal cost per task (slope from the smallest size) leaves out fixed costs such as the
	// CLI's startup, which would otherwise make per-task figures fall as N grows.
	for (const row of rows) {
		const base = rows.find((r) => r.shape === row.shape && r.n === SIZES[0]);
		row.vsSmallest = row.perTaskMs / base.perTaskMs;
		row.marginalMs = row.n === base.n ? null : (row.medianMs - base.medianMs) / (row.n - base.n);
	}
	return rows;
}

async function statusBench(dir, runId) {
	// What `crew status --json` does in process, timed in a fresh process of its own.
	const reads = spawnSync(process.execPath, [STATUS_READS, dir, runId, String(STATUS_READS_IN_PROCESS)], {
		encoding: "utf8",
	});
	if (reads.status !== 0) throw new Error(`status reads exited ${reads.status}:\n${reads.stderr}`);
	const inProcessMs = Number(reads.stdout.trim());

	const bareNode = [];
	const cli = [];
	// Interleaved, so a slow spell of the machine hits both the same.
	for (let k = 0; k < STATUS_READS_CLI; k++) {
		bareNode.push((await run(process.execPath, ["-e", "0"])).ms);
		cli.push((await run(process.execPath, [BIN, "status", runId, "--json"], { cwd: dir })).ms);
	}
	return {
		tasks: STATUS_TASKS,
		inProcessMs,
		cliMs: median(cli),
		bareNodeMs: median(bareNode),
	};
}

function fmt(value, digits = 3) {
	return value.toFixed(digits);
}

/** Table columns as [title, width]; a negative width pads on the right (left-aligned). */
const COLUMNS = [
	["shape", -8],
	["tasks", 7],
	["runs", 6],
	["median run", 13],
	["ms/task", 10],
	["vs 100", 8],
	["marginal", 10],
	["peak RSS", 11],
];

function cells(values) {
	return values.map((v, k) => (COLUMNS[k][1] < 0 ? v.padEnd(-COLUMNS[k][1]) : v.padStart(COLUMNS[k][1]))).join("");
}

function overheadLines(title, rows) {
	const lines = [title, `  ${cells(COLUMNS.map(([name]) => name))}  target`];
	for (const r of rows) {
		const target = `< ${TARGET.perTaskMs} ms/task, flat${r.n === 10000 ? `, < ${TARGET.rssMb} MB` : ""}`;
		const values = [
			r.shape,
			String(r.n),
			String(r.runs),
			`${fmt(r.medianMs, 0)} ms`,
			fmt(r.perTaskMs),
			`${fmt(r.vsSmallest, 2)}x`,
			r.marginalMs === null ? "-" : fmt(r.marginalMs),
			`${fmt(r.maxRssMb, 0)} MB`,
		];
		lines.push(`  ${cells(values)}  ${target}`);
	}
	return lines;
}

function statusLines(s) {
	const line = (label, ms, target) =>
		`  ${label.padEnd(50)}${ms === null ? "n/a".padStart(8) : `${fmt(ms, 1).padStart(8)} ms`}${target ? `   target < ${target} ms` : ""}`;
	return [
		`crew status --json on a ${STATUS_TASKS.toLocaleString("en")}-task run (median of ${STATUS_READS_IN_PROCESS} in process, ${STATUS_READS_CLI} CLI)`,
		line("in process: open, reader.statusJson(), close", s.inProcessMs, TARGET.statusInProcessMs),
		line("CLI: node bin/crew.js status <run> --json", s.cliMs, TARGET.statusCliMs),
		line("bare node -e 0, for reference", s.bareNodeMs),
	];
}

const benchStart = performance.now();
const source = sourceVersion(ROOT);
log(
	`crew bench of ${source}: concurrency ${CONCURRENCY}, ${cpus().length} CPUs, node ${process.version}, projects in ${tmpdir()}`,
);

const inProcess = await overheadTable("in-process", async (shape, n, dir) => {
	const r = await inProcessRun(shape, n, dir);
	return { ms: r.totalMs, maxRssKb: r.maxRssKb };
});
const cli = await overheadTable("cli", cliRun);

log(`status reads on a finished ${STATUS_TASKS.toLocaleString("en")}-task chain run`);
const statusDir = tempProject();
const { runId } = await inProcessRun("chain", STATUS_TASKS, statusDir);
const status = await statusBench(statusDir, runId);
const benchSeconds = (performance.now() - benchStart) / 1000;

const lines = [
	"",
	...overheadLines(
		`In-process scheduler overhead (instant runtime, real SQLite store; create + execute / N; concurrency ${CONCURRENCY})`,
		inProcess,
	),
	"",
	...overheadLines(
		`CLI: node bin/crew.js run --runtime dry-run --json (spawn to exit / N; concurrency ${CONCURRENCY})`,
		cli,
	),
	"",
	...statusLines(status),
	"",
	"ms/task: median run / N; vs 100: ms/task relative to 100 tasks of the same shape; marginal: (median run - median",
	"run at 100) / (N - 100), the cost of one more task without fixed costs; peak RSS: largest maxRSS of the runs.",
	`bench of ${source} took ${fmt(benchSeconds, 0)} s; projects in ${tmpdir()}`,
];
process.stdout.write(`${lines.join("\n")}\n`);

if (!SMOKE) {
	mkdirSync(join(ROOT, "bench", "results"), { recursive: true });
	const results = {
		date: new Date().toISOString(),
		source,
		machine: {
			node: process.version,
			arch: arch(),
			cpus: cpus().length,
			cpu: cpus()[0]?.model ?? "",
			tmpdir: tmpdir(),
		},
		concurrency: CONCURRENCY,
		repeats: REPEATS,
		targets: TARGET,
		inProcess,
		cli,
		status,
		benchSeconds,
	};
	writeFileSync(RESULTS, `${JSON.stringify(results, null, "\t")}\n`);
	log(`results written to ${RESULTS}`);
}

// The bench leaves ~450,000 files and folders; deleting them can take minutes, so say so.
log(`removing ${projects.length} temp projects...`);
const cleanupStart = performance.now();
for (const dir of projects) rmSync(dir, { recursive: true, force: true });
log(`removed in ${fmt((performance.now() - cleanupStart) / 1000, 0)} s`);
