// The end of a worktree run: its tasks' branches merged into `crew/<runId>`, conflicts resolved or recorded.

import { errorMessage } from "../../core/errors.js";
import type { RunRecord } from "../../core/records.js";
import { resolutionPrompt } from "../../core/resolution-prompt.js";
import { TaskStatus } from "../../core/status.js";
import {
	type IntegrationRecord,
	IntegrationStatus,
	type MergeOrder,
	type ResolutionSpec,
	type TaskSpec,
} from "../../core/types.js";
import type { Lease } from "../../store/lease.js";
import type { RunStore } from "../../store/run-store.js";
import type { Integration, IntegrationBranch, MergeConflict } from "../../workspace/integration-branch.js";
import type { RunTasks } from "./tasks.js";
import type { RunWrites } from "./writes.js";

/** The step id of resolution tasks, and the start of their task ids. */
const RESOLVE = "integrate";

/**
 * The end of a worktree run: its completed tasks' branches merged into `crew/<runId>`. A conflict
 * is settled by a resolution task that joins the run (in `auto` mode, while the run may start
 * tasks), or is left for a person; either way how it went is recorded for every view.
 */
export class RunIntegration {
	readonly #store: RunStore;
	readonly #writes: RunWrites;
	readonly #branch: IntegrationBranch;
	readonly #lease: Lease;
	readonly #run: RunRecord;
	readonly #tasks: RunTasks;
	#record: IntegrationRecord | undefined;

	constructor(
		deps: { store: RunStore; writes: RunWrites; branch: IntegrationBranch },
		lease: Lease,
		run: RunRecord,
		tasks: RunTasks,
	) {
		this.#store = deps.store;
		this.#writes = deps.writes;
		this.#branch = deps.branch;
		this.#lease = lease;
		this.#run = run;
		this.#tasks = tasks;
	}

	/** Whether this runner has recorded the run's integration. */
	get recorded(): boolean {
		return this.#record !== undefined;
	}

	/** Why the run's work is not all on its integration branch, when it is not. */
	incomplete(): string | undefined {
		const record = this.#record;
		if (!record || record.missing.length === 0 || record.status === IntegrationStatus.Skipped) return undefined;
		const why =
			record.conflicts.length > 0
				? record.conflicts
						.map((c) => `${c.task} conflicts with the work merged before it in ${c.files.join(", ")}`)
						.join("; ")
				: `git failed: ${record.error ?? "unknown error"}`;
		return `integration incomplete: ${why}; missing from ${record.branch}: ${record.missing.join(", ")}`;
	}

	/**
	 * Merges the completed tasks' branches. A conflict that a new resolution task may settle (when
	 * `mayResolve`) returns that task, for the run to add; otherwise the outcome is recorded.
	 */
	async integrate(mayResolve: boolean): Promise<TaskSpec | undefined> {
		const base = this.#run.options.baseCommit;
		const done = this.#ownBranches(true);
		if (!base || done.length === 0) return undefined;
		const agent = this.#run.options.integration?.mode === "auto" ? this.#run.options.integration.agent : undefined;
		try {
			if (mayResolve && agent) {
				const first = await this.#merge(base, done, true);
				const conflict = first.conflicts[0];
				const tried = conflict && this.#resolutions().some((r) => sameConflict(r, conflict));
				if (conflict && !tried) return await this.#resolution(conflict, first, base);
				if (!conflict) return await this.#recordOf(first, done);
			}
			return await this.#recordOf(await this.#merge(base, done, false), done);
		} catch (error) {
			const failure = { merged: [], missing: done, resolvedBy: [], conflicts: [], error: errorMessage(error) };
			await this.#save({ status: IntegrationStatus.Failed, ...failure });
		}
		return undefined;
	}

