// How a run gains tasks while it runs: plans, `--until` passes, script calls and conflict resolutions.

import { readAdaptivePlan } from "../../core/adaptive-plan.js";
import { fillGoal } from "../../core/prompt.js";
import type { RunRecord } from "../../core/records.js";
import type { AgentSpec, TaskSpec } from "../../core/types.js";
import { withCheckEvidence } from "../../core/verdict.js";
import type { Lease } from "../../store/lease.js";
import type { RunStore } from "../../store/run-store.js";
import { sinksOf, untilId } from "../goals/until-task.js";
import type { RunDriver } from "./driver.js";
import type { RunTasks } from "./tasks.js";

/**
 * The tasks a planner's result adds to its run, run by its roles' agents, or why it adds none.
 * They work where their planner did: each in a worktree of its own when the planner had one.
 * With `approvePlan`, the plan's first tasks wait for a person, so nothing of it runs unseen.
 */
export function plannedTasks(
	planner: TaskSpec,
	result: string,
	existingIds: ReadonlySet<string>,
	run: RunRecord,
): { tasks: TaskSpec[] } | { errors: string[] } {
	const expand = planner.expand;
	if (!expand) return { errors: [`step '${planner.id}' is not a planner`] };
	const read = readAdaptivePlan(result, planner.id, existingIds, {
		roles: Object.keys(expand.roles),
		maxPhaseTasks: expand.maxPhaseTasks,
		maxTasks: expand.maxTasks,
	});
	if ("errors" in read) return read;
	return {
		tasks: read.tasks.map((t) => ({
			id: t.id,
			stepId: t.id,
			role: t.role,
			agent: expand.roles[t.role] as AgentSpec,
			text: fillGoal(t.text, run.goal),
			dependsOn: t.dependsOn,
			plannedBy: planner.id,
			...(planner.worktree ? { worktree: true } : {}),
			...(run.options.approvePlan && t.dependsOn.includes(planner.id) ? { approval: true } : {}),
		})),
	};
}

/**
 * The next pass of an `--until` loop after `check` failed: the workflow's own steps (not the
 * tasks planners added, which the copied planners add again) as `<step>.<n>`, each told what the
 * check printed, then the next check.
 */
export function nextPass(specs: readonly TaskSpec[], check: TaskSpec, evidence: string): TaskSpec[] {
	const until = check.until;
	if (!until) return [];
	const n = until.iteration + 1;
	const heading = `The goal is not met yet (pass ${n} of ${until.maxIterations})`;
	const steps = specs.filter((s) => (s.iteration ?? 1) === 1 && !s.until && !s.plannedBy);
	const own = new Set(steps.map((s) => s.id));
	const copies = steps.map((s) => ({
		...s,
		id: `${s.id}.${n}`,
		// A planner's dependents came to wait for its plan's tasks too; the copied planner plans anew.
		dependsOn: s.dependsOn.filter((d) => own.has(d)).map((d) => `${d}.${n}`),
		text: withCheckEvidence(s.text, evidence, 4000, heading),
		iteration: n,
	}));
	const next = {
		...check,
		id: untilId(n),
		dependsOn: sinksOf(copies),
		until: { ...until, iteration: n },
		iteration: n,
	};
	return [...copies, next];
}

/**
 * How a run gains tasks while it runs: a planner's plan, an `--until` pass, a script's calls, a
 * resolution of a conflict. Each joins after the tasks there, recorded with the event that says
 * why; a task the run already has is left as it is, so a growth replayed after a resume adds
 * nothing twice. `onGrown` hears each change of the graph.
 */
export class RunGrowth {
	readonly #store: RunStore;
	readonly #lease: Lease;
	readonly #tasks: RunTasks;
	readonly #onGrown: () => void;

	constructor(store: RunStore, lease: Lease, tasks: RunTasks, onGrown: () => void) {
		this.#store = store;
		this.#lease = lease;
		this.#tasks = tasks;
		this.#onGrown = onGrown;
	}

	/** `added` joins the run as `event` of `by`, with planners' `dependents` waiting for it too. */
	add(
		by: string | null,
		added: readonly TaskSpec[],
		event: string,
		dependents: readonly { taskId: string; dependsOn: readonly string[] }[] = [],
	): void {
		const fresh = this.#tasks.newOnes(added);
		if (fresh.length === 0 && dependents.length === 0) return;
		this.#store.expandRun(this.#lease, by, fresh, dependents, event);
		this.#tasks.add(fresh);
		this.#onGrown();
	}

	/** An `--until` check failed with passes left: the workflow runs again, told what it printed. */
	nextPass(check: TaskSpec, evidence: string): void {
		this.add(check.id, nextPass(this.#tasks.specs, check, evidence), "until.iteration");
	}

	/**
	 * The driver's new tasks join the run, and the tasks it asks for again that have not ended
	 * well (interrupted, cancelled) queue up; completed and failed ones keep their outcome.
	 */
	drive(driver: RunDriver): void {
		const { added, claimed } = driver.takeRequests();
		if (added.length > 0) this.add(null, added, "script.tasks");
		this.#store.transitionTasks(this.#lease, this.#tasks.claim(claimed));
		// A task asked for again may start now, queued or not before.
		if (claimed.length > 0) this.#onGrown();
	}
}
