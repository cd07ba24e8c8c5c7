/**
 * The DAG shapes the benchmark runs, as `{ id, dependsOn }` lists in a topological declaration
 * order, and their pi-crew workflow markdown for the CLI.
 */

export const SHAPES = ["chain", "wide", "layered"];

import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { prng } from "./prng.mjs";

const id = (i) => `t${i}`;

/** t_i depends on t_{i-1}: no parallelism, so every task waits for a full scheduler round trip. */
function chain(n) {
	return Array.from({ length: n }, (_, i) => ({ id: id(i), dependsOn: i === 0 ? [] : [id(i - 1)] }));
}

/** One root, n-2 middle tasks on it, one sink on all of them: a wide ready queue and one huge fan-in. */
function wide(n) {
	const middle = Array.from({ length: n - 2 }, (_, k) => id(k + 1));
	return [
		{ id: id(0), dependsOn: [] },
		...middle.map((m) => ({ id: m, dependsOn: [id(0)] })),
		{ id: id(n - 1), dependsOn: middle },
	];
}

/** Layers of about sqrt(n) tasks; each task depends on 1-3 distinct random tasks of the layer before. */
function layered(n, seed = 42) {
	const random = prng(seed);
	const width = Math.max(1, Math.round(Math.sqrt(n)));
	const nodes = [];
	let previous = [];
	for (let start = 0; start < n; start += width) {
		const layer = [];
		for (let i = start; i < Math.min(n, start + width); i++) {
			const deps = new Set();
			const want = previous.length === 0 ? 0 : Math.min(previous.length, 1 + Math.floor(random() * 3));
			while (deps.size < want) deps.add(previous[Math.floor(random() * previous.length)]);
			nodes.push({ id: id(i), dependsOn: [...deps] });
			layer.push(id(i));
		}
		previous = layer;
	}
	return nodes;
}

export function makeDag(shape, n) {
	if (shape === "chain") return chain(n);
	if (shape === "wide") return wide(n);
	if (shape === "layered") return layered(n);
	throw new Error(`unknown shape '${shape}'`);
}

/** The DAG as a pi-crew workflow: frontmatter, then one `## <id>` section per step. */
export function workflowMarkdown(name, nodes) {
	const steps = nodes.map(
		(node) =>
			`## ${node.id}\nrole: worker\n${node.dependsOn.length > 0 ? `dependsOn: ${node.dependsOn.join(", ")}\n` : ""}\nDo step ${node.id}.\n`,
	);
	return `---\nname: ${name}\n---\n\n${steps.join("\n")}`;
}

/**
 * A project in `dir` for `crew run --runtime dry-run` of workflow `name` over `nodes`: a dry run
 * plans as a real one does, so the steps' role has an agent (a pi agent, which the dry run stands in for).
 */
export function dryRunProject(dir, name, nodes) {
	mkdirSync(join(dir, ".git"), { recursive: true });
	mkdirSync(join(dir, ".crew", "workflows"), { recursive: true });
	mkdirSync(join(dir, ".crew", "agents"), { recursive: true });
	writeFileSync(join(dir, ".crew", "agents", "worker.md"), "---\nname: worker\n---\nYou do the step you are given.\n");
	writeFileSync(join(dir, ".crew", "workflows", `${name}.md`), workflowMarkdown(name, nodes));
}
