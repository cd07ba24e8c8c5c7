// Which nodes of a task graph may start, by priority, as their dependencies complete.

import type { Dag } from "./dag.js";
import { Heap } from "./heap.js";

/**
 * Tracks which nodes may start. Each node keeps a count of unfinished dependencies; finishing a
 * node touches only its dependents, so the work per completion is proportional to its out-degree.
 * Ready nodes come out by priority (longest remaining path), ties by declaration order.
 */
export class ReadyQueue {
	readonly #dag: Dag;
	readonly #unfinished: Int32Array;
	readonly #heap: Heap<number>;

	/** `done(i)` tells which nodes already completed; `eligible(i)` which may ever become ready. */
	constructor(dag: Dag, done: (i: number) => boolean, eligible: (i: number) => boolean) {
		this.#dag = dag;
		this.#heap = new Heap<number>(readyOrder(dag));
		this.#unfinished = new Int32Array(dag.ids.length);
		for (let i = 0; i < dag.ids.length; i++) {
			let count = 0;
			for (const d of dag.dependencies[i] ?? []) if (!done(d)) count++;
			this.#unfinished[i] = count;
		}
		for (let i = 0; i < dag.ids.length; i++) {
			if (this.#unfinished[i] === 0 && !done(i) && eligible(i)) this.#heap.push(i);
		}
	}

	get size(): number {
		return this.#heap.size;
	}

	peek(): number | undefined {
		return this.#heap.peek();
	}

	pop(): number | undefined {
		return this.#heap.pop();
	}

	/** Puts a node back, e.g. after its retry backoff elapsed. */
	push(i: number): void {
		this.#heap.push(i);
	}

	/** Records that `i` completed; returns the dependents that became ready (already queued). */
	complete(i: number, eligible: (i: number) => boolean): number[] {
		const released: number[] = [];
		for (const d of this.#dag.dependents[i] ?? []) {
			const left = (this.#unfinished[d] ?? 0) - 1;
			this.#unfinished[d] = left;
			if (left === 0 && eligible(d)) {
				this.#heap.push(d);
				released.push(d);
			}
		}
		return released;
	}
}

/** Ready order: longer remaining path first, then declaration order. */
export function readyOrder(dag: Dag): (a: number, b: number) => boolean {
	const priority = dag.priority;
	return (a, b) => {
		const pa = priority[a] ?? 0;
		const pb = priority[b] ?? 0;
		return pa === pb ? a < b : pa > pb;
	};
}

/** Every node reachable from `start` through dependents, not including `start`. */
export function downstreamOf(dag: Dag, start: number): number[] {
	const seen = new Set<number>([start]);
	const out: number[] = [];
	const stack = [start];
	while (stack.length > 0) {
		const i = stack.pop() as number;
		for (const d of dag.dependents[i] ?? []) {
			if (seen.has(d)) continue;
			seen.add(d);
			out.push(d);
			stack.push(d);
		}
	}
	return out;
}
