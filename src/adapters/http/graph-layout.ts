// The layout of a run's task graph as the dashboard draws it: node positions, sizes and edges.

import { Graph, layout } from "@dagrejs/dagre";
import type { TaskView } from "../../core/records.js";

/** Most tasks drawn as a graph; a larger run is shown as a list, where a drawing would not read. */
export const MAX_GRAPH_TASKS = 400;

/** Width of one character of node text, in px, at the dashboard's node font. */
const CHAR_PX = 7.4;
const NODE_HEIGHT = 94;
/** Characters of the longest figures line a node holds: "59m59s so far · 9 attempts", "999.9k tokens · $99.9999". */
const FIGURE_CHARS = 26;

export interface GraphNode {
	readonly id: string;
	/** Centre of the node, in px. */
	readonly x: number;
	readonly y: number;
	readonly width: number;
	readonly height: number;
}

export interface GraphEdge {
	readonly from: string;
	readonly to: string;
	readonly points: readonly { readonly x: number; readonly y: number }[];
}

export interface GraphLayout {
	readonly width: number;
	readonly height: number;
	readonly nodes: readonly GraphNode[];
	readonly edges: readonly GraphEdge[];
}

/**
 * Positions of a run's tasks drawn left to right, dependencies before dependents. Node sizes fit
 * the lines the dashboard writes in them: step id, role, status, time and attempts, usage.
 */
export function graphLayout(tasks: readonly TaskView[]): GraphLayout {
	const g = new Graph({ multigraph: false });
	g.setGraph({ rankdir: "LR", nodesep: 24, ranksep: 56, marginx: 16, marginy: 16 });
	g.setDefaultEdgeLabel(() => ({}));
	const ids = new Set(tasks.map((t) => t.id));
	for (const t of tasks) {
		const chars = Math.max(t.stepId.length, t.role.length, FIGURE_CHARS);
		g.setNode(t.id, { width: Math.ceil(chars * CHAR_PX + 28), height: NODE_HEIGHT });
	}
	for (const t of tasks) {
		for (const dep of t.dependsOn) if (ids.has(dep)) g.setEdge(dep, t.id);
	}
	layout(g);
	const nodes = tasks.map((t): GraphNode => {
		const n = g.node(t.id);
		return { id: t.id, x: n.x, y: n.y, width: n.width, height: n.height };
	});
	const edges = g.edges().map((e: { v: string; w: string }): GraphEdge => {
		const points: { x: number; y: number }[] = g.edge(e).points ?? [];
		return { from: e.v, to: e.w, points: points.map(({ x, y }) => ({ x, y })) };
	});
	const label = g.graph();
	return { width: Math.ceil(label.width ?? 0), height: Math.ceil(label.height ?? 0), nodes, edges };
}
