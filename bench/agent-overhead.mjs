/**
 * crew's overhead over calling an agent CLI directly, for the same one-step task: for pi, Claude
 * Code and Codex, against the scripted model server. Each round runs the task four ways, in
 * rotating order: through `crew run` of a one-step workflow and through `crew agent` (one agent on
 * one task, no workflow file), each a process of its own as a person runs them, through crew's
 * engine in this process (as the MCP server and the pi extension run it), and as the CLI alone
 * with the same flags crew passes (taken from crew's own argument builders). Extra wall time and
 * extra prompt tokens (from the server's request log) are medians of the per-round differences.
 * Writes bench/results/agent-overhead.json.
 */
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { projectAt } from "../dist/config/project.js";
import { Crew } from "../dist/engine/crew.js";
import { AgentConversation } from "../dist/runtimes/agent/conversation.js";
import { claudeCli } from "../dist/runtimes/claude/cli.js";
import { codexCli } from "../dist/runtimes/codex/cli.js";
import { piCli } from "../dist/runtimes/pi/cli.js";
import { JsonLines } from "../dist/runtimes/process/json-lines.js";
import { RuntimeRegistry } from "../dist/runtimes/runtime-registry.js";
import { scriptedCliSetup } from "../dist/scripted-model/cli-setup.js";
import { ScriptedModelServer } from "../dist/scripted-model/scripted-model-server.js";
import { actThenReport } from "../dist/scripted-model/turns.js";
import { log, median, SMOKE } from "./stats.mjs";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const BIN = join(ROOT, "bin", "crew.js");
const RESULTS = join(ROOT, "bench", "results", "agent-overhead.json");
const ROUNDS = SMOKE ? 1 : Number(process.env.CREW_BENCH_ROUNDS ?? 10);
const TARGET = { extraMs: 150, extraPromptPercent: 5 };
const TASK = "Write the file out.txt saying hello, then say that it is written.";
/** The system prompt of a typical executor agent: what a real role adds on top of crew's scaffolding. */
const EXECUTOR_PROMPT = readFileSync(join(ROOT, "examples", "crew", "agents", "sample-executor.md"), "utf8")
	.split("---")
	.slice(2)
	.join("---")
	.trim();
/** The rows, as [CLI, label, agent's system prompt]; a smoke run leaves out the second of pi. */
const CASES = [
	["pi", "pi", ""],
	["claude", "claude", ""],
	["codex", "codex", ""],
	...(SMOKE ? [] : [["pi", "pi, executor role's system prompt", EXECUTOR_PROMPT]]),
];

const CLIS = { pi: piCli, claude: claudeCli, codex: codexCli };
const PROGRAMS = {
	pi: piCli.defaultCommand(process.env),
	claude: [join(ROOT, "node_modules", ".bin", "claude")],
	codex: [join(ROOT, "node_modules", ".bin", "codex")],
};

/**
 * Runs `file` to its end. With `talk`, a CLI's `Conversation`, it is talked to as crew's runtime
 * does: `prompt` on its stdin, then what its output calls for, until it says its work is over;
 * without, its stdin is closed at once.
 */
function timed(file, args, options, talk, prompt) {
	return new Promise((resolve, reject) => {
		const started = process.hrtime.bigint();
		const child = spawn(file, args, { ...options, stdio: [talk ? "pipe" : "ignore", "pipe", "pipe"] });
		const conversation = talk && new AgentConversation(talk, {}, () => {});
		const reading = new JsonLines(8 * 1024 * 1024, (line) => {
			if (line.kind === "json") conversation?.read(line.value);
		});
		if (conversation) {
			// A CLI that exits early breaks the pipe: its exit code says what went wrong.
			child.stdin.on("error", () => {});
			child.stdin.write(talk.prompt(prompt));
			conversation.attach(child.stdin);
		}
		let out = "";
		let err = "";
		child.stdout.on("data", (chunk) => {
			out += chunk;
			reading.push(chunk);
		});
		child.stderr.on("data", (chunk) => {
			err += chunk;
		});
		child.on("error", reject);
		child.on("close", (code) => {
			const ms = Number(process.hrtime.bigint() - started) / 1e6;
			if (code !== 0)
				reject(new Error(`${file} ${args.slice(0, 3).join(" ")} exited ${code}: ${(err + out).slice(-800)}`));
			else resolve({ ms, out });
		});
	});
}

