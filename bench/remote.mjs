/**
 * Remote attempts through BullMQ: the extra time per attempt of a run whose attempts go to a
 * `crew worker` against the same run with local processes (target under 20 ms); the same in a git
 * repository, where each task works in a worktree here and in a checkout on the worker; and the
 * throughput of a 200-task run with 1, 2 and 4 workers. Needs `redis-server` on PATH; starts its
 * own on a free loopback port. Writes bench/results/remote.json.
 */

import { execFileSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { makeDag, workflowMarkdown } from "./dags.mjs";
import { log, median, SMOKE } from "./stats.mjs";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const BIN = join(ROOT, "bin", "crew.js");
const RESULTS = join(ROOT, "bench", "results", "remote.json");
/** Chain lengths whose difference gives the cost per attempt. */
const CHAINS = SMOKE ? [1, 2] : [10, 40];
const ROUNDS = SMOKE ? 1 : 5;
const WIDE = SMOKE ? 10 : 200;
/** How many workers take the wide run, one count after another. */
const WORKERS = SMOKE ? [1, 2] : [1, 2, 4];
/** Each wide task sleeps this long: an agent that waits on its model, not on this machine's CPU. */
const TASK_MS = 200;
const WORKER_SLOTS = 4;
const TARGET_OVERHEAD_MS = 20;

const dirs = [];
/**
 * A trusted project whose `worker` agent runs `agentCommand`, with `nodes` as its workflow; with
 * `repository`, a git repository with a commit, else a folder that only looks like one.
 */
async function project(agentCommand, nodes, repository = false) {
	const dir = mkdtempSync(join(tmpdir(), "crew-bench-remote-"));
	dirs.push(dir);
	if (repository) {
		const git = (...args) => execFileSync("git", args, { cwd: dir, stdio: "ignore" });
		writeFileSync(join(dir, "README.md"), "a project\n");
		git("init", "-q");
		git("add", "README.md");
		git("-c", "user.name=bench", "-c", "user.email=bench@localhost", "commit", "-qm", "start");
	} else mkdirSync(join(dir, ".git"));
	mkdirSync(join(dir, ".crew", "agents"), { recursive: true });
	mkdirSync(join(dir, ".crew", "workflows"), { recursive: true });
	writeFileSync(
		join(dir, ".crew", "agents", "worker.md"),
		`---\nname: worker\nruntime: command\ncommand: ${agentCommand}\n---\nWork.\n`,
	);
	writeFileSync(join(dir, ".crew", "workflows", "bench.md"), workflowMarkdown("bench", nodes));
	await crew(dir, ["trust"]);
	return dir;
}

function freePort() {
	return new Promise((resolve) => {
		const server = createServer();
		server.listen(0, "127.0.0.1", () => {
			const { port } = server.address();
			server.close(() => resolve(port));
		});
	});
}

/** A crew command to its end; resolves with its wall time, rejects when it fails. */
function crew(dir, args) {
	return new Promise((resolve, reject) => {
		const started = performance.now();
		const child = spawn(process.execPath, [BIN, ...args], { cwd: dir, stdio: ["ignore", "ignore", "pipe"] });
		let stderr = "";
		child.stderr.on("data", (chunk) => {
			stderr += chunk;
		});
		child.on("exit", (code) =>
			code === 0
				? resolve(performance.now() - started)
				: reject(new Error(`crew ${args[0]} exited ${code}: ${stderr}`)),
		);
	});
}

/** Workers started and not yet stopped: stopped at the end whatever happens. */
const running = new Set();

// The key the bench's coordinators sign their jobs with and its workers check them by.
process.env.CREW_QUEUE_KEY ??= randomBytes(24).toString("hex");

/** `n` workers; each trusts every job, as the queue is the bench's own and its projects run commands. */
async function startWorkers(url, n, dir) {
	const workers = [];
	for (let k = 0; k < n; k++) {
		const workdir = join(dir, `w${k}`);
		const worker = spawn(
			process.execPath,
			[
				BIN,
				"worker",
				"--queue",
				url,
				"--concurrency",
				String(WORKER_SLOTS),
				"--workdir",
				workdir,
				"--trust-all",
				// Unconfined, as the attempts run here are: the bench measures the queue, not the sandbox.
				"--sandbox",
				"off",
			],
			{ cwd: dir, stdio: ["ignore", "pipe", "ignore"] },
		);
		running.add(worker);
		await new Promise((resolve) => worker.stdout.once("data", resolve));
		workers.push(worker);
	}
	return workers;
}

async function stop(workers) {
	for (const worker of workers) {
		running.delete(worker);
		worker.kill("SIGTERM");
	}
	await Promise.all(workers.map((w) => (w.exitCode !== null ? null : new Promise((r) => w.once("exit", r)))));
}

const port = await freePort();
const redis = spawn(
	"redis-server",
	["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
	{
		stdio: "ignore",
	},
);
await sleep(300);
const url = `redis://127.0.0.1:${port}`;
try {
	// Overhead: chains (each task waits for the one before) of two lengths, local then remote, in
	// turns; the slope between the lengths leaves out what a run pays once (start, connections).
	// In a repository, each task also writes a file: locally in its worktree, remotely in a
	// checkout whose change comes back to the task's worktree.
	const workerDir = mkdtempSync(join(tmpdir(), "crew-bench-remote-"));
	dirs.push(workerDir);
	const [worker] = await startWorkers(url, 1, workerDir);
	const overhead = async (agentCommand, repository, local) => {
		const samples = [];
		for (let round = 0; round < ROUNDS; round++) {
			const ms = {};
			for (const n of CHAINS) {
				const chain = makeDag("chain", n);
				const args = ["run", "bench", "--workflow", "bench", "--json"];
				ms[`local${n}`] = await crew(await project(agentCommand, chain, repository), [...args, ...local]);
				ms[`remote${n}`] = await crew(await project(agentCommand, chain, repository), [...args, "--queue", url]);
			}
			const [short, long] = CHAINS;
			const extra = ms[`remote${long}`] - ms[`remote${short}`] - (ms[`local${long}`] - ms[`local${short}`]);
			samples.push(extra / (long - short));
			log(
				`round ${round + 1}: ${JSON.stringify(Object.fromEntries(Object.entries(ms).map(([k, v]) => [k, Math.round(v)])))}`,
			);
		}
		return samples;
	};
	const perAttempt = await overhead("true", false, []);
	const overheadMs = median(perAttempt);
	log(
		`remote dispatch overhead: ${overheadMs.toFixed(1)} ms per attempt (median of ${ROUNDS}; target < ${TARGET_OVERHEAD_MS})`,
	);
	const perCheckout = await overhead('echo "$CREW_TASK_ID" > "$CREW_TASK_ID.txt"', true, ["--workspace", "worktree"]);
	const checkoutMs = median(perCheckout);
	log(
		`in a repository, a remote attempt in a checkout against a local one in a worktree: +${checkoutMs.toFixed(1)} ms`,
	);
	await stop([worker]);

	// Throughput: a wide run (one root, the middle tasks at once, one sink) through each count of workers.
	const wide = makeDag("wide", WIDE);
	const throughput = [];
	for (const n of WORKERS) {
		const dir = await project(`sleep ${TASK_MS / 1000}`, wide);
		const workers = await startWorkers(url, n, dir);
		const ms = await crew(dir, [
			"run",
			"bench",
			"--workflow",
			"bench",
			"--queue",
			url,
			"--concurrency",
			"64",
			"--json",
		]);
		await stop(workers);
		throughput.push({ workers: n, slots: n * WORKER_SLOTS, ms, tasksPerSecond: WIDE / (ms / 1000) });
		log(
			`${WIDE} tasks of ${TASK_MS} ms, ${n} worker(s) x ${WORKER_SLOTS}: ${(ms / 1000).toFixed(1)} s, ${(WIDE / (ms / 1000)).toFixed(1)} tasks/s`,
		);
	}
	const results = {
		overhead: { medianMsPerAttempt: overheadMs, samples: perAttempt, chains: CHAINS, targetMs: TARGET_OVERHEAD_MS },
		repositoryOverhead: { medianMsPerAttempt: checkoutMs, samples: perCheckout, chains: CHAINS },
		throughput: { tasks: WIDE, taskMs: TASK_MS, runs: throughput },
	};
	if (!SMOKE) {
		mkdirSync(join(ROOT, "bench", "results"), { recursive: true });
		writeFileSync(RESULTS, `${JSON.stringify(results, null, "\t")}\n`);
	}
	process.stdout.write(`${JSON.stringify(results)}\n`);
} finally {
	await stop([...running]);
	redis.kill("SIGKILL");
	for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
}
