/**
 * How long the dashboard takes to show a large run: `node bench/dashboard.mjs [--tasks 1000]
 * [--loads 7]`. Builds a run of `--tasks` tasks through crew's own store classes (every tenth task
 * failed once and was retried after a backoff, so its timeline row has three bars), serves it with
 * `crew serve`, and loads its page in Debian's Chromium `--loads` times, each in a fresh browser
 * context: a load is timed from the start of navigation to the first frame painted once its task
 * list, its Timeline (a row per task) and its Cost section are all in the page. Prints the median and holds it to the
 * target: under 1 s.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { chromium } from "playwright-core";
import { serve } from "./serve.mjs";
import { log, median, SMOKE } from "./stats.mjs";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const CHROMIUM = "/usr/bin/chromium";
const args = process.argv.slice(2);
const option = (name, fallback) => {
	const at = args.indexOf(`--${name}`);
	return at >= 0 && args[at + 1] !== undefined ? args[at + 1] : fallback;
};
const TASKS = Number(option("tasks", "1000"));
const LOADS = Number(option("loads", SMOKE ? "1" : "7"));
const TARGET_MS = 1000;

const load = (path) => import(pathToFileURL(join(ROOT, "dist", path)).href);
const { projectAt } = await load("config/project.js");
const { openWriter } = await load("store/database.js");
const { RunStore } = await load("store/run-store.js");
const { currentProcess } = await load("store/process-identity.js");

/** A repository whose store holds one ended run of `TASKS` tasks; resolves with its folder and run id. */
function buildRun() {
	const dir = mkdtempSync(join(tmpdir(), "crew-bench-dashboard-"));
	const project = projectAt(dir);
	mkdirSync(project.crewDir, { recursive: true });
	const db = openWriter(project.dbFile);
	const store = new RunStore(db);
	const runId = "bench-dashboard";
	const ids = Array.from({ length: TASKS }, (_, i) => `t${String(i).padStart(4, "0")}`);
	store.createRun({
		id: runId,
		goal: "bench the dashboard",
		team: null,
		workflow: "bench",
		options: { concurrency: 8, failure: "drain", roleLimits: {}, retries: 1, cwd: dir },
		tasks: ids.map((id, i) => ({
			id,
			stepId: id,
			role: i % 3 === 0 ? "reviewer" : "worker",
			agent: { name: i % 3 === 0 ? "reviewer" : "worker", runtime: "pi", model: i % 2 ? "m1" : "m2", systemPrompt: "" },
			text: `step ${id}`,
			dependsOn: i > 0 && i % 10 !== 0 ? [ids[i - 1]] : [],
		})),
	});
	const lease = store.acquireLease(runId, { holder: currentProcess(), cause: "dispatch", staleAfterMs: 3_600_000 });
	const usage = { input: 5000, output: 400, cacheRead: 0, cacheWrite: 0, cost: 0.01 };
	store.batch(() => {
		ids.forEach((id, i) => {
			if (i % 10 === 5) {
				const first = store.attempts.start(lease, id, "pi", "m1");
				store.attempts.settle(lease, {
					taskId: id,
					attemptId: first.id,
					attemptStatus: "failed",
					taskStatus: "queued",
					cause: "backoff",
					error: "exit code 75: busy; retry 1 of 1 in 1s",
					retryable: true,
					usage,
				});
			}
			const attempt = store.attempts.start(lease, id, "pi", "m1");
			store.attempts.settle(lease, {
				taskId: id,
				attemptId: attempt.id,
				attemptStatus: "completed",
				taskStatus: "completed",
				cause: "settle",
				usage,
			});
		});
		store.finishRun(lease, "completed", "settle");
	});
	db.close();
	return { dir, runId };
}

if (!existsSync(CHROMIUM))
	throw new Error(`${CHROMIUM} is missing: install Debian's chromium (apt-get install chromium)`);
const started = performance.now();
const { dir, runId } = buildRun();
log(`dashboard: a ${TASKS}-task run written in ${((performance.now() - started) / 1000).toFixed(1)} s`);
const server = await serve(dir);
const browser = await chromium.launch({
	executablePath: CHROMIUM,
	args: ["--headless", "--no-sandbox", "--disable-gpu"],
});
const times = [];
try {
	for (let k = 0; k < LOADS; k++) {
		const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
		const page = await context.newPage();
		// The page checks itself at each frame, so the time is not the bench's polling but the page's
		// own: the first frame painted once the task list, the Timeline and the Cost section are in it.
		await page.addInitScript((n) => {
			const check = () => {
				const drawn =
					document.querySelectorAll("#task-list tbody tr").length === n &&
					document.querySelectorAll("#timeline g.row").length === n &&
					document.querySelector("#cost h2") !== null;
				if (!drawn) requestAnimationFrame(check);
				else requestAnimationFrame(() => setTimeout(() => Object.assign(window, { drawnAt: performance.now() }), 0));
			};
			requestAnimationFrame(check);
		}, TASKS);
		await page.goto(`${server.url}/runs/${runId}?token=${server.token}`);
		for (let waited = 0; ; waited += 50) {
			const drawnAt = await page.evaluate(() => window.drawnAt);
			if (drawnAt !== undefined) {
				times.push(drawnAt);
				break;
			}
			if (waited > 60_000) throw new Error(`the run's page was not drawn in 60 s`);
			await new Promise((wake) => setTimeout(wake, 50));
		}
		await context.close();
	}
} finally {
	await browser.close();
	server.child.kill("SIGTERM");
	rmSync(dir, { recursive: true, force: true });
}
const ms = median(times);
log(`dashboard: loads ${times.map((t) => t.toFixed(0)).join(", ")} ms`);
process.stdout.write(
	`a ${TASKS}-task run's page in Chromium (task list, timeline and cost drawn), median of ${LOADS} loads: ${ms.toFixed(0)} ms; target < ${TARGET_MS} ms: ${ms < TARGET_MS ? "met" : "not met"}\n`,
);
if (!SMOKE && ms >= TARGET_MS) process.exitCode = 1;
