// @ts-check
// A run page's "Timeline": every attempt of every task as a bar on the run's wall clock, one row
// per task in DAG order, the waits between attempts drawn apart from the running, the critical
// path marked. Each bar's tooltip (its SVG title) says what it was, how long, and what it cost.

import { api, count, duration, el } from "./dom.js";

const SVG = "http://www.w3.org/2000/svg";
const LABEL_PX = 190;
const ROW_PX = 20;
const AXIS_PX = 22;
/** The page's padding and the chart's border, both sides: what the window's width leaves the chart. */
const PAGE_MARGINS_PX = 36;
/** Characters of a step id a row's label shows. */
const LABEL_CHARS = 24;

/** What each kind of bar means, in the legend's words. */
const KINDS = /** @type {const} */ ({
	running: "running an attempt",
	failed: "an attempt that failed",
	cancelled: "an attempt cancelled, or lost with its runner",
	approval: "waiting for approval",
	question: "waiting for an answer",
	backoff: "backing off before a retry",
});

/**
 * @param {string} tag
 * @param {Record<string, string | number>} [attrs]
 * @param {(Node | string)[]} [children]
 */
function svg(tag, attrs = {}, children = []) {
	const node = document.createElementNS(SVG, tag);
	for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
	node.append(...children);
	return node;
}

/** @param {any} u */
const tokensOf = (u) => u.input + u.output + u.cacheRead + u.cacheWrite;

/**
 * A bar's tooltip: the task and attempt, how long it lasted, and what it used or waited for.
 * @param {any} task
 * @param {any} bar
 * @param {number} ms
 */
function tip(task, bar, ms) {
	const long = `${duration(ms)}${bar.end === null ? " so far" : ""}`;
	if (bar.kind === "approval") return `${task.id} waits for approval\n${long}`;
	if (bar.kind === "question") {
		return `${task.id} attempt ${bar.attempt} waits for an answer\n${long}${bar.reason ? `\n${bar.reason}` : ""}`;
	}
	if (bar.kind === "backoff") {
		return `${task.id} backs off after attempt ${bar.attempt}\n${long}${bar.reason ? `\nretried because: ${bar.reason}` : ""}`;
	}
	const lines = [`${task.id} attempt ${bar.attempt}`];
	const used = bar.usage
		? ` · ${count(tokensOf(bar.usage))} tokens · $${bar.usage.cost.toFixed(4)}${bar.usage.partial ? " (at least)" : ""}`
		: "";
	lines.push(`${long}${used}`);
	if (bar.status === "asked") lines.push("asked a question; the attempt goes on after the answer");
	else if (bar.status && bar.status !== "completed")
		lines.push(`ended ${bar.status}${bar.reason ? `: ${bar.reason}` : ""}`);
	return lines.join("\n");
}

/**
 * A bar's kind as drawn: an attempt that ended otherwise than completed (or asking) failed, unless
 * it was cancelled or lost, which is no failure of its agent's.
 * @param {any} bar
 */
const kindOf = (bar) => {
	if (bar.kind !== "running" || !bar.status || ["completed", "asked"].includes(bar.status)) return bar.kind;
	return ["cancelled", "lost"].includes(bar.status) ? "cancelled" : "failed";
};

/**
 * The timeline drawn as of `nowMs` (ms from the run's start): bars still open reach it.
 * @param {any} line
 * @param {number} nowMs
 * @param {number} width
 * @param {(taskId: string) => void} select
 */
