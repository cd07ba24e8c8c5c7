// @ts-check
// A run page's DAG: the server's layout drawn as SVG, each task a node whose colour and mark say
// its status, or a plain list of tasks when the run has too many to draw. Every text from the
// server goes in through textContent, never as HTML.

import { api, el, elapsed, statusBadge } from "./dom.js";

const SVG = "http://www.w3.org/2000/svg";
const STATUS_COLOURS = /** @type {const} */ ({
	queued: "var(--queued)",
	running: "var(--running)",
	waiting: "var(--waiting)",
	completed: "var(--completed)",
	failed: "var(--failed)",
	cancelled: "var(--cancelled)",
	skipped: "var(--skipped)",
	interrupted: "var(--interrupted)",
	superseded: "var(--skipped)",
	needs_attention: "var(--attention)",
});

/** A mark per status, so a node's status reads from its shape as well as its colour. */
const STATUS_MARKS = /** @type {const} */ ({
	queued: "○",
	running: "▶",
	waiting: "⏸",
	completed: "✓",
	failed: "✕",
	cancelled: "⊘",
	skipped: "↷",
	interrupted: "↯",
	superseded: "↷",
	needs_attention: "⚠",
});

/**
 * A node's figures: how long it ran (so far, while it runs) and in how many attempts, and what it used.
 * @param {any} t
 */
function nodeFigures(t) {
	if (t.inherited) return ["inherited, not run here", `from ${t.inherited.runId}`];
	const attempts = `${t.attempts} attempt${t.attempts === 1 ? "" : "s"}`;
	const time = t.startedAt
		? `${elapsed(t.startedAt, t.finishedAt)}${t.finishedAt ? "" : " so far"} · ${attempts}`
		: attempts;
	const u = t.usage;
	const tokens = u.inputTokens + u.outputTokens + u.cacheReadTokens + u.cacheWriteTokens;
	const used =
		tokens === 0 && !u.partial
			? "no tokens"
			: `${u.partial ? "≥ " : ""}${compact(tokens)} tokens · $${u.costUsd.toFixed(4)}`;
	return [time, used];
}

/** @param {number} n */
function compact(n) {
	if (n < 1000) return String(n);
	if (n < 1_000_000) return `${(n / 1000).toFixed(1)}k`;
	return `${(n / 1_000_000).toFixed(1)}M`;
}

/**
 * @param {string} tag
 * @param {Record<string, string | number>} [attrs]
 * @returns {SVGElement}
 */
function svg(tag, attrs = {}) {
	const node = document.createElementNS(SVG, tag);
	for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
	return node;
}

/**
 * The run's graph: `draw` reads the layout and lays out blank nodes, `paint` fills them with the
 * tasks as they are now.
 * @param {string} runId
 * @param {(taskId: string) => void} select called with the task whose node or row was chosen
 */
export function runGraph(runId, select) {
	const graph = el("div", { class: "graph", id: "graph" });
	/** Each task's node in the graph, or its row in the list drawn instead, by task id. */
	/** @type {Map<string, Element>} */
	const drawn = new Map();

	const draw = async () => {
		const layout = await api(`/api/runs/${encodeURIComponent(runId)}/graph`);
		drawn.clear();
		if (layout.tooLarge) {
			graph.replaceChildren(
				el("p", { class: "muted" }, [
					`${layout.tasks} tasks: too many to draw (limit ${layout.limit}); shown as a list.`,
				]),
				el("table", { id: "task-list" }, [el("tbody")]),
			);
			return;
		}
		const root = svg("svg", { width: layout.width, height: layout.height, role: "img", "aria-label": "task graph" });
		for (const edge of layout.edges) {
			const d = edge.points
				.map((/** @type {any} */ p, /** @type {number} */ i) => `${i ? "L" : "M"}${p.x},${p.y}`)
				.join(" ");
			root.append(svg("path", { class: "edge", d, "marker-end": "url(#arrow)" }));
		}
		const defs = svg("defs");
		const marker = svg("marker", {
			id: "arrow",
			viewBox: "0 0 10 10",
			refX: 9,
			refY: 5,
			markerWidth: 7,
			markerHeight: 7,
			orient: "auto",
		});
		marker.append(svg("path", { d: "M0,0 L10,5 L0,10 z", fill: "#aaa" }));
		defs.append(marker);
		root.prepend(defs);
		for (const n of layout.nodes) {
			const g = svg("g", {
				class: "node",
				"data-task": n.id,
				transform: `translate(${n.x - n.width / 2},${n.y - n.height / 2})`,
				tabindex: 0,
			});
			g.append(svg("rect", { width: n.width, height: n.height }));
			const lines = [
				["step", 18],
				["role", 34],
				["state", 51],
				["figures", 68],
				["figures", 84],
			];
			for (const [cls, y] of lines) {
				const text = svg("text", { class: String(cls), x: 10, y });
				g.append(text);
			}
			g.addEventListener("click", () => select(n.id));
			g.addEventListener("keydown", (e) => {
				if (/** @type {KeyboardEvent} */ (e).key === "Enter") select(n.id);
			});
			root.append(g);
			drawn.set(n.id, g);
		}
		graph.replaceChildren(root);
	};

	/**
	 * @param {any[]} tasks
	 * @param {string | undefined} selected
	 */
	const paint = (tasks, selected) => {
		for (const t of tasks) {
			const g = drawn.get(t.id);
			if (g?.tagName === "g") {
				g.setAttribute("data-status", t.status);
				g.classList.toggle("selected", t.id === selected);
				const rect = g.querySelector("rect");
				if (rect) rect.style.stroke = STATUS_COLOURS[/** @type {keyof typeof STATUS_COLOURS} */ (t.status)] ?? "#888";
				const texts = g.querySelectorAll("text");
				texts[0].textContent = t.stepId;
				texts[1].textContent = t.phase ? `${t.role} · ${t.phase}` : t.role;
				texts[2].textContent = `${STATUS_MARKS[/** @type {keyof typeof STATUS_MARKS} */ (t.status)] ?? "•"} ${t.status}`;
				texts[2].setAttribute("class", `state status status-${t.status}`);
				const [time, used] = nodeFigures(t);
				texts[3].textContent = time;
				texts[4].textContent = used;
				continue;
			}
			const list = graph.querySelector("#task-list tbody");
			if (!list) continue;
			let row = g;
			if (!row) {
				row = el("tr", { "data-task": t.id }, [el("td"), el("td"), el("td"), el("td")]);
				row.addEventListener("click", () => select(t.id));
				list.append(row);
				drawn.set(t.id, row);
			}
			const cells = row.querySelectorAll("td");
			cells[0].textContent = t.stepId;
			cells[1].textContent = t.role;
			cells[2].replaceChildren(statusBadge(t.status));
			cells[3].textContent = t.activity ?? "";
		}
	};

	return { element: graph, draw, paint };
}
