// `crew fork`, `replay` and `diff`: a past run run again as a new run, or two runs compared.

import type { Command } from "commander";
import type { SandboxLevel } from "../../core/sandbox-level.js";
import { print } from "./print.js";
import type { OutputFlags } from "./run-commands.js";

/** How a fork or a replay executes, asked now (see `ExecutionSettings`); the rest comes from the user's config. */
export interface ExecutionFlags {
	readonly runtime?: string;
	readonly sandbox?: SandboxLevel;
}

export interface ForkFlags extends OutputFlags, ExecutionFlags {
	readonly from?: readonly string[];
	readonly model?: string;
	readonly team?: string;
	readonly workflow?: string;
	readonly prompt?: readonly string[];
	readonly dry?: boolean;
}

type ReplayFlags = OutputFlags & ExecutionFlags & { liveOnDivergence?: boolean };

/** Never the record's: a run's record may come from another store, or from a bundle someone edited. */
const RUNTIME_TEXT =
	"runtime for every agent, as crew run takes it (default: each agent's own; never the run's record)";
const SANDBOX_TEXT =
	"sandbox level, as crew run takes it (default: your config's, else workspace; never the run's record)";

/**
 * `crew fork`: a new run of a run's goal that takes the outcomes of its tasks that need not run
 * again; `crew diff`: two runs compared. Registered at every start; what they need loads when one runs.
 */
export function forkCommands(cli: Command, exit: (code: Promise<number>) => Promise<void>): void {
	cli
		.command("fork")
		.description(
			"run a run again as a new run, reusing the outcomes of its tasks before --from and of those whose step has not changed",
		)
		.argument("<runId>")
		.option("--from <task|step,...>", "run these tasks again, and everything after them", (value: string) =>
			value.split(",").map((ref) => ref.trim()),
		)
		.option("-m, --model <model>", "model of the tasks that run again (needs --from)")
		.option("-t, --team <name|path>", "another team (a task whose agent changes runs again)")
		.option("-w, --workflow <name|path>", "another workflow, or the run's own as it is now (the default)")
		.option(
			"--prompt <step=file>",
			"a new text for a step, read from a file (may be given again)",
			(value: string, given: string[] = []) => [...given, value],
		)
		.option("--runtime <name>", RUNTIME_TEXT)
		.option("--sandbox <level>", SANDBOX_TEXT)
		.option("--dry", "print what would be reused and what would run, with an estimate, and make nothing")
		.option("-d, --detach", "run in the background")
		.option("--json", "print {runId, status} at the end (with --dry: the decision)")
		.action(async (runId: string, flags: ForkFlags) => exit(fork(runId, flags)));
	cli
		.command("replay")
		.description(
			"run a run's workflow again answering every task from the run's record, no agent started: a task whose prompt differs is reported as diverged",
		)
		.argument("<runId>")
		.option("--live-on-divergence", "run a diverged task for real instead of failing it")
		.option("--runtime <name>", RUNTIME_TEXT)
		.option("--sandbox <level>", SANDBOX_TEXT)
		.option("-d, --detach", "run in the background")
		.option("--json", "print {runId, status} at the end")
		.action(async (runId: string, flags: ReplayFlags) => exit(replay(runId, flags)));
	cli
		.command("diff")
		.description(
			"compare two runs task by task (a fork with its run, say): status, attempts, tokens, results and patches",
		)
		.argument("<runA>")
		.argument("<runB>")
		.option("--json", "print the comparison as JSON")
		.action(async (a: string, b: string, flags: { json?: boolean }) =>
			exit((await import("./diff-command.js")).diffCommand(a, b, flags)),
		);
}

async function fork(runId: string, flags: ForkFlags): Promise<number> {
	const [
		{ readFileSync },
		{ CrewError, ErrorCode },
		{ checkId },
		runs,
		{ estimateFromStore },
		{ Exit },
		{ executionInput },
	] = await Promise.all([
		import("node:fs"),
		import("../../core/errors.js"),
		import("../../core/ids.js"),
		import("./run-commands.js"),
		import("../../engine/planning/estimate.js"),
		import("./exit-codes.js"),
		import("../shared/run-input.js"),
	]);
	checkId("run", runId);
	const prompts: Record<string, string> = {};
	for (const given of flags.prompt ?? []) {
		const at = given.indexOf("=");
		if (at < 1) throw new CrewError(ErrorCode.InvalidInput, `--prompt ${given}: expected <step>=<file>`);
		prompts[given.slice(0, at)] = readFileSync(given.slice(at + 1), "utf8");
	}
	const { crew, view, quiet, settings } = runs.open(flags);
	try {
		const fork = await crew.planFork({
			runId,
			now: executionInput(flags, settings),
			...(flags.from ? { from: flags.from } : {}),
			...(flags.model ? { model: flags.model } : {}),
			...(flags.team ? { team: flags.team } : {}),
			...(flags.workflow ? { workflow: flags.workflow } : {}),
			prompts,
		});
		const { decision } = fork;
		const rerun = new Set(decision.rerun.map((r) => r.taskId));
		// What runs, as a plan of its own: the tasks it reuses are done before it starts.
		const tasks = fork.plan.tasks
			.filter((t) => rerun.has(t.id))
			.map((t) => ({ ...t, dependsOn: t.dependsOn.filter((d) => rerun.has(d)) }));
		const estimate = estimateFromStore({ ...fork.plan, tasks }, crew.project);
		if (flags.dry) {
			const reused = decision.reused.map((t) => ({ taskId: t.id, usage: t.inherited?.usage ?? t.usage }));
			if (flags.json)
				print(`${JSON.stringify({ from: runId, reused, rerun: decision.rerun, estimate: estimate.line })}\n`);
			else print(decisionText(runId, decision, estimate.line));
			return Exit.Ok;
		}
		const id = await crew.createFork(fork);
		if (flags.detach) return await runs.detach(crew, id, flags.json === true, ["--if-queued"]);
		if (!flags.json) print(`run ${id}: a fork of ${runId}\n${decisionText(runId, decision, estimate.line)}`);
		return await runs.foreground(crew, id, view, flags.json === true, quiet);
	} finally {
		crew.close();
	}
}

async function replay(runId: string, flags: ReplayFlags): Promise<number> {
	const [{ checkId }, runs, { executionInput }] = await Promise.all([
		import("../../core/ids.js"),
		import("./run-commands.js"),
		import("../shared/run-input.js"),
	]);
	checkId("run", runId);
	const { crew, view, quiet, settings } = runs.open(flags);
	try {
		const id = await crew.replay(runId, flags.liveOnDivergence === true, executionInput(flags, settings));
		if (flags.detach) return await runs.detach(crew, id, flags.json === true, ["--if-queued"]);
		if (!flags.json) print(`run ${id}: a replay of ${runId}\n`);
		return await runs.foreground(crew, id, view, flags.json === true, quiet);
	} finally {
		crew.close();
	}
}

/** What a fork reuses and runs, a line each, and the estimate of what runs. */
function decisionText(
	runId: string,
	decision: import("../../engine/history/fork.js").ForkDecision,
	estimate: string,
): string {
	const lines = decision.reused.map((t) => `  reuse ${t.id} (from ${t.inherited?.runId ?? runId})`);
	for (const r of decision.rerun) lines.push(`  run   ${r.taskId}: ${r.why}`);
	return `${lines.join("\n")}\nestimate of what runs: ${estimate}\n`;
}