function draw(line, nowMs, width, select) {
	const span = Math.max(1, line.end === null ? nowMs : line.span);
	const chart = Math.max(200, width - LABEL_PX - 12);
	const x = (/** @type {number} */ ms) => LABEL_PX + (Math.min(ms, span) / span) * chart;
	const height = AXIS_PX + line.tasks.length * ROW_PX + 4;
	const root = svg("svg", {
		width: LABEL_PX + chart + 12,
		height,
		role: "group",
		"aria-label": `timeline of ${line.tasks.length} tasks over ${duration(span)}`,
	});
	root.append(
		svg("defs", {}, [
			svg(
				"pattern",
				{ id: "hatch", width: 6, height: 6, patternUnits: "userSpaceOnUse", patternTransform: "rotate(45)" },
				[
					svg("rect", { width: 6, height: 6, class: "hatch-ground" }),
					svg("line", { x1: 0, y1: 0, x2: 0, y2: 6, class: "hatch-line" }),
				],
			),
			svg("pattern", { id: "dots", width: 5, height: 5, patternUnits: "userSpaceOnUse" }, [
				svg("rect", { width: 5, height: 5, class: "hatch-ground" }),
				svg("circle", { cx: 2.5, cy: 2.5, r: 1.2, class: "dot" }),
			]),
		]),
	);
	const axis = svg("g", { class: "axis", "aria-hidden": "true" });
	for (const tick of line.ticks.filter((/** @type {number} */ t) => t <= span)) {
		axis.append(
			svg("line", { x1: x(tick), x2: x(tick), y1: AXIS_PX - 4, y2: height, class: "tick" }),
			svg("text", { x: x(tick) + 2, y: AXIS_PX - 8 }, [tick === 0 ? "0" : duration(tick)]),
		);
	}
	root.append(axis);
	line.tasks.forEach((/** @type {any} */ task, /** @type {number} */ i) => {
		const y = AXIS_PX + i * ROW_PX;
		const words = task.bars.map((/** @type {any} */ b) => tip(task, b, (b.end ?? nowMs) - b.start).split("\n")[0]);
		const row = svg("g", {
			class: `row${task.critical ? " critical" : ""}`,
			"data-task": task.id,
			tabindex: 0,
			"aria-label": `${task.id}${task.critical ? " (critical path)" : ""}: ${words.length > 0 ? words.join(", ") : "not started"}`,
		});
		const label = task.stepId.length > LABEL_CHARS ? `${task.stepId.slice(0, LABEL_CHARS - 1)}…` : task.stepId;
		row.append(svg("text", { class: "row-label", x: 4, y: y + 14 }, [`${task.critical ? "◆ " : ""}${label}`]));
		for (const bar of task.bars) {
			const end = bar.end ?? nowMs;
			const kind = kindOf(bar);
			const wait = kind === "approval" || kind === "question" || kind === "backoff";
			const rect = svg(
				"rect",
				{
					class: `bar bar-${kind}${bar.end === null ? " open" : ""}`,
					"data-kind": kind,
					x: x(bar.start),
					y: y + (wait ? 6 : 3),
					width: Math.max(2, x(end) - x(bar.start)),
					height: wait ? ROW_PX - 12 : ROW_PX - 6,
				},
				[svg("title", {}, [tip(task, bar, end - bar.start)])],
			);
			row.append(rect);
		}
		row.addEventListener("click", () => select(task.id));
		row.addEventListener("keydown", (e) => {
			if (/** @type {KeyboardEvent} */ (e).key === "Enter") select(task.id);
		});
		root.append(row);
	});
	return root;
}

/** The legend: a swatch of each kind of bar with its words, and the critical path's mark. */
function legend() {
	return el("ul", { class: "timeline-legend" }, [
		...Object.entries(KINDS).map(([kind, words]) =>
			el("li", {}, [el("span", { class: `swatch swatch-${kind}`, "aria-hidden": "true" }), words]),
		),
		el("li", {}, ["◆ on the critical path: the chain of tasks, each waiting for the one before, that ended last"]),
	]);
}

/**
 * The run page's timeline section: `update()` reads it again from the server; between reads, a
 * run still going has its open bars grow with the clock.
 * @param {string} runId
 * @param {(taskId: string) => void} select
 */
export function timelineSection(runId, select) {
	const chart = el("div", { class: "timeline-chart" });
	const section = el("section", { id: "timeline", "aria-label": "Timeline" }, [
		el("h2", {}, ["Timeline"]),
		legend(),
		chart,
	]);
	/** @type {any} */
	let line;
	let readAt = 0;
	/** @type {ReturnType<typeof setInterval> | undefined} */
	let ticking;
	const paint = () => {
		if (!line) return;
		const nowMs = line.span + (line.end === null ? Date.now() - readAt : 0);
		// The window's width, less the page's margins: reading the section's own width would lay the page out mid-draw.
		chart.replaceChildren(draw(line, nowMs, window.innerWidth - PAGE_MARGINS_PX, select));
	};
	let resized = 0;
	window.addEventListener("resize", () => {
		cancelAnimationFrame(resized);
		resized = requestAnimationFrame(paint);
	});
	const update = async () => {
		line = await api(`/api/runs/${encodeURIComponent(runId)}/timeline`);
		readAt = Date.now();
		paint();
		if (line.end === null && ticking === undefined) ticking = setInterval(paint, 1000);
		if (line.end !== null && ticking !== undefined) {
			clearInterval(ticking);
			ticking = undefined;
		}
	};
	return { section, update };
}