	/**
	 * Merges `done` in the order, of those the DAG allows, that trial merges find conflicts least;
	 * the result says what that order was when it is not dependency order.
	 */
	async #merge(
		base: string,
		done: readonly string[],
		stopAtConflict: boolean,
	): Promise<Integration & { order?: MergeOrder }> {
		const runId = this.#lease.runId;
		const waits = done.map((task) => ({ task, after: this.#before(task).filter((t) => done.includes(t)) }));
		const order = await this.#branch.leastConflicting(runId, base, waits);
		const moved = order.chosen.some((task, k) => task !== order.dependencyOrder[k]);
		const resolutions = this.#resolutions(TaskStatus.Completed);
		const tasks = moved ? order.chosen : done;
		const result = await this.#branch.integrate(runId, base, tasks, resolutions, stopAtConflict);
		return moved ? { ...result, order } : result;
	}

	/** The tasks `task` waits for, directly or through others. */
	#before(task: string): string[] {
		const { dag } = this.#tasks;
		const seen = new Set<number>();
		const walk = (i: number) => {
			for (const d of dag.dependencies[i] ?? []) {
				if (seen.has(d)) continue;
				seen.add(d);
				walk(d);
			}
		};
		walk(dag.indexOf.get(task) ?? -1);
		return [...seen].map((i) => this.#tasks.id(i));
	}

	async #recordOf(result: Integration & { order?: MergeOrder }, done: readonly string[]): Promise<undefined> {
		const { merged, resolvedBy, conflicts, commit, order } = result;
		const status =
			conflicts.length > 0
				? IntegrationStatus.Conflict
				: resolvedBy.length > 0
					? IntegrationStatus.Resolved
					: IntegrationStatus.Merged;
		const base = this.#run.options.baseCommit as string;
		const carried = await this.#branch.carried(this.#lease.runId, base, this.#ownBranches(false), merged);
		await this.#save({
			status,
			commit,
			merged,
			...(carried.length > 0 ? { carried } : {}),
			missing: done.filter((id) => !merged.includes(id)),
			resolvedBy,
			conflicts: conflicts.map(({ task, branch, files }) => ({ task, branch, files })),
			...(order ? { order } : {}),
		});
		return undefined;
	}

	/** A cancelled run is not integrated: every completed task's work stays on its own branch. */
	async skip(): Promise<void> {
		const done = this.#ownBranches(true);
		if (!this.#run.options.baseCommit || done.length === 0) return;
		await this.#save({ status: IntegrationStatus.Skipped, merged: [], missing: done, resolvedBy: [], conflicts: [] });
	}

	async #save(facts: Omit<IntegrationRecord, "branch">): Promise<void> {
		const record = { branch: this.#branch.name(this.#lease.runId), ...facts };
		await this.#writes.batch(() => this.#store.integrations.record(this.#lease, record));
		this.#record = record;
	}

	/**
	 * The completed tasks with a branch of their own, in dependency order; a goal's check only looks
	 * at the work, so what it leaves (a build's output) is not the run's.
	 */
	/** The tasks with a branch of their own work: those that completed, or (`!completed`) the others. */
	#ownBranches(completed: boolean): string[] {
		const { dag, specs, status } = this.#tasks;
		// A dry run's task starts no process and gets no worktree: it has no work to bring back.
		const dry = (i: number) => (this.#run.options.runtime ?? specs[i]?.agent.runtime) === "dry-run";
		const own = (i: number) => specs[i]?.worktree && !specs[i]?.integration && !specs[i]?.until;
		return dag.order
			.filter((i) => (status[i] === TaskStatus.Completed) === completed && own(i) && !dry(i))
			.map((i) => this.#tasks.id(i));
	}

	/** The run's resolution tasks (those in `status`, when given), with the conflict each settles. */
	#resolutions(status?: TaskStatus): (ResolutionSpec & { id: string })[] {
		return this.#tasks.specs.flatMap((spec, i) =>
			spec.integration && (status === undefined || this.#tasks.status[i] === status)
				? [{ id: spec.id, ...spec.integration }]
				: [],
		);
	}

	/**
	 * The task that resolves `conflict`: run by the run's integrator in the integration worktree,
	 * after the tasks whose work meets there (their results reach its prompt), checked by their
	 * checks and the run's `--until` on the resolved tree.
	 */
	async #resolution(conflict: MergeConflict, integration: Integration, base: string): Promise<TaskSpec> {
		const runId = this.#lease.runId;
		const { merged } = integration;
		const touching: string[] = [];
		for (const id of merged) {
			const changed = await this.#branch.changedFiles(runId, base, id);
			if (changed.some((file) => conflict.files.includes(file))) touching.push(id);
		}
		const sides = [...touching, conflict.task].map((id) => this.#tasks.specs[this.#tasks.dag.indexOf.get(id) ?? -1]);
		const specs = sides.filter((spec): spec is TaskSpec => spec !== undefined);
		const checks = [
			...new Set([
				...specs.flatMap((s) => (s.verify?.kind === "command" ? [s.verify.command] : [])),
				...this.#tasks.specs.flatMap((s) => (s.until?.command !== undefined ? [s.until.command] : [])).slice(-1),
			]),
		];
		const text = resolutionPrompt({
			task: conflict.task,
			files: conflict.files,
			merged,
			checks,
			sides: specs.map((s) => ({ taskId: s.id, role: s.role, text: s.text, incoming: s.id === conflict.task })),
		});
		const { task, branch, head, intoTree, files } = conflict;
		const id = this.#freeId(`${RESOLVE}.${task}`);
		await this.#branch.startResolution(runId, id, integration.commit);
		return {
			id,
			stepId: RESOLVE,
			role: "integrator",
			agent: this.#run.options.integration?.agent ?? { name: "integrator", runtime: "pi", systemPrompt: "" },
			text,
			dependsOn: specs.map((s) => s.id),
			...(checks.length > 0
				? { verify: { kind: "command" as const, command: checks.map((c) => `(${c})`).join(" && ") } }
				: {}),
			integration: { task, branch, head, intoTree, files },
		};
	}

	#freeId(wanted: string): string {
		let id = wanted;
		for (let k = 2; this.#tasks.dag.indexOf.has(id); k++) id = `${wanted}.${k}`;
		return id;
	}
}

function sameConflict(a: Pick<ResolutionSpec, "task" | "head" | "intoTree">, b: MergeConflict): boolean {
	return a.task === b.task && a.head === b.head && a.intoTree === b.intoTree;
}
