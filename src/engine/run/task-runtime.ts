// A task's worker runtime, wrapped for its verify, goal judge, worktree, conflict resolution or replay.

import { readOnlyAgent } from "../../core/sandbox.js";
import type { RunOptions, TaskSpec } from "../../core/types.js";
import { replaying } from "../../runtimes/replay-runtime.js";
import type { RuntimeRegistry } from "../../runtimes/runtime-registry.js";
import { withVerification } from "../../runtimes/verified-runtime.js";
import type { WorkerRuntime } from "../../runtimes/worker-runtime.js";
import { SPEC_CHECK_VARIABLES, withSpecChecks } from "../../specs/spec-checks.js";
import type { ArtifactFiles } from "../../store/artifact-files.js";
import type { IntegrationBranch } from "../../workspace/integration-branch.js";
import type { Worktrees } from "../../workspace/worktrees.js";
import { judgingGoal } from "../goals/judge-runtime.js";
import { resolvingConflict } from "../integration/resolution-runtime.js";
import { inWorktree } from "../integration/worktree-runtime.js";
import { inSharedWorkspace } from "./shared-workspace.js";

interface Deps {
	readonly runtimes: RuntimeRegistry;
	/** This machine's runtimes, where `runtimes` hands attempts to a queue. */
	readonly localRuntimes?: RuntimeRegistry;
	readonly worktrees: Worktrees;
	readonly integration: IntegrationBranch;
	readonly files: ArtifactFiles;
}

/**
 * A task's runtime, wrapped: checked by its verify and its strict specs, and in its own worktree in
 * worktree mode. A runtime that runs attempts elsewhere carries the check and the setup hook to
 * where its agent runs. A dry run starts no agent, so there is nothing to check and no work to keep.
 */
export function taskRuntime(spec: TaskSpec, name: string, deps: Deps, options: RunOptions): WorkerRuntime {
	const { runtimes, worktrees } = deps;
	if (spec.integration) {
		// The integration worktree is here: its conflict is resolved on this machine.
		const local = deps.localRuntimes ?? runtimes;
		const agent = replayed(local.get(name), deps, options);
		const checked = spec.verify ? withVerification(agent, local.get("command"), spec.verify) : agent;
		return resolvingConflict(checked, deps.integration, worktrees, spec.integration);
	}
	const own = runtimes.get(name);
	let runtime = replayed(own, deps, options);
	if (name === "dry-run") return runtime;
	const worktree = spec.worktree ? options.baseCommit : undefined;
	const setup = worktree ? options.setup : undefined;
	const carried = runtime.carry?.({
		...(spec.verify ? { verify: spec.verify } : {}),
		...(setup ? { setup } : {}),
	});
	if (carried) runtime = carried;
	else if (spec.verify) runtime = withVerification(runtime, runtimes.get("command"), spec.verify);
	// A strict step's checks run where its workspace is: here, unless the attempt ran on another machine.
	if (spec.specs?.strict) {
		const checker = carried ? undefined : runtimes.commandsKeeping(SPEC_CHECK_VARIABLES);
		runtime = withSpecChecks(runtime, checker, spec.specs);
	}
	if (spec.until?.judge) {
		const check = { ...(spec.until.command !== undefined ? { command: spec.until.command } : {}), base: worktree };
		runtime = judgingGoal(runtime, runtimes.get("command"), check);
	}
	if (worktree) {
		const hook = carried ? undefined : { hook: setup, runner: runtimes.get("command") };
		// A script's call starts from the work of the calls its branch had awaited.
		const dependencies = spec.call?.after ?? spec.dependsOn;
		// What the task may change: its step's scopes; nothing, for a read-only agent. A goal's check
		// may leave what it builds: its branch is never integrated.
		const scope = spec.until ? undefined : (spec.writes ?? (readOnlyAgent(spec.agent) ? [] : undefined));
		runtime = inWorktree(runtime, worktrees, worktree, dependencies, hook, scope);
	} else if (own.keepsSessions && !options.replay) runtime = inSharedWorkspace(runtime);
	return runtime;
}

/** In a replay, `runtime` answering from the replayed run's record (see `replaying`); else `runtime`. */
function replayed(runtime: WorkerRuntime, deps: Deps, options: RunOptions): WorkerRuntime {
	if (!options.replay) return runtime;
	const { of, failures = {}, madeIn = {}, attempts = {} } = options.replay;
	const source = { runId: of, dir: deps.files.runDir(of), failures, madeIn, attempts };
	return replaying(source, options.replay.live ? runtime : undefined);
}

/**
 * Why the agent of a task's attempt run by runtime `name` cannot take messages while it works;
 * undefined when it can.
 */
export function unsteerable(spec: TaskSpec, name: string, deps: Deps): string | undefined {
	const here = deps.localRuntimes ?? deps.runtimes;
	const local = spec.integration || here === deps.runtimes;
	const runtime = (spec.integration ? here : deps.runtimes).get(name);
	if (runtime.steerable) return undefined;
	if (!local) return "its attempt runs on a remote worker, which takes no messages for it";
	if (name === "command") return "a command agent cannot be steered: it takes no messages";
	return `${name} agents take no messages while they work`;
}
