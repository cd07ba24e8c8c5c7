/**
 * What conflict foresight buys: a worktree run of PAIRS pairs of pi tasks, each pair changing the
 * first line of a file of its own two ways, against the scripted model playing a cooperative
 * model: it makes its change, then works on (a second's read of its file a turn) for up to
 * POLLS turns; told by crew that the other task of its pair changes the same lines, the second of
 * the pair puts the line back and writes its own file, and both end. Each run goes once with foresight off (`--no-foresight`) and once on, in rotating
 * order, ROUNDS rounds; the team's integrator is a command that keeps the work merged first. It
 * reports, medians: the conflicts met at integration (resolution tasks), the run's wall time,
 * and how many seconds before the integration the first collision was foreseen. Then what one
 * look costs: a snapshot of two worktrees each changing FILES files and their trial merge, timed
 * in process, median of LOOKS. Writes bench/results/foresight.json.
 */

import { execFileSync } from "node:child_process";
import { appendFileSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { projectAt } from "../dist/config/project.js";
import { Crew } from "../dist/engine/crew.js";
import { RunReader } from "../dist/engine/views/reader.js";
import { RuntimeRegistry } from "../dist/runtimes/runtime-registry.js";
import { scriptedCliSetup } from "../dist/scripted-model/cli-setup.js";
import { ScriptedModelServer } from "../dist/scripted-model/scripted-model-server.js";
import { collision, snapshot } from "../dist/workspace/collisions.js";
import { log, median, SMOKE } from "./stats.mjs";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const RESULTS = join(ROOT, "bench", "results", "foresight.json");
const ROUNDS = SMOKE ? 1 : Number(process.env.CREW_BENCH_ROUNDS ?? 3);
const PAIRS = SMOKE ? 1 : 3;
/** Turns an agent not told of a collision works on before it ends. */
const POLLS = 6;
const FILES = SMOKE ? 5 : 50;
const LOOKS = SMOKE ? 3 : 20;
const LINES = "line one\nline two\nline three\n";

const git = (dir, ...args) =>
	execFileSync("git", ["-c", "user.name=b", "-c", "user.email=b@b", ...args], { cwd: dir, stdio: "pipe" }).toString();

/** A repository with a file per pair, two pi agents per pair's sides, and a command integrator. */
function repository(model) {
	const dir = mkdtempSync(join(tmpdir(), "crew-bench-foresight-"));
	git(dir, "init", "-q");
	for (let p = 0; p < PAIRS; p++) writeFileSync(join(dir, `file-${p}.txt`), LINES);
	git(dir, "add", "-A");
	git(dir, "commit", "-qm", "files");
	mkdirSync(join(dir, ".crew", "agents"), { recursive: true });
	mkdirSync(join(dir, ".crew", "workflows"), { recursive: true });
	mkdirSync(join(dir, ".crew", "teams"), { recursive: true });
	writeFileSync(
		join(dir, ".crew", "agents", "writer.md"),
		`---\nname: writer\nruntime: pi\nmodel: ${model}\nsandbox: off\n---\nYou write.\n`,
	);
	// The resolution keeps the side merged first: what the integration held when it met the conflict.
	const keep = "git diff --name-only --diff-filter=U | xargs -r git checkout --ours -- ; git add -A";
	writeFileSync(
		join(dir, ".crew", "agents", "keeper.md"),
		`---\nname: keeper\nruntime: command\ncommand: ${keep}\nsandbox: off\n---\n`,
	);
	writeFileSync(
		join(dir, ".crew", "teams", "pairs.team.md"),
		"---\nname: pairs\n---\n- writer: agent=writer\n- integrator: agent=keeper\n",
	);
	const steps = [];
	for (let p = 0; p < PAIRS; p++) {
		for (const side of ["a", "b"]) {
			steps.push(`## p${p}${side}\nrole: writer\n\nPut ${side}${p} on the first line of file-${p}.txt.\n`);
		}
	}
	writeFileSync(join(dir, ".crew", "workflows", "pairs.workflow.md"), `---\nname: pairs\n---\n${steps.join("\n")}`);
	// The integrator runs a command from the repository's files: the repository must be trusted.
	execFileSync(process.execPath, [join(ROOT, "bin", "crew.js"), "trust"], { cwd: dir, stdio: "ignore" });
	return dir;
}

/** The cooperative model: see the header. Each task is known by its step's text. */
function cooperative() {
	return (request) => {
		const prompt = request.messages.find((m) => m.role === "user")?.text ?? "";
		const [, side, pair] = /Put ([ab])(\d+) on the first line/.exec(prompt) ?? [];
		if (side === undefined) return { kind: "text", text: "not mine" };
		// Where the conversation stands, from the conversation alone: the model's turns since it was told, or since it began.
		const toldAt = request.messages.findIndex((m) => m.text.includes("works beside you"));
		const told = toldAt >= 0;
		const n = request.messages.slice(Math.max(0, toldAt)).filter((m) => m.role === "assistant").length;
		const file = `file-${pair}.txt`;
		if (!told) {
			if (n === 0) return { kind: "write", path: file, content: LINES.replace("line one", `${side}${pair}`) };
			return n <= POLLS
				? { kind: "delay", ms: 1000, turn: { kind: "call", tool: "read", args: { path: file } } }
				: { kind: "text", text: "done" };
		}
		if (side === "a") return { kind: "text", text: `kept my part of ${file}` };
		if (n === 0) return { kind: "write", path: file, content: LINES };
		if (n === 1) return { kind: "write", path: `b${pair}.txt`, content: `b${pair}\n` };
		return { kind: "text", text: `left the first line of ${file} to the other task` };
	};
}

/** One run, foresight on or off: its conflicts met at integration, wall time, and the lead of the first prediction. */
async function once(foresight) {
	const server = await ScriptedModelServer.start(cooperative());
	const scripted = scriptedCliSetup("pi", server.url, mkdtempSync(join(tmpdir(), "crew-bench-pi-")));
	const dir = repository(scripted.model);
	const crew = new Crew({
		project: projectAt(dir),
		runtimes: RuntimeRegistry.standard({ pi: { env: { PATH: process.env.PATH, ...scripted.env } } }),
	});
	try {
		const plan = await crew.plan({
			goal: "pairs",
			workflow: "pairs",
			team: "pairs",
			workspace: "worktree",
			concurrency: 2 * PAIRS,
			...(foresight ? {} : { foresight: false }),
		});
		const runId = crew.create(plan);
		const started = performance.now();
		const status = await crew.execute(runId);
		const ms = performance.now() - started;
		if (status !== "completed") throw new Error(`foresight ${foresight ? "on" : "off"}: the run ended ${status}`);
		const reader = new RunReader(projectAt(dir));
		const events = reader.events(runId, 0, 100_000);
		const run = reader.run(runId);
		const resolutions = reader.status(runId).tasks.filter((t) => t.stepId === "integrate").length;
		reader.close();
		const predicted = events.find((e) => e.type === "integration.predicted");
		const integrated = events.find((e) => e.type.startsWith("integration.") && e.type !== "integration.predicted");
		const leadS = predicted && integrated ? (Date.parse(integrated.time) - Date.parse(predicted.time)) / 1000 : null;
		return { resolutions, foreseen: run.foreseen.length, ms, leadS };
	} finally {
		crew.close();
		await server.close();
	}
}

/** What one look costs: two worktrees each changing FILES files, snapshotted and merged on trial. */
async function lookCost() {
	const dir = mkdtempSync(join(tmpdir(), "crew-bench-look-"));
	git(dir, "init", "-q");
	for (let f = 0; f < FILES; f++)
		writeFileSync(join(dir, `f${f}.txt`), `${Array.from({ length: 200 }, (_, i) => `line ${i}`).join("\n")}\n`);
	git(dir, "add", "-A");
	git(dir, "commit", "-qm", "files");
	const trees = ["x", "y"].map((side) => {
		const path = join(dir, `wt-${side}`);
		git(dir, "worktree", "add", "-q", "--detach", path);
		for (let f = 0; f < FILES; f++) appendFileSync(join(path, `f${f}.txt`), `${side} was here\n`);
		return path;
	});
	const times = [];
	for (let k = 0; k < LOOKS; k++) {
		const start = performance.now();
		const [x, y] = [await snapshot(trees[0]), await snapshot(trees[1])];
		const found = await collision(dir, x, y);
		times.push(performance.now() - start);
		if (found?.files.length !== FILES) throw new Error(`the look found ${found?.files.length} files, not ${FILES}`);
	}
	return median(times);
}

const runs = { off: [], on: [] };
for (let round = 0; round < ROUNDS; round++) {
	for (const on of round % 2 === 0 ? [false, true] : [true, false]) {
		const result = await once(on);
		runs[on ? "on" : "off"].push(result);
		log(`foresight round ${round + 1} ${on ? "on" : "off"}: ${JSON.stringify(result)}`);
	}
}
const of = (list, key) => median(list.map((r) => r[key]).filter((v) => v !== null));
const row = {};
for (const way of ["off", "on"]) {
	row[way] = { resolutions: of(runs[way], "resolutions"), ms: Math.round(of(runs[way], "ms")) };
}
row.on.leadS = of(runs.on, "leadS");
const lookMs = await lookCost();
console.log(
	`foresight: ${PAIRS} pairs of pi tasks on overlapping lines, medians of ${ROUNDS}: off ${row.off.resolutions} conflicts at integration (resolution tasks), ${(row.off.ms / 1000).toFixed(1)} s; on ${row.on.resolutions}, ${(row.on.ms / 1000).toFixed(1)} s, the first collision foreseen ${row.on.leadS.toFixed(1)} s before the integration; one look (two worktrees of ${FILES} changed files snapshotted and merged on trial) ${lookMs.toFixed(0)} ms`,
);
if (row.on.resolutions >= row.off.resolutions) throw new Error("foresight met as many conflicts as without it");
if (!SMOKE) {
	mkdirSync(join(ROOT, "bench", "results"), { recursive: true });
	writeFileSync(
		RESULTS,
		`${JSON.stringify({ rounds: ROUNDS, pairs: PAIRS, files: FILES, ...row, lookMs }, null, "\t")}\n`,
	);
}
