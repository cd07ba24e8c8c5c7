import { errorMessage } from "../core/errors.js";
import type { RunOptions, TaskSpec } from "../core/types.js";
import type { RuntimeRegistry } from "../runtimes/runtime-registry.js";
import { withVerification } from "../runtimes/verified-runtime.js";
import type { WorkerRuntime } from "../runtimes/worker-runtime.js";
import type { Lease } from "../store/lease.js";
import type { RunStore } from "../store/run-store.js";
import type { Worktrees } from "../workspace/worktrees.js";
import type { RunWrites } from "./run-writes.js";
import { inWorktree } from "./worktree-runtime.js";

interface Deps {
	readonly store: RunStore;
	readonly runtimes: RuntimeRegistry;
	readonly worktrees: Worktrees;
}

/**
 * A task's runtime, wrapped: checked by its verify, and in its own worktree in worktree mode. A
 * runtime that runs attempts elsewhere carries the check and the setup hook to where its agent
 * runs. A dry run starts no agent, so there is nothing to check and no work to keep.
 */
export function taskRuntime(spec: TaskSpec, name: string, deps: Deps, options: RunOptions): WorkerRuntime {
	const { runtimes, worktrees } = deps;
	let runtime = runtimes.get(name);
	if (name === "dry-run") return runtime;
	const worktree = spec.worktree ? options.baseCommit : undefined;
	const setup = worktree ? options.setup : undefined;
	const carried = runtime.carry?.({
		...(spec.verify ? { verify: spec.verify } : {}),
		...(setup ? { setup } : {}),
	});
	if (carried) runtime = carried;
	else if (spec.verify) runtime = withVerification(runtime, runtimes.get("command"), spec.verify);
	if (worktree) {
		const hook = carried ? undefined : { hook: setup, runner: runtimes.get("command") };
		// A script's call starts from the work of the calls its branch had awaited.
		const dependencies = spec.call?.after ?? spec.dependsOn;
		runtime = inWorktree(runtime, worktrees, worktree, dependencies, hook);
	}
	return runtime;
}

/**
 * In worktree mode, the completed tasks' branches (`done`, in dependency order) are merged into
 * `crew/<runId>` when the run ends; how that went is an event. A conflict does not change what
 * the tasks did: it stops the integration and names the files.
 */
export async function integrateRun(
	deps: Deps & { readonly writes: RunWrites },
	lease: Lease,
	base: string | undefined,
	done: readonly string[],
): Promise<void> {
	if (!base || done.length === 0) return;
	const { store, worktrees, writes } = deps;
	const record = (type: string, taskId: string | null, data: Record<string, unknown>) =>
		writes.batch(() => store.appendEvent(lease, type, taskId, data));
	let integrated: Awaited<ReturnType<Worktrees["integrate"]>>;
	try {
		integrated = await worktrees.integrate(lease.runId, base, done);
	} catch (error) {
		await record("integration.failed", null, { error: errorMessage(error) });
		return;
	}
	if (integrated.conflict) {
		const { task, branch, files } = integrated.conflict;
		const data = { branch: integrated.branch, conflicting: branch, files, merged: integrated.merged };
		await record("integration.conflict", task, data);
	} else {
		const data = { branch: integrated.branch, commit: integrated.commit, merged: integrated.merged };
		await record("integration.done", null, data);
	}
}
