/**
 * What live views cost as a run's event log grows: `node bench/views.mjs [--dist <dir>] [--sizes
 * 10000,200000,1000000] [--reads 20]`. For each size, builds a 2,000-task run's store with that many
 * events through crew's own store classes (so the rows are what crew writes), then times in
 * process, medians of `--reads`: the run view (`RunReader.view`), the dashboard's task panel
 * (`taskDetail`), one `crew watch` refresh (read, merge, draw the frame) after 20 new events, and
 * `crew logs` of one task. The task measured has a fixed 200 events of its own, so the figures are
 * about the run's size, not that task's. `--dist` points at another build (one of an older commit,
 * to compare); what a build lacks (an incremental view) is timed as that build did it.
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { prng as random } from "./prng.mjs";
import { log, median, SMOKE } from "./stats.mjs";

const args = process.argv.slice(2);
const option = (name, fallback) => {
	const at = args.indexOf(`--${name}`);
	return at >= 0 && args[at + 1] !== undefined ? args[at + 1] : fallback;
};
const DIST = resolve(option("dist", new URL("../dist", import.meta.url).pathname));
const SIZES = option("sizes", SMOKE ? "10000" : "10000,200000,1000000")
	.split(",")
	.map(Number);
const READS = Number(option("reads", SMOKE ? "1" : "20"));
const TASKS = 2000;
const OWN_EVENTS = 200;
/** Tasks still running at the end, as many as a run's usual concurrency. */
const RUNNING = 8;
const MEASURED = "t0000";
const TARGET = { ratio: 1.5, ms: 20 };

const load = (path) => import(pathToFileURL(join(DIST, path)).href);
const { projectAt } = await load("config/project.js");
const { openWriter } = await load("store/database.js");
const { RunStore } = await load("store/run-store.js");
const { currentProcess } = await load("store/process-identity.js");
const reading = { ...(await load("engine/views/reader.js")), ...(await load("engine/views/run-view.js")) };
const { taskDetail } = await load("adapters/http/task-detail.js");
const { watchLines } = await load("adapters/cli/watch-view.js");
const { logText } = await load("adapters/cli/format.js");
const { logEntry } = await load("core/log-line.js");

/** A task's prompt as a planner writes one: a page of text, which its stored spec carries. */
const PROMPT = "Change the parser so that it reports the position of each unexpected token. ".repeat(20);
const TEXT = "Reading the module to see where the parser hands tokens to the resolver; ".repeat(3);

/** One worker event as agents produce them: mostly transcript, a usage report every few. */
function workerEvent(n) {
	switch (n % 6) {
		case 0:
			return ["worker.assistant", { text: `${TEXT}${n}` }];
		case 1:
			return ["worker.tool-start", { name: "read", args: { path: `src/module-${n % 97}.ts` } }];
		case 2:
			return ["worker.tool-end", { name: "read", isError: false, output: `${TEXT.slice(0, 120)}${n}` }];
		case 3:
			return ["worker.usage", { usage: { input: 1200, output: 80, cacheRead: 0, cacheWrite: 0, cost: 0.001 } }];
		case 4:
			return ["worker.output", { text: `line ${n}` }];
		default:
			return ["worker.assistant", { text: `done with step ${n}` }];
	}
}

/** A project whose store holds one 2,000-task run with `events` events in all. */
function buildRun(events) {
	const dir = mkdtempSync(join(tmpdir(), "crew-bench-views-"));
	const project = projectAt(dir);
	mkdirSync(project.crewDir, { recursive: true });
	const db = openWriter(project.dbFile);
	const store = new RunStore(db);
	const ids = Array.from({ length: TASKS }, (_, i) => `t${String(i).padStart(4, "0")}`);
	store.createRun({
		id: "bench-run",
		goal: "bench the views",
		team: null,
		workflow: "bench",
		options: { concurrency: 8, failure: "drain", roleLimits: {}, retries: 0, cwd: dir },
		tasks: ids.map((id, i) => ({
			id,
			stepId: id,
			role: i % 3 === 0 ? "reviewer" : "worker",
			agent: { name: "worker", runtime: "pi", model: "m1", systemPrompt: "" },
			text: `${PROMPT}${id}`,
			dependsOn: i > 0 && i % 10 !== 0 ? [ids[i - 1]] : [],
		})),
	});
	const lease = store.acquireLease("bench-run", {
		holder: currentProcess(),
		cause: "dispatch",
		staleAfterMs: 3_600_000,
	});
	const attempts = new Map();
	store.batch(() => {
		for (const id of ids) attempts.set(id, store.attempts.start(lease, id, "pi", "m1").id);
	});
	const next = random(7);
	const others = ids.slice(1);
	let written = 0;
	let own = 0;
	const budget = events - 2 * TASKS + RUNNING - 2;
	while (written < budget) {
		store.batch(() => {
			for (let k = 0; k < 5000 && written < budget; k++, written++) {
				// The measured task's own events come spread through the run, the rest fall on the others.
				const mine = own < OWN_EVENTS && written % Math.floor(budget / OWN_EVENTS) === 0;
				const task = mine ? MEASURED : others[Math.floor(next() * others.length)];
				if (mine) own++;
				const [type, data] = workerEvent(written);
				store.appendEvent(lease, type, task, data);
			}
		});
	}
	// The run is near its end: all but its last RUNNING tasks have completed.
	store.batch(() => {
		for (const id of ids.slice(0, TASKS - RUNNING)) {
			store.attempts.settle(lease, {
				taskId: id,
				attemptId: attempts.get(id),
				attemptStatus: "completed",
				taskStatus: "completed",
				cause: "settle",
				usage: { input: 5000, output: 400, cacheRead: 0, cacheWrite: 0, cost: 0.01 },
			});
		}
	});
	return { dir, project, db, store, lease, events: db.prepare("SELECT count(*) FROM events").pluck().get() };
}

