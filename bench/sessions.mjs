/**
 * What continuing an agent's session saves: a task of TURNS tool calls (each reading a file of
 * about 80 lines, as an agent exploring a repository does) whose model answers HTTP 500 half-way,
 * then retried — once continuing the first attempt's session, once starting over
 * (`--no-continue`) — for pi, Claude Code and Codex, against the scripted model server. The model plays
 * the task from where its conversation stands: it reads the next file until it has read them all,
 * then answers. Tokens are the task's as crew records them (both attempts); wall time is the run's;
 * requests are the model's. Medians of ROUNDS rounds, the two ways in rotating order.
 * Writes bench/results/sessions.json.
 */

import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { projectAt } from "../dist/config/project.js";
import { Crew } from "../dist/engine/crew.js";
import { RunReader } from "../dist/engine/views/reader.js";
import { RuntimeRegistry } from "../dist/runtimes/runtime-registry.js";
import { scriptedCliSetup } from "../dist/scripted-model/cli-setup.js";
import { ScriptedModelServer } from "../dist/scripted-model/scripted-model-server.js";
import { log, median, SMOKE } from "./stats.mjs";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const RESULTS = join(ROOT, "bench", "results", "sessions.json");
const ROUNDS = SMOKE ? 1 : Number(process.env.CREW_BENCH_ROUNDS ?? 3);
const TURNS = SMOKE ? 4 : 12;
const CLIS = SMOKE ? ["pi"] : ["pi", "claude", "codex"];
const COMMANDS = {
	claude: [join(ROOT, "node_modules", ".bin", "claude")],
	codex: [join(ROOT, "node_modules", ".bin", "codex")],
};

/** A git repository with TURNS source files of about 80 lines each, and one agent of `cli` on the scripted model. */
function repository(cli, model) {
	const dir = mkdtempSync(join(tmpdir(), "crew-bench-sessions-"));
	const git = (...args) => execFileSync("git", args, { cwd: dir, stdio: "ignore" });
	git("init", "-q");
	mkdirSync(join(dir, "src"));
	for (let k = 0; k < TURNS; k++) {
		const lines = Array.from(
			{ length: 80 },
			(_, i) => `export const value${k}_${i} = compute(${k}, ${i}); // part ${k}`,
		);
		writeFileSync(join(dir, "src", `part-${k}.ts`), `${lines.join("\n")}\n`);
	}
	git("add", "-A");
	git("-c", "user.name=b", "-c", "user.email=b@b", "commit", "-qm", "sources");
	mkdirSync(join(dir, ".crew", "agents"), { recursive: true });
	mkdirSync(join(dir, ".crew", "workflows"), { recursive: true });
	writeFileSync(
		join(dir, ".crew", "agents", "reader.md"),
		`---\nname: reader\nruntime: ${cli}\nmodel: ${model}\n---\nYou read code and report.\n`,
	);
	writeFileSync(
		join(dir, ".crew", "workflows", "read.workflow.md"),
		"---\nname: read\n---\n\n## read\nrole: reader\nretries: 1\n\nRead every file of src/ and say what they export.\n",
	);
	return dir;
}

/**
 * The model of the task: the next file to read while some are unread (counted from the tool
 * results its conversation holds), else the answer; a 500 the first time it stands half-way.
 */
function model() {
	let failed = false;
	return (request) => {
		const read = request.messages.filter((m) => m.text.includes("compute(")).length;
		if (read === TURNS / 2 && !failed) {
			failed = true;
			return { kind: "error", status: 500, message: "overloaded" };
		}
		if (read < TURNS) return { kind: "shell", command: `cat src/part-${read}.ts` };
		return { kind: "text", text: `they export ${TURNS * 80} values` };
	};
}

/** One run of the task on `cli`, continuing or not: its tokens, wall time and model requests. */
async function once(cli, continues) {
	const server = await ScriptedModelServer.start(model());
	const scripted = scriptedCliSetup(cli, server.url, mkdtempSync(join(tmpdir(), `crew-bench-${cli}-`)));
	const dir = repository(cli, scripted.model);
	const env = { PATH: process.env.PATH, ...scripted.env };
	const crew = new Crew({
		project: projectAt(dir),
		runtimes: RuntimeRegistry.standard({ [cli]: { env, ...(COMMANDS[cli] ? { command: COMMANDS[cli] } : {}) } }),
		retryPolicy: { baseMs: 50, factor: 2, maxMs: 200, jitter: 0 },
	});
	try {
		const plan = await crew.plan({ goal: "read", workflow: "read", ...(continues ? {} : { continueSessions: false }) });
		const runId = crew.create(plan);
		const started = performance.now();
		const status = await crew.execute(runId);
		const ms = performance.now() - started;
		if (status !== "completed") throw new Error(`${cli}: the run ended ${status}`);
		const task = crew.snapshot(runId).tasks[0];
		if (task.attempts !== 2) throw new Error(`${cli}: the task took ${task.attempts} attempts, not 2`);
		const reader = new RunReader(projectAt(dir));
		const retry = reader.attempts(runId)[1]?.usage;
		reader.close();
		const retryTokens = retry ? retry.input + retry.output : 0;
		return { tokens: task.usage.input + task.usage.output, retryTokens, ms, requests: server.requests.length };
	} finally {
		crew.close();
		await server.close();
	}
}

const rows = [];
for (const cli of CLIS) {
	const runs = { continued: [], startedOver: [] };
	for (let round = 0; round < ROUNDS; round++) {
		const order = round % 2 === 0 ? [true, false] : [false, true];
		for (const continues of order) {
			const result = await once(cli, continues);
			runs[continues ? "continued" : "startedOver"].push(result);
			log(`${cli} round ${round + 1} ${continues ? "continued" : "started over"}: ${JSON.stringify(result)}`);
		}
	}
	const of = (list, key) => median(list.map((r) => r[key]));
	const row = { cli, turns: TURNS };
	for (const way of ["continued", "startedOver"]) {
		row[way] = {
			tokens: of(runs[way], "tokens"),
			retryTokens: of(runs[way], "retryTokens"),
			ms: Math.round(of(runs[way], "ms")),
			requests: of(runs[way], "requests"),
		};
	}
	row.tokensSaved = 1 - row.continued.tokens / row.startedOver.tokens;
	row.retryTokensSaved = 1 - row.continued.retryTokens / row.startedOver.retryTokens;
	row.timeSaved = 1 - row.continued.ms / row.startedOver.ms;
	rows.push(row);
	const pct = (x) => `${Math.round(x * 100)}%`;
	console.log(
		`${cli}: a ${TURNS}-turn task cut half-way by a model error: continued ${row.continued.requests} requests, ${row.continued.tokens} tokens, ${(row.continued.ms / 1000).toFixed(1)} s; started over ${row.startedOver.requests} requests, ${row.startedOver.tokens} tokens, ${(row.startedOver.ms / 1000).toFixed(1)} s (saves ${pct(row.tokensSaved)} of the task's tokens and ${pct(row.retryTokensSaved)} of the retry's, ${row.continued.retryTokens} against ${row.startedOver.retryTokens}; ${pct(row.timeSaved)} of wall time)`,
	);
	if (row.continued.requests >= row.startedOver.requests) throw new Error(`${cli}: continuing took no fewer requests`);
}
if (!SMOKE) {
	mkdirSync(join(ROOT, "bench", "results"), { recursive: true });
	writeFileSync(RESULTS, `${JSON.stringify({ rounds: ROUNDS, rows }, null, "\t")}\n`);
}