function gitRepo(prefix) {
	const dir = mkdtempSync(join(tmpdir(), prefix));
	execFileSync("git", ["init", "-q"], { cwd: dir, stdio: "ignore" });
	return dir;
}

/** Prompt tokens the server saw since request `from`, and how many requests that was. */
function promptTokensSince(server, from) {
	const requests = server.requests.slice(from);
	return { tokens: requests.reduce((n, r) => n + r.promptTokens, 0), requests: requests.length };
}

/**
 * `systemPrompt` is the agent's, and the CLI alone gets it too, with the flags crew gives it: an
 * agent file's body replaces the CLI's own system prompt (`systemPromptMode: replace`, the
 * default), so a CLI alone on its own prompt would be measured against a different prompt.
 */
async function measure(server, name, label, systemPrompt) {
	// The CLI's home, out of the system's temp folder: Codex puts no helper of its own sandbox there,
	// and its sandboxed tools then fail.
	const home = mkdtempSync(join("/var/tmp", `crew-bench-${name}-`));
	const scripted = scriptedCliSetup(name, server.url, home);
	const env = { PATH: process.env.PATH, ...scripted.env };
	const project = gitRepo(`crew-bench-${name}-crew-`);
	const direct = gitRepo(`crew-bench-${name}-direct-`);
	mkdirSync(join(project, ".crew", "agents"), { recursive: true });
	mkdirSync(join(project, ".crew", "workflows"), { recursive: true });
	writeFileSync(
		join(project, ".crew", "agents", "agent.md"),
		`---\nname: agent\nruntime: ${name}\nmodel: ${scripted.model}\n---\n${systemPrompt}\n`,
	);
	writeFileSync(
		join(project, ".crew", "workflows", "one.workflow.md"),
		"---\nname: one\n---\n## task\nrole: agent\n\n{goal}\n",
	);
	const [program, ...lead] = PROGRAMS[name];
	// crew's own pi is the default; Claude Code and Codex come from this package's dev dependencies.
	const crewEnv = name === "pi" ? env : { ...env, [`CREW_${name.toUpperCase()}`]: program };
	const request = { agent: { name: "agent", runtime: name, model: scripted.model, systemPrompt }, prompt: TASK };
	const systemFile = join(direct, "system.md");
	writeFileSync(systemFile, systemPrompt);
	const attempt = { systemFile: systemPrompt ? systemFile : undefined, asks: false, env };
	const directArgs = [...lead, ...CLIS[name].args(request, attempt)];
	const engine = new Crew({
		project: projectAt(project),
		runtimes: RuntimeRegistry.standard({ [name]: { env, command: PROGRAMS[name] } }),
	});

	const viaCrew = async () => {
		rmSync(join(project, "out.txt"), { force: true });
		const from = server.requests.length;
		const { ms, out } = await timed(
			process.execPath,
			[BIN, "run", TASK, "--workflow", "one", "--retries", "0", "--json"],
			{
				cwd: project,
				env: crewEnv,
			},
		);
		const status = JSON.parse(out.trim().split("\n").pop() ?? "{}").status;
		if (status !== "completed") throw new Error(`crew run ended ${status}`);
		return { ms, ...promptTokensSince(server, from) };
	};
	const viaAgent = async () => {
		rmSync(join(project, "out.txt"), { force: true });
		const from = server.requests.length;
		const { ms, out } = await timed(process.execPath, [BIN, "agent", TASK, "--agent", "agent", "--json"], {
			cwd: project,
			env: crewEnv,
		});
		const status = JSON.parse(out.trim().split("\n").pop() ?? "{}").status;
		if (status !== "completed") throw new Error(`crew agent ended ${status}`);
		return { ms, ...promptTokensSince(server, from) };
	};
	const inProcess = async () => {
		rmSync(join(project, "out.txt"), { force: true });
		const from = server.requests.length;
		const started = process.hrtime.bigint();
		const runId = engine.create(await engine.plan({ goal: TASK, workflow: "one", retries: 0 }));
		const status = await engine.execute(runId);
		const ms = Number(process.hrtime.bigint() - started) / 1e6;
		if (status !== "completed") throw new Error(`in-process run ended ${status}`);
		return { ms, ...promptTokensSince(server, from) };
	};
	const alone = async () => {
		rmSync(join(direct, "out.txt"), { force: true });
		const from = server.requests.length;
		const talk = CLIS[name].conversation?.(request);
		const { ms } = await timed(program, directArgs, { cwd: direct, env }, talk, request.prompt);
		if (!existsSync(join(direct, "out.txt"))) throw new Error(`${name} alone did not write out.txt`);
		return { ms, ...promptTokensSince(server, from) };
	};

	const ways = { cli: viaCrew, agent: viaAgent, engine: inProcess, direct: alone };
	const rounds = [];
	try {
		// A warm-up round, left out of the figures; a smoke run has no figures to keep it out of.
		if (!SMOKE) for (const way of Object.values(ways)) await way();
		for (let k = 0; k < ROUNDS; k++) {
			// Rotating order, so a slow spell of the machine falls on every way alike.
			const names = Object.keys(ways);
			const order = [...names.slice(k % names.length), ...names.slice(0, k % names.length)];
			const round = {};
			for (const way of order) round[way] = await ways[way]();
			rounds.push(round);
		}
	} finally {
		engine.close();
		for (const dir of [project, direct, home]) rmSync(dir, { recursive: true, force: true });
	}
	const of = (pick) => median(rounds.map(pick));
	const extraPercent = (way) => of((r) => (100 * (r[way].tokens - r.direct.tokens)) / r.direct.tokens);
	return {
		runtime: name,
		label,
		rounds: rounds.length,
		directMs: of((r) => r.direct.ms),
		cliMs: of((r) => r.cli.ms),
		agentMs: of((r) => r.agent.ms),
		engineMs: of((r) => r.engine.ms),
		cliExtraMs: of((r) => r.cli.ms - r.direct.ms),
		agentExtraMs: of((r) => r.agent.ms - r.direct.ms),
		engineExtraMs: of((r) => r.engine.ms - r.direct.ms),
		directPromptTokens: of((r) => r.direct.tokens),
		crewPromptTokens: of((r) => r.cli.tokens),
		agentPromptTokens: of((r) => r.agent.tokens),
		extraPromptPercent: Math.max(extraPercent("cli"), extraPercent("agent"), extraPercent("engine")),
		requestsPerRun: of((r) => r.cli.requests),
	};
}

