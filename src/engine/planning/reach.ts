// Everything a run can execute, and the refusal of what an untrusted project's own files would run.

import { agentRuns } from "../../core/agent-runs.js";
import { CrewError, ErrorCode } from "../../core/errors.js";
import { agentAsk, stepAsk } from "../../core/sandbox.js";
import { looser, type SandboxAsk } from "../../core/sandbox-level.js";
import type { AgentSpec, RunOptions, ScriptSpec, TaskSpec } from "../../core/types.js";

/** One thing a run can make this machine do beyond what the user's own agent CLIs do. */
export interface Reachable {
	/** Who does it: `agent 'tester'`, `the check of step 'fix'`, `workflow script 'triage'`. */
	readonly what: string;
	/** What it does: a command line, `permissions: full`, a script's code. */
	readonly runs: string;
	/**
	 * Where it comes from: a resource layer, or `invocation` for the user's own flags and config
	 * (`--until`, the setup hook, the queue).
	 */
	readonly origin: "builtin" | "user" | "project" | "invocation";
	/** The file that says so; empty for an invocation's. */
	readonly file: string;
}

/** An agent whose file crew cannot name is counted as the project's: only the user's own files are exempt. */
const UNRECORDED = "(its file was not recorded)";

/**
 * Everything a run can execute, read from its recorded specs and options: the agent of every
 * task, every role a planner's expansion or a workflow script may still start, the integrator,
 * every check, the `--until` command, the setup hook, the queue, the script itself, and a
 * project's ask for a looser sandbox than the run's. Agent
 * CLIs count only with `permissions: full`; a dry run starts no agent and no check.
 */
export function runReach(tasks: readonly TaskSpec[], options: RunOptions): Reachable[] {
	const found: Reachable[] = [];
	const dry = options.runtime === "dry-run";
	const agent = (spec: AgentSpec) => {
		if (!dry) found.push(...agentReach(spec, options.runtime));
		if (spec.sandbox) found.push(...sandboxReach(`agent '${spec.name}'`, agentAsk(spec), options));
	};
	found.push(...sandboxReach("the team", options.sandbox?.team, options));
	for (const task of tasks) {
		const source = task.call ? options.script : options.source;
		found.push(...sandboxReach(`step '${task.stepId}'`, stepAsk(task, options), options));
		if (task.until) {
			if (!dry && task.until.command !== undefined) found.push(untilReach(task.until.command, options));
			if (!task.until.judge) continue;
		}
		agent(task.agent);
		for (const role of Object.values(task.expand?.roles ?? {})) agent(role);
		if (task.verify?.kind === "command" && !dry) {
			found.push({
				what: `the check of step '${task.stepId}'`,
				runs: task.verify.command,
				origin: source?.layer ?? "project",
				file: source?.file ?? UNRECORDED,
			});
		}
	}
	const script = options.script;
	if (script) {
		found.push({
			what: "workflow script",
			runs: "its TypeScript code, run by crew",
			origin: script.layer,
			file: script.file,
		});
		for (const role of Object.values(script.roles)) agent(role);
	}
	if (options.integration?.agent) agent(options.integration.agent);
	if (options.setup && !dry) {
		found.push({ what: "the setup hook", runs: options.setup.command, origin: "invocation", file: "" });
	}
	if (options.queue) {
		found.push({ what: "the queue", runs: "attempts run by its crew workers", origin: "invocation", file: "" });
	}
	return found.filter(
		(item, i) => found.findIndex((o) => o.what === item.what && o.runs === item.runs && o.file === item.file) === i,
	);
}

/**
 * A project's file asking for a looser sandbox than the run's: the repository deciding how far its
 * own tasks are confined. The user's own files and crew's may loosen it.
 */
function sandboxReach(what: string, ask: SandboxAsk | undefined, options: RunOptions): Reachable[] {
	const run = options.sandbox?.level ?? "off";
	if (!ask || !looser(ask.level, run) || (ask.source && ask.source.layer !== "project")) return [];
	const runs = `sandbox: ${ask.level}, looser than the run's ${run}`;
	return [{ what: `the sandbox of ${what}`, runs, origin: "project", file: ask.source?.file ?? UNRECORDED }];
}

/**
 * The `until` check: a person's own flag needs no trust; a command an agent gave (through MCP or
 * pi) is trusted no more than the repository the agent works in, whose files may have told it.
 */
function untilReach(command: string, options: RunOptions): Reachable {
	return options.caller
		? { what: "the until check", runs: command, origin: "project", file: "given by an agent through crew's tools" }
		: { what: "the --until check", runs: command, origin: "invocation", file: "" };
}

function agentReach(agent: AgentSpec, override: string | undefined): Reachable[] {
	const runs = agentRuns(agent, override ?? agent.runtime);
	if (runs === undefined) return [];
	return [
		{
			what: `agent '${agent.name}'`,
			runs,
			origin: agent.source?.layer ?? "project",
			file: agent.source?.file ?? UNRECORDED,
		},
	];
}

/**
 * Refuses a run that would execute anything from the project's own files, listing all of it with
 * the files it comes from, unless the user trusts the project.
 */
export function checkRunTrusted(root: string, trusted: boolean, reach: readonly Reachable[]): void {
	const needing = reach.filter((item) => item.origin === "project");
	if (needing.length === 0 || trusted) return;
	const listed = needing.map((item) => `  ${item.what} (${item.file}): ${item.runs}`);
	throw new CrewError(
		ErrorCode.Untrusted,
		`${root} is not trusted, so crew runs none of the commands its own files define; this run would run:\n${listed.join("\n")}\nIf you trust them, run \`crew trust\` in this repository and try again`,
	);
}

/** Refuses a workflow script of the project's own (its code) unless the user trusts the project. */
export function checkScriptTrusted(root: string, trusted: boolean, script: ScriptSpec): void {
	if (script.layer !== "project" || trusted) return;
	throw new CrewError(
		ErrorCode.Untrusted,
		`${root} is not trusted, so crew runs none of its own code; workflow script ${script.file} is such code. If you trust it, run \`crew trust\` in this repository and try again`,
	);
}
