/**
 * What live dashboards cost `crew serve`: the server's CPU time while one, then fifty, clients
 * follow a run's event stream (`GET /api/runs/<id>/stream`) from its start to its end. The run is
 * a command agent printing a line every 10 ms, so the stream carries ~100 events a second. Rounds
 * alternate one and fifty clients; prints the median CPU of each and their ratio (target < 2).
 * CPU is read from the schedstat of each thread under /proc/<pid>/task, so this runs on Linux.
 */
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { serve } from "./serve.mjs";
import { log, median, SMOKE } from "./stats.mjs";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const BIN = join(ROOT, "bin", "crew.js");
/** Lines the agent prints, 10 ms apart: the run outlasts the window. */
const LINES = SMOKE ? 100 : 900;
const ROUNDS = SMOKE ? 1 : 5;
const CLIENTS = [1, 50];
const TARGET_RATIO = 2;
const WINDOW_MS = SMOKE ? 500 : 5000;

function project() {
	const dir = mkdtempSync(join(tmpdir(), "crew-bench-sse-"));
	mkdirSync(join(dir, ".git"));
	mkdirSync(join(dir, ".crew", "agents"), { recursive: true });
	mkdirSync(join(dir, ".crew", "workflows"), { recursive: true });
	// Lines like a build's or a test runner's, ~120 characters.
	const line = `"src/engine/run-loop.ts:" + i + ":7 - checked " + i + " of ${LINES} files; nothing to report in this module or its imports"`;
	const ticker = `let i = 0; const t = setInterval(() => { console.log(${line}); if (++i === ${LINES}) clearInterval(t); }, 10);`;
	writeFileSync(join(dir, "ticker.js"), ticker);
	writeFileSync(
		join(dir, ".crew", "agents", "ticker.md"),
		"---\nname: ticker\nruntime: command\ncommand: node ticker.js\n---\nTick.\n",
	);
	writeFileSync(
		join(dir, ".crew", "workflows", "tick.workflow.md"),
		"---\nname: tick\n---\n## tick\nrole: ticker\n\nTick.\n",
	);
	return dir;
}

/** CPU seconds a process's threads have run so far, to the nanosecond (Linux's schedstat). */
function cpuSeconds(pid) {
	let ns = 0;
	for (const thread of readdirSync(`/proc/${pid}/task`)) {
		try {
			ns += Number(readFileSync(`/proc/${pid}/task/${thread}/schedstat`, "utf8").split(" ")[0]);
		} catch (error) {
			// A thread that ended between the listing and the read has nothing more to count.
			if (error.code !== "ENOENT" && error.code !== "ESRCH") throw error;
		}
	}
	return ns / 1e9;
}

function crew(dir, args) {
	return new Promise((resolve, reject) => {
		const child = spawn(process.execPath, [BIN, ...args], { cwd: dir, stdio: ["ignore", "pipe", "inherit"] });
		let out = "";
		child.stdout.setEncoding("utf8").on("data", (chunk) => {
			out += chunk;
		});
		child.on("close", (code) =>
			code === 0 ? resolve(out) : reject(new Error(`crew ${args.join(" ")} exited ${code}`)),
		);
	});
}

/**
 * Follows a run's stream from its start until its run event says it ended. `connected` resolves
 * at the first events received; the whole resolves with the ids of all events received.
 */
function follow(url, token, runId) {
	let first;
	const connected = new Promise((resolve) => {
		first = resolve;
	});
	const done = (async () => {
		const response = await fetch(`${url}/api/runs/${runId}/stream`, { headers: { authorization: `Bearer ${token}` } });
		const reader = response.body.getReader();
		const decoder = new TextDecoder();
		let buffer = "";
		const ids = [];
		for (;;) {
			const { value, done } = await reader.read();
			if (done) throw new Error("the stream ended before the run did");
			buffer += decoder.decode(value, { stream: true });
			const frames = buffer.split("\n\n");
			buffer = frames.pop() ?? "";
			for (const frame of frames) {
				if (frame.startsWith("event: event")) ids.push(Number(/\nid: (\d+)/.exec(frame)?.[1]));
				if (frame.startsWith("event: run") && frame.includes('"ended":true')) {
					await reader.cancel();
					return ids;
				}
			}
			if (ids.length > 0) first();
		}
	})();
	return { connected, done };
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * One run followed by `clients` streams: the server's CPU seconds in a window of `WINDOW_MS`
 * once every stream has its first events (the cost of following), and from the run's start to
 * its end (with connecting and closing).
 */
async function round(dir, server, clients) {
	const started = await crew(dir, ["run", "tick", "--workflow", "tick", "--detach", "--json"]);
	const { runId } = JSON.parse(started.trim().split("\n").at(-1));
	const start = cpuSeconds(server.child.pid);
	const streams = Array.from({ length: clients }, () => follow(server.url, server.token, runId));
	await Promise.all(streams.map((s) => s.connected));
	const before = cpuSeconds(server.child.pid);
	await sleep(WINDOW_MS);
	const window = cpuSeconds(server.child.pid) - before;
	const received = await Promise.all(streams.map((s) => s.done));
	const whole = cpuSeconds(server.child.pid) - start;
	// Every client gets every event of the run once, in order.
	const last = Math.max(...received.map((ids) => ids.at(-1) ?? 0));
	for (const ids of received) {
		if (ids.length !== last || ids.some((id, k) => id !== k + 1))
			throw new Error(`a client got ${ids.length} of ${last} events`);
	}
	return { window, whole };
}

const dir = project();
// The agent runs a command the project names: trusted, as a user who wrote it would.
await crew(dir, ["trust"]);
const server = await serve(dir);
try {
	const cpu = Object.fromEntries(CLIENTS.map((n) => [n, []]));
	for (let k = 0; k < ROUNDS; k++) {
		for (const clients of CLIENTS) {
			const r = await round(dir, server, clients);
			cpu[clients].push(r);
			log(
				`sse round ${k + 1}: ${clients} client(s), server CPU ${r.window.toFixed(3)} s following, ${r.whole.toFixed(3)} s whole run`,
			);
		}
	}
	const row = (clients, key) => median(cpu[clients].map((r) => r[key]));
	const line = (label, key, target) => {
		const one = row(1, key);
		const fifty = row(50, key);
		return `  ${label.padEnd(44)}${one.toFixed(3).padStart(6)} s ${fifty.toFixed(3).padStart(8)} s ${(fifty / one).toFixed(2).padStart(7)}x${target}`;
	};
	process.stdout.write(
		[
			"",
			`crew serve's CPU while clients follow a run's event stream (~100 worker lines a second; median of ${ROUNDS})`,
			`  ${"".padEnd(44)}${"1 client".padStart(8)}${"50 clients".padStart(11)}${"ratio".padStart(9)}`,
			line(`following, ${WINDOW_MS / 1000} s once all streams are live`, "window", `   target < ${TARGET_RATIO}x`),
			line("whole run, with connecting and closing", "whole", ""),
			"",
		].join("\n"),
	);
} finally {
	server.child.kill("SIGTERM");
	rmSync(dir, { recursive: true, force: true });
}