function timed(fn) {
	const times = [];
	for (let k = 0; k < READS; k++) {
		const start = performance.now();
		fn(k);
		times.push(performance.now() - start);
	}
	return median(times);
}

/** What `crew logs <run> <task>` does: read the task's events after the last seen until none are left, one line each. */
function logsOnce(reader) {
	const lines = [];
	let after = 0;
	for (;;) {
		const { events } = reader.taskEvents("bench-run", MEASURED, after);
		for (const event of events) {
			after = event.seq;
			const entry = logEntry(event);
			if (entry) lines.push(logText(event, entry));
		}
		if (events.length === 0) return lines.join("\n").length;
	}
}

const results = {};
for (const size of SIZES) {
	const start = performance.now();
	const built = buildRun(size);
	log(`views: ${built.events} events written in ${((performance.now() - start) / 1000).toFixed(1)} s`);
	const reader = new reading.RunReader(built.project);
	const incremental = typeof reading.mergeView === "function";
	let state = reader.view("bench-run");
	const churn = random(11);
	const row = {
		view: timed(() => reader.view("bench-run")),
		taskDetail: timed(() => taskDetail(reader, "bench-run", MEASURED)),
		logs: timed(() => logsOnce(reader)),
	};
	// A watch tick: 20 events landed since the last one (written outside the time taken).
	const ticks = [];
	for (let k = 0; k < READS; k++) {
		built.store.batch(() => {
			for (let e = 0; e < 20; e++) {
				const task = `t${String(1 + Math.floor(churn() * (TASKS - 1))).padStart(4, "0")}`;
				built.store.appendEvent(built.lease, "worker.output", task, { text: `tick ${k}.${e}` });
			}
		});
		const begin = performance.now();
		state = incremental ? reading.mergeView(state, reader.changes("bench-run", state.seq)) : reader.view("bench-run");
		watchLines(state, Date.now(), 40);
		ticks.push(performance.now() - begin);
	}
	row.watch = median(ticks);
	const { view, taskDetail: detail, logs } = row;
	results[size] = { view, taskDetail: detail, watch: row.watch, logs };
	log(
		`views at ${size}: ${Object.entries(row)
			.map(([k, v]) => `${k} ${v.toFixed(2)} ms`)
			.join(", ")}`,
	);
	reader.close();
	built.db.close();
	rmSync(built.dir, { recursive: true, force: true });
}

const first = SIZES[0];
const last = SIZES[SIZES.length - 1];
const NAMES = {
	view: "run view (RunReader.view)",
	taskDetail: "task panel (taskDetail)",
	watch: "crew watch refresh",
	logs: `crew logs of one task (${OWN_EVENTS} events)`,
};
const out = [
	`views of a ${TASKS}-task run, medians of ${READS} in process (${DIST}); target ≤ ${TARGET.ratio}× from ${first} to ${last} events and < ${TARGET.ms} ms at ${last}`,
	`| | ${SIZES.map((s) => `${s.toLocaleString("en")} events`).join(" | ")} | ${last}/${first} | meets target |`,
	`| --- | ${SIZES.map(() => "---").join(" | ")} | --- | --- |`,
];
for (const [key, name] of Object.entries(NAMES)) {
	const ratio = results[last][key] / results[first][key];
	const meets = ratio <= TARGET.ratio && results[last][key] < TARGET.ms;
	out.push(
		`| ${name} | ${SIZES.map((s) => `${results[s][key].toFixed(2)} ms`).join(" | ")} | ${ratio.toFixed(2)}× | ${meets ? "yes" : "no"} |`,
	);
}
process.stdout.write(`${out.join("\n")}\n`);
