// The validated task graph of a run: dependencies, topological order, priorities and the critical path.

import { CrewError, ErrorCode } from "./errors.js";
import { didYouMean } from "./near-names.js";

export interface DagInput {
	readonly id: string;
	readonly dependsOn: readonly string[];
}

/**
 * A validated task graph with nodes as indices in declaration order. `priority` is the length of
 * the longest path from the node to a sink, counting the node itself: the critical path first.
 */
export interface Dag {
	readonly ids: readonly string[];
	readonly indexOf: ReadonlyMap<string, number>;
	readonly dependencies: readonly (readonly number[])[];
	readonly dependents: readonly (readonly number[])[];
	readonly priority: readonly number[];
	/** A topological order; ties keep declaration order. */
	readonly order: readonly number[];
}

function invalid(message: string): CrewError {
	return new CrewError(ErrorCode.InvalidWorkflow, message);
}

export function buildDag(nodes: readonly DagInput[], what = "workflow"): Dag {
	const indexOf = new Map<string, number>();
	for (const [i, node] of nodes.entries()) {
		if (indexOf.has(node.id)) throw invalid(`${what}: declares step '${node.id}' twice`);
		indexOf.set(node.id, i);
	}
	const dependencies: number[][] = [];
	const dependents: number[][] = nodes.map(() => []);
	for (const [i, node] of nodes.entries()) {
		const seen = new Set<number>();
		for (const dep of node.dependsOn) {
			const d = indexOf.get(dep);
			if (d === undefined) {
				throw invalid(`${what}: step '${node.id}' depends on unknown step '${dep}'${didYouMean(dep, indexOf.keys())}`);
			}
			if (d === i) throw invalid(`${what}: step '${node.id}' depends on itself`);
			if (seen.has(d)) continue;
			seen.add(d);
			dependents[d]?.push(i);
		}
		dependencies.push([...seen]);
	}
	const order = topologicalOrder(nodes, dependencies, dependents, what);
	const priority = new Array<number>(nodes.length).fill(1);
	for (let k = order.length - 1; k >= 0; k--) {
		const i = order[k] as number;
		let longest = 0;
		for (const d of dependents[i] ?? []) longest = Math.max(longest, priority[d] ?? 0);
		priority[i] = longest + 1;
	}
	return { ids: nodes.map((n) => n.id), indexOf, dependencies, dependents, priority, order };
}

function topologicalOrder(
	nodes: readonly DagInput[],
	dependencies: readonly (readonly number[])[],
	dependents: readonly (readonly number[])[],
	what: string,
): number[] {
	const pending = dependencies.map((deps) => deps.length);
	const order: number[] = [];
	for (let i = 0; i < nodes.length; i++) if (pending[i] === 0) order.push(i);
	for (let k = 0; k < order.length; k++) {
		for (const d of dependents[order[k] as number] ?? []) {
			pending[d] = (pending[d] ?? 0) - 1;
			if (pending[d] === 0) order.push(d);
		}
	}
	if (order.length < nodes.length) {
		const cycle = findCycle(nodes, dependencies, pending);
		throw invalid(`${what}: dependency cycle: ${cycle.join(" -> ")}`);
	}
	return order;
}

/** Walks dependencies from a node left in the cycle until one repeats; returns the cycle's ids. */
function findCycle(
	nodes: readonly DagInput[],
	dependencies: readonly (readonly number[])[],
	pending: number[],
): string[] {
	let current = pending.findIndex((p) => p > 0);
	const visitedAt = new Map<number, number>();
	const path: number[] = [];
	while (!visitedAt.has(current)) {
		visitedAt.set(current, path.length);
		path.push(current);
		current = (dependencies[current] ?? []).find((d) => (pending[d] ?? 0) > 0) as number;
	}
	const cycle = path.slice(visitedAt.get(current));
	cycle.reverse();
	const ids = cycle.map((i) => nodes[i]?.id ?? String(i));
	return [...ids, ids[0] ?? ""];
}

/** Each node's level: 0 for a node without dependencies, else one more than its deepest dependency. */
export function levels(dag: Dag): number[] {
	const level = new Array<number>(dag.ids.length).fill(0);
	for (const i of dag.order) {
		for (const d of dag.dependencies[i] ?? []) level[i] = Math.max(level[i] ?? 0, (level[d] ?? 0) + 1);
	}
	return level;
}

/** A longest chain of steps through the graph, first to last: what bounds the run's length. */
export function criticalPath(dag: Dag): number[] {
	const sources = dag.order.filter((i) => (dag.dependencies[i] ?? []).length === 0);
	let at = sources.reduce(
		(best, i) => ((dag.priority[i] ?? 0) > (dag.priority[best] ?? 0) ? i : best),
		sources[0] ?? 0,
	);
	const path = [at];
	for (;;) {
		const next = (dag.dependents[at] ?? []).find((d) => dag.priority[d] === (dag.priority[at] ?? 0) - 1);
		if (next === undefined) return path;
		path.push(next);
		at = next;
	}
}
