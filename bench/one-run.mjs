/**
 * One in-process run in a fresh process: `node bench/one-run.mjs <shape> <n> <dir> [concurrency]`.
 * A fresh process per run keeps runs from sharing a warmed-up or fragmented heap, and makes its
 * peak RSS that of this run alone. Prints one JSON line: timings, the run id and maxRSS in KB.
 */
import { Crew, projectAt, RuntimeRegistry, ZERO_USAGE } from "../dist/index.js";
import { makeDag } from "./dags.mjs";

const [shape, size, dir, concurrency = "8"] = process.argv.slice(2);
const n = Number(size);

/** Completes every task at once, so all that is measured is crew's own work per task. */
const instant = {
	name: "instant",
	run: async () => ({ ok: true, text: "ok", exitCode: 0, usage: ZERO_USAGE, artifacts: [] }),
};

const agent = { name: "bench", runtime: "instant", systemPrompt: "" };
const plan = {
	goal: "bench",
	team: null,
	workflow: `${shape}-${n}`,
	options: { concurrency: Number(concurrency), failure: "drain", roleLimits: {}, retries: 0, cwd: dir },
	tasks: makeDag(shape, n).map((node) => ({
		id: node.id,
		stepId: node.id,
		role: "worker",
		agent,
		text: `Do step ${node.id}.`,
		dependsOn: node.dependsOn,
	})),
	diagnostics: [],
	projectCommands: [],
};

const crew = new Crew({ project: projectAt(dir), runtimes: new RuntimeRegistry([instant]) });
const start = performance.now();
const runId = crew.create(plan);
const created = performance.now();
const status = await crew.execute(runId);
const end = performance.now();
crew.close();

const result = {
	shape,
	n,
	runId,
	status,
	createMs: created - start,
	executeMs: end - created,
	totalMs: end - start,
	maxRssKb: process.resourceUsage().maxRSS,
};
process.stdout.write(`${JSON.stringify(result)}\n`);
