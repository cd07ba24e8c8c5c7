// The order every view lists a run's tasks in: after their dependencies, a script's phases together.

import { Heap } from "./heap.js";

/** What places a task in a list: what it waits for, and the script phase it belongs to. */
export interface Orderable {
	readonly id: string;
	readonly dependsOn: readonly string[];
	/** A workflow script's phase; null or absent outside scripts. */
	readonly phase?: string | null;
}

/**
 * The order every view lists a run's tasks in (`tasks` given in the order they joined the run):
 * each task after every task it depends on; of the tasks that may come next, first the one of the
 * phase that joined earliest (a task outside any phase is a group of its own), then the one that
 * joined first. So a run that never grew reads as declared, a planner's dependents come after the
 * tasks its plan added, each `--until` pass reads as a block, and a script's phases stay together
 * wherever their dependencies allow. Dependencies on tasks not in `tasks` are ignored, and tasks
 * caught in a cycle (which a run cannot have) follow the rest in the order they joined, so a view
 * of a partial or damaged record still lists every task once.
 */
export function taskOrder<T extends Orderable>(tasks: readonly T[]): T[] {
	const n = tasks.length;
	const indexOf = new Map<string, number>();
	for (let i = 0; i < n; i++) {
		const id = (tasks[i] as T).id;
		if (!indexOf.has(id)) indexOf.set(id, i);
	}
	const group = new Array<number>(n);
	const phaseStart = new Map<string, number>();
	// The order tasks joined in is the answer when each waits only for earlier ones and phases never interleave.
	let asJoined = true;
	for (let i = 0; i < n; i++) {
		const phase = (tasks[i] as T).phase ?? null;
		let start = i;
		if (phase !== null) {
			start = phaseStart.get(phase) ?? i;
			if (start === i) phaseStart.set(phase, i);
		}
		group[i] = start;
		if (i > 0 && start < (group[i - 1] as number)) asJoined = false;
	}
	const pending = new Array<number>(n).fill(0);
	const dependents: number[][] = [];
	for (let i = 0; i < n; i++) dependents.push([]);
	// The task that last counted each task as a dependency: a dependency named twice counts once.
	const countedBy = new Array<number>(n).fill(-1);
	for (let i = 0; i < n; i++) {
		for (const dep of (tasks[i] as T).dependsOn) {
			const d = indexOf.get(dep);
			if (d === undefined || d === i || countedBy[d] === i) continue;
			countedBy[d] = i;
			if (d > i) asJoined = false;
			pending[i] = (pending[i] as number) + 1;
			(dependents[d] as number[]).push(i);
		}
	}
	if (asJoined) return [...tasks];
	const ready = new Heap<number>((a, b) =>
		group[a] !== group[b] ? (group[a] as number) < (group[b] as number) : a < b,
	);
	for (let i = 0; i < n; i++) if (pending[i] === 0) ready.push(i);
	const placed = new Array<boolean>(n).fill(false);
	const order: T[] = [];
	for (let i = ready.pop(); i !== undefined; i = ready.pop()) {
		placed[i] = true;
		order.push(tasks[i] as T);
		for (const d of dependents[i] as number[]) {
			pending[d] = (pending[d] as number) - 1;
			if (pending[d] === 0) ready.push(d);
		}
	}
	for (let i = 0; i < n; i++) if (!placed[i]) order.push(tasks[i] as T);
	return order;
}