const server = await ScriptedModelServer.start(
	actThenReport(() => ({ kind: "write", path: "out.txt", content: "hello\n" }), "out.txt is written"),
);
const rows = [];
try {
	for (const [name, label, systemPrompt] of CASES) {
		log(`${label}: ${ROUNDS} rounds`);
		rows.push(await measure(server, name, label, systemPrompt));
	}
} finally {
	await server.close();
}

const fmt = (v, d = 0) => v.toFixed(d);
const lines = [
	`a one-step task through crew vs the CLI alone, medians of ${ROUNDS} rounds (targets: < ${TARGET.extraMs} ms, < ${TARGET.extraPromptPercent}% prompt tokens)`,
	"| agent | CLI alone | crew engine (extra) | crew run (extra) | crew agent (extra) | prompt tokens crew / alone (extra) |",
	"| --- | --- | --- | --- | --- | --- |",
	...rows.map(
		(r) =>
			`| ${r.label} | ${fmt(r.directMs)} ms | ${fmt(r.engineMs)} ms (${fmt(r.engineExtraMs)} ms) | ${fmt(r.cliMs)} ms (${fmt(r.cliExtraMs)} ms) | ${fmt(r.agentMs)} ms (${fmt(r.agentExtraMs)} ms) | ${r.crewPromptTokens} / ${r.directPromptTokens} (${fmt(r.extraPromptPercent, 2)}%) |`,
	),
];
process.stdout.write(`${lines.join("\n")}\n`);
if (!SMOKE) {
	mkdirSync(join(ROOT, "bench", "results"), { recursive: true });
	writeFileSync(
		RESULTS,
		`${JSON.stringify({ date: new Date().toISOString(), rounds: ROUNDS, targets: TARGET, rows }, null, "\t")}\n`,
	);
}
