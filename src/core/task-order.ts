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
	const indexOf = new Map<string, number>();
	for (const [i, t] of tasks.entries()) if (!indexOf.has(t.id)) indexOf.set(t.id, i);
	const group: number[] = [];
	const phaseStart = new Map<string, number>();
	for (const [i, t] of tasks.entries()) {
		const phase = t.phase ?? null;
		if (phase === null) group.push(i);
		else {
			if (!phaseStart.has(phase)) phaseStart.set(phase, i);
			group.push(phaseStart.get(phase) as number);
		}
	}
	const pending = new Array<number>(tasks.length).fill(0);
	const dependents: number[][] = tasks.map(() => []);
	for (const [i, t] of tasks.entries()) {
		for (const dep of new Set(t.dependsOn)) {
			const d = indexOf.get(dep);
			if (d === undefined || d === i) continue;
			pending[i] = (pending[i] ?? 0) + 1;
			dependents[d]?.push(i);
		}
	}
	const ready = new Heap<number>((a, b) =>
		group[a] !== group[b] ? (group[a] as number) < (group[b] as number) : a < b,
	);
	for (let i = 0; i < tasks.length; i++) if (pending[i] === 0) ready.push(i);
	const placed = new Array<boolean>(tasks.length).fill(false);
	const order: T[] = [];
	for (let i = ready.pop(); i !== undefined; i = ready.pop()) {
		placed[i] = true;
		order.push(tasks[i] as T);
		for (const d of dependents[i] ?? []) {
			pending[d] = (pending[d] ?? 0) - 1;
			if (pending[d] === 0) ready.push(d);
		}
	}
	for (const [i, t] of tasks.entries()) if (!placed[i]) order.push(t);
	return order;
}
