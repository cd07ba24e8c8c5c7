/**
 * What crew's sandbox adds to an attempt: a one-step task run with the sandbox off and at
 * `workspace`, in pairs whose order alternates, so a slow moment of this shared machine falls on
 * both. Measured three ways: an attempt whose command is `true` (CommandRuntime.run, in this
 * process); an attempt of crew's bundled pi answering the scripted model server, whose network
 * at `workspace` is crew's gate (AgentRuntime.run); and a whole `crew run` of the command through
 * the CLI. Target: under 50 ms added per attempt. Writes bench/results/sandbox.json.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { CommandRuntime } from "../dist/index.js";
import { AgentRuntime } from "../dist/runtimes/agent/agent-runtime.js";
import { piCli } from "../dist/runtimes/pi/cli.js";
import { scriptedCliSetup } from "../dist/scripted-model/cli-setup.js";
import { ScriptedModelServer } from "../dist/scripted-model/scripted-model-server.js";
import { run, sourceVersion } from "./processes.mjs";
import { log, median, SMOKE } from "./stats.mjs";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const BIN = join(ROOT, "bin", "crew.js");
const ATTEMPT_PAIRS = SMOKE ? 1 : 30;
const RUN_PAIRS = SMOKE ? 1 : 12;
const AGENT_PAIRS = SMOKE ? 1 : 12;
const TARGET_MS = 50;

// Under /var/tmp: a confined process gets a /tmp of its own, and its workspace is then bound back.
const dir = mkdtempSync(join("/var/tmp", "crew-bench-sandbox-"));
mkdirSync(join(dir, ".git"));
mkdirSync(join(dir, ".crew", "agents"), { recursive: true });
mkdirSync(join(dir, ".crew", "workflows"), { recursive: true });
writeFileSync(
	join(dir, ".crew", "agents", "noop.md"),
	"---\nname: noop\nruntime: command\ncommand: true\n---\nNothing.\n",
);
writeFileSync(join(dir, ".crew", "workflows", "one.md"), "---\nname: one\n---\n## work\nrole: noop\n\nDo {goal}\n");
const env = { ...process.env, XDG_CONFIG_HOME: join(dir, "config") };
mkdirSync(join(dir, "config", "crew"), { recursive: true });

/** Runs `measure(off)` and `measure(on)` in pairs, alternating which goes first; each list's median and the pairs' median difference. */
async function pairs(count, measure) {
	const off = [];
	const on = [];
	const added = [];
	for (let i = 0; i < count; i++) {
		const [first, second] = i % 2 === 0 ? ["off", "workspace"] : ["workspace", "off"];
		const a = await measure(first);
		const b = await measure(second);
		const [offMs, onMs] = first === "off" ? [a, b] : [b, a];
		off.push(offMs);
		on.push(onMs);
		added.push(onMs - offMs);
	}
	return { offMs: median(off), onMs: median(on), addedMs: median(added), pairs: count };
}

const runtime = new CommandRuntime({ env });
let attempt = 0;

/** A new attempt's request at `level` for `agent`. */
function requestFor(level, agent) {
	attempt += 1;
	const artifactDir = join(dir, ".crew", "runs", "bench", "tasks", `t${attempt}`);
	return {
		runId: "bench",
		taskId: `t${attempt}`,
		stepId: "work",
		role: "noop",
		attempt: 1,
		attemptId: attempt,
		epoch: 1,
		agent,
		prompt: "Say done.",
		promptFile: join(artifactDir, "prompt.md"),
		cwd: dir,
		artifactDir,
		artifactPrefix: `tasks/t${attempt}`,
		sandbox: { level, readOnly: false, hide: [join(dir, ".crew")], show: [dir], hosts: [] },
	};
}

async function oneAttempt(level) {
	const request = requestFor(level, { name: "noop", runtime: "command", command: "true", systemPrompt: "" });
	const start = performance.now();
	const result = await runtime.run(request, { signal: new AbortController().signal, onEvent: () => {} });
	const ms = performance.now() - start;
	if (!result.ok) throw new Error(`attempt at ${level} failed: ${result.error?.message}`);
	return ms;
}

const model = await ScriptedModelServer.start(() => ({ kind: "text", text: "done" }));
const scripted = scriptedCliSetup("pi", model.url, join(dir, "pi-home"));
const pi = new AgentRuntime(piCli, { env: { PATH: process.env.PATH, ...scripted.env } });
async function oneAgentAttempt(level) {
	const request = requestFor(level, { name: "pi", runtime: "pi", model: scripted.model, systemPrompt: "" });
	const start = performance.now();
	const result = await pi.run(request, { signal: new AbortController().signal, onEvent: () => {} });
	const ms = performance.now() - start;
	if (!result.ok) throw new Error(`pi's attempt at ${level} failed: ${result.error?.message}`);
	return ms;
}

async function oneRun(level) {
	const { ms } = await run(process.execPath, [BIN, "run", "bench", "-w", "one", "--sandbox", level, "--json"], {
		cwd: dir,
		env,
	});
	return ms;
}

try {
	await run(process.execPath, [BIN, "trust"], { cwd: dir, env });
	// The first confined attempt looks for bubblewrap once per runner: measured apart.
	const first = performance.now();
	await oneAttempt("workspace");
	const firstMs = performance.now() - first;
	const attempts = await pairs(ATTEMPT_PAIRS, oneAttempt);
	log(
		`attempt (command true): off ${attempts.offMs.toFixed(1)} ms, workspace ${attempts.onMs.toFixed(1)} ms, added ${attempts.addedMs.toFixed(1)} ms (median of ${ATTEMPT_PAIRS} pairs; target < ${TARGET_MS})`,
	);
	log(`  the runner's first confined attempt, which looks for bubblewrap: ${firstMs.toFixed(1)} ms`);
	const agents = await pairs(AGENT_PAIRS, oneAgentAttempt);
	log(
		`attempt (bundled pi, scripted model, gated network): off ${agents.offMs.toFixed(0)} ms, workspace ${agents.onMs.toFixed(0)} ms, added ${agents.addedMs.toFixed(1)} ms (median of ${AGENT_PAIRS} pairs; target < ${TARGET_MS})`,
	);
	const runs = await pairs(RUN_PAIRS, oneRun);
	log(
		`crew run, one step: off ${runs.offMs.toFixed(0)} ms, workspace ${runs.onMs.toFixed(0)} ms, added ${runs.addedMs.toFixed(1)} ms (median of ${RUN_PAIRS} pairs)`,
	);
	const results = {
		version: sourceVersion(ROOT),
		targetMs: TARGET_MS,
		attempts,
		agents,
		firstAttemptMs: firstMs,
		runs,
	};
	process.stdout.write(`${JSON.stringify(results)}\n`);
	if (!SMOKE) {
		mkdirSync(join(ROOT, "bench", "results"), { recursive: true });
		writeFileSync(join(ROOT, "bench", "results", "sandbox.json"), `${JSON.stringify(results, null, 2)}\n`);
		if (attempts.addedMs >= TARGET_MS || agents.addedMs >= TARGET_MS) process.exitCode = 1;
	}
} finally {
	await model.close();
	rmSync(dir, { recursive: true, force: true });
}
