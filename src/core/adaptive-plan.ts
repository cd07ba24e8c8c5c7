// A planner's plan, read from its result into tasks to add to the run and checked against its limits.

import { buildDag } from "./dag.js";
import { isValidId } from "./ids.js";

/** What a planner step may add to its run. */
export interface ExpandLimits {
	/** The roles injected tasks may have. */
	readonly roles: readonly string[];
	/** Tasks in one phase at most. */
	readonly maxPhaseTasks: number;
	/** Tasks in the whole plan at most. */
	readonly maxTasks: number;
}

export interface PlannedTask {
	readonly id: string;
	readonly role: string;
	readonly text: string;
	/** Ids of other planned tasks, or the planner's own id. */
	readonly dependsOn: readonly string[];
}

export const PLAN_START = "ADAPTIVE_PLAN_JSON_START";
export const PLAN_END = "ADAPTIVE_PLAN_JSON_END";

interface RawTask {
	readonly id?: unknown;
	readonly role?: unknown;
	readonly title?: unknown;
	readonly task?: unknown;
	readonly dependsOn?: unknown;
}

/** The plan's JSON text: between the markers, else in the last ```json fence. */
function planText(result: string): string | undefined {
	const start = result.lastIndexOf(PLAN_START);
	if (start >= 0) {
		const end = result.indexOf(PLAN_END, start);
		if (end > start) return result.slice(start + PLAN_START.length, end).trim();
	}
	const fences = [...result.matchAll(/```json\s*\n([\s\S]*?)```/g)];
	return fences[fences.length - 1]?.[1]?.trim();
}

function textOf(task: RawTask): string {
	const title = typeof task.title === "string" ? task.title.trim() : "";
	const body = typeof task.task === "string" ? task.task.trim() : "";
	return title && body ? `${title}\n\n${body}` : title || body;
}

/**
 * Reads a planner's result into tasks to add to the run, or every reason it cannot. Two shapes:
 * `{"phases": [{"name", "tasks": [{"role", "title", "task"}]}]}`, where a phase's tasks run in
 * parallel after all of the previous phase's (the first after the planner), and
 * `{"tasks": [{"id", "role", "task", "dependsOn"}]}`. Roles must be the run's, ids new, the graph
 * acyclic and within the limits.
 */
export function readAdaptivePlan(
	result: string,
	plannerId: string,
	existingIds: ReadonlySet<string>,
	limits: ExpandLimits,
): { tasks: PlannedTask[] } | { errors: string[] } {
	const text = planText(result);
	if (text === undefined) {
		return { errors: [`no plan found: put one JSON object between the lines ${PLAN_START} and ${PLAN_END}`] };
	}
	let plan: { phases?: unknown; tasks?: unknown };
	try {
		plan = JSON.parse(text);
	} catch (error) {
		return { errors: [`the plan is not valid JSON: ${error instanceof Error ? error.message : String(error)}`] };
	}
	const errors: string[] = [];
	const tasks: PlannedTask[] = [];
	if (Array.isArray(plan?.phases)) {
		let previous = [plannerId];
		for (const [p, phase] of (plan.phases as { tasks?: unknown }[]).entries()) {
			const raw = Array.isArray(phase?.tasks) ? (phase.tasks as RawTask[]) : [];
			if (raw.length === 0) errors.push(`phase ${p + 1} has no tasks`);
			if (raw.length > limits.maxPhaseTasks) {
				errors.push(`phase ${p + 1} has ${raw.length} tasks; at most ${limits.maxPhaseTasks} may run in one phase`);
			}
			const ids = raw.map((_, k) => `${plannerId}.${p + 1}.${k + 1}`);
			for (const [k, task] of raw.entries()) {
				tasks.push({
					id: ids[k] as string,
					role: String(task?.role ?? ""),
					text: textOf(task ?? {}),
					dependsOn: previous,
				});
			}
			previous = ids;
		}
	} else if (Array.isArray(plan?.tasks)) {
		for (const task of plan.tasks as RawTask[]) {
			const dependsOn = Array.isArray(task?.dependsOn) ? task.dependsOn.map(String) : [];
			tasks.push({
				id: String(task?.id ?? ""),
				role: String(task?.role ?? ""),
				text: textOf(task ?? {}),
				dependsOn: dependsOn.length > 0 ? dependsOn : [plannerId],
			});
		}
	} else {
		return { errors: ['the plan has neither "phases" nor "tasks"'] };
	}
	if (tasks.length === 0) errors.push("the plan has no tasks");
	if (tasks.length > limits.maxTasks)
		errors.push(`the plan has ${tasks.length} tasks; at most ${limits.maxTasks} may be added`);
	const seen = new Set<string>();
	for (const task of tasks) {
		if (!isValidId(task.id)) errors.push(`task id ${JSON.stringify(task.id)} is not a valid id`);
		else if (existingIds.has(task.id) || seen.has(task.id)) errors.push(`task id '${task.id}' is already taken`);
		seen.add(task.id);
		if (!limits.roles.includes(task.role)) {
			errors.push(`task '${task.id}' has role '${task.role}'; the roles are ${limits.roles.join(", ")}`);
		}
		if (task.text === "") errors.push(`task '${task.id}' says nothing to do`);
		for (const dep of task.dependsOn) {
			if (dep !== plannerId && !tasks.some((t) => t.id === dep)) {
				errors.push(`task '${task.id}' depends on '${dep}', which is not in the plan`);
			}
		}
	}
	if (errors.length === 0) {
		try {
			buildDag([{ id: plannerId, dependsOn: [] }, ...tasks], "the plan");
		} catch (error) {
			errors.push(error instanceof Error ? error.message : String(error));
		}
	}
	return errors.length > 0 ? { errors } : { tasks };
}
