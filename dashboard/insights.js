// @ts-check
// The insights page at `/insights`: what the repository's runs spent day by day, and how each
// workflow, agent, model and step did, from GET /api/insights.

import { api, count, duration, el, setConnection, setWhere } from "./dom.js";

const SVG = "http://www.w3.org/2000/svg";
/** The windows offered, in days; one given in the address is offered too. */
const WINDOWS = [7, 30, 90, 365];
const NONE = "—";
/** The chart's drawing units: its width, the room for a band's name, and each band's height. */
const CHART = { width: 720, label: 96, band: 56, gap: 14, top: 6, axis: 18 };

/** @param {number} n */
const usd = (n) => `$${n.toFixed(4)}`;
/**
 * @param {number} n
 * @param {string} one
 */
const plural = (n, one) => `${count(n)} ${one}${n === 1 ? "" : "s"}`;

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

/**
 * The figures of a row, after its name: ended, success, median time, tokens, cost, and both per completed.
 * @param {any} o
 */
function figures(o) {
	return [
		count(o.ended),
		o.successRate === null ? NONE : `${Math.round(o.successRate * 100)}% (${o.completed} of ${o.ended})`,
		o.medianMs === null ? NONE : duration(o.medianMs),
		count(o.tokens),
		usd(o.costUsd),
		o.tokensPerCompleted === null ? NONE : count(Math.round(o.tokensPerCompleted)),
		o.costPerCompleted === null ? NONE : usd(o.costPerCompleted),
	];
}

/** The workflows' and agents' last column: attempts that failed their strict step's spec checks. */
const SPEC_FAILURES = "Attempts failing spec checks";

const FIGURE_HEADERS = [
	"Success",
	"Median time (completed)",
	"Tokens",
	"Cost",
	"Tokens per completed",
	"Cost per completed",
];

/**
 * A section of a heading and a table it labels; the cell at `rowHeader` of each row heads its row.
 * @param {string} id
 * @param {string} title
 * @param {string[]} headers
 * @param {string[][]} rows
 * @param {number} rowHeader
 * @param {string} empty what the section says when it has no rows
 */
function tableSection(id, title, headers, rows, rowHeader, empty) {
	const heading = el("h2", { id: `${id}-title` }, [title]);
	if (rows.length === 0) return el("section", { class: "insight" }, [heading, el("p", { class: "muted" }, [empty])]);
	const numeric = (/** @type {number} */ i) => i > rowHeader || (headers[i] === "#" && i < rowHeader);
	return el("section", { class: "insight" }, [
		heading,
		el("div", { class: "insight-scroll" }, [
			el("table", { id, class: "insight-table", "aria-labelledby": `${id}-title` }, [
				el("thead", {}, [
					el(
						"tr",
						{},
						headers.map((h, i) => el("th", { scope: "col", ...(numeric(i) ? { class: "number" } : {}) }, [h])),
					),
				]),
				el(
					"tbody",
					{},
					rows.map((cells) =>
						el(
							"tr",
							{},
							cells.map((text, i) =>
								i === rowHeader
									? el("th", { scope: "row" }, [text])
									: el("td", numeric(i) ? { class: "number" } : {}, [text]),
							),
						),
					),
				),
			]),
		]),
	]);
}

/**
 * Three bands of bars, one column per day: tokens, cost and runs started, each as tall as its
 * share of the window's busiest day. Each day's title says its figures, and the table beside says
 * them for every day with any, so the bars need no focus of their own.
 * @param {any[]} daily
 */
function dailyChart(daily) {
	const bands = [
		{ name: "tokens", of: (/** @type {any} */ d) => d.tokens, text: count },
		{ name: "cost", of: (/** @type {any} */ d) => d.costUsd, text: usd },
		{ name: "runs", of: (/** @type {any} */ d) => d.runs, text: count },
	].map((band, b) => ({
		...band,
		most: Math.max(0, ...daily.map(band.of)),
		bottom: CHART.top + b * (CHART.band + CHART.gap) + CHART.band,
	}));
	const height = CHART.top + bands.length * (CHART.band + CHART.gap) + CHART.axis;
	const step = (CHART.width - CHART.label) / daily.length;
	const root = svg("svg", {
		viewBox: `0 0 ${CHART.width} ${height}`,
		role: "img",
		"aria-label": "Tokens, cost and runs started per day, as bars; the table beside gives the figures",
	});
	for (const band of bands) {
		const top = band.bottom - CHART.band;
		root.append(
			svg("line", { class: "insight-base", x1: CHART.label, x2: CHART.width, y1: band.bottom, y2: band.bottom }),
			svg("text", { class: "insight-band", x: 0, y: top + 10 }, [band.name]),
			svg("text", { class: "insight-most", x: 0, y: top + 26 }, [
				band.most > 0 ? `most ${band.text(band.most)}` : "none",
			]),
		);
	}
	const width = Math.max(1, step * 0.75);
	daily.forEach((d, n) => {
		const x = CHART.label + n * step;
		const title = `${d.day}: ${plural(d.runs, "run")} started, ${count(d.tokens)} tokens, ${usd(d.costUsd)}`;
		const day = svg("g", { class: "insight-day", "data-day": d.day }, [svg("title", {}, [title])]);
		for (const band of bands) {
			const value = band.of(d);
			const tall = value > 0 ? Math.max(1.5, (value / band.most) * CHART.band) : 0;
			day.append(
				svg("rect", { class: `insight-bar insight-${band.name}`, x, y: band.bottom - tall, width, height: tall }),
			);
		}
		root.append(day);
	});
	const first = daily[0]?.day ?? "";
	const last = daily.at(-1)?.day ?? "";
	root.append(
		svg("text", { class: "insight-axis", x: CHART.label, y: height - 4 }, [first]),
		svg("text", { class: "insight-axis", x: CHART.width, y: height - 4, "text-anchor": "end" }, [last]),
	);
	return root;
}

/**
 * The section of the days: the window's totals, the chart, and beside it a table of the days with any figure.
 * @param {any} insights
 */
function dailySection(insights) {
	const { daily } = insights;
	const sum = (/** @type {(d: any) => number} */ of) =>
		daily.reduce((/** @type {number} */ n, /** @type {any} */ d) => n + of(d), 0);
	const runs = sum((d) => d.runs);
	const busy = daily.filter((/** @type {any} */ d) => d.runs > 0 || d.tokens > 0 || d.costUsd > 0);
	const table = tableSection(
		"insight-daily",
		"Days with runs or spending",
		["Day (UTC)", "Runs started", "Tokens", "Cost"],
		busy.map((/** @type {any} */ d) => [d.day, count(d.runs), count(d.tokens), usd(d.costUsd)]),
		0,
		"No run started and nothing was spent in these days.",
	);
	return el("section", { class: "insight", "aria-labelledby": "insight-per-day" }, [
		el("h2", { id: "insight-per-day" }, ["Cost and tokens per day"]),
		el("p", { id: "insight-total" }, [
			`${plural(runs, "run")} started · ${count(sum((d) => d.tokens))} tokens · ${usd(sum((d) => d.costUsd))}`,
		]),
		el("div", { class: "insight-daily" }, [el("div", { id: "insight-chart" }, [dailyChart(daily)]), table]),
	]);
}

/** @param {any} s */
const stepRow = (s, /** @type {number} */ n) => [String(n + 1), s.workflow, s.step, ...figures(s)];

/**
 * Fills `body` with the insights of the last `days` days, read again from the server; returns how many days they cover.
 * @param {HTMLElement} body
 * @param {string | null} days as the address gave it, the server saying what is wrong with it; null: the server's default
 */
async function show(body, days) {
	const insights = await api(days === null ? "/api/insights" : `/api/insights?days=${encodeURIComponent(days)}`);
	const { window } = insights;
	const stepHeaders = ["#", "Workflow", "Step", "Tasks ended", ...FIGURE_HEADERS];
	body.replaceChildren(
		el("p", { id: "insight-window", class: "muted" }, [
			`${window.from} to ${window.to}, UTC days: the runs made in this repository (neither imported nor replays) and their own tasks (not a fork's inherited ones). `,
			"A task has ended once it ran and is completed, failed, cancelled or needs attention, a run once it is completed, failed or cancelled; success is completed. ",
			"Tokens and cost count every task however it ended; per completed, they are divided by the completed ones. ",
			"Attempts failing spec checks are those a strict step's spec checks failed, retried or not.",
		]),
		dailySection(insights),
		tableSection(
			"insight-workflows",
			"Workflows",
			["Workflow", "Runs ended", ...FIGURE_HEADERS, SPEC_FAILURES],
			insights.workflows.map((/** @type {any} */ w) => [w.workflow, ...figures(w), count(w.specCheckFailures)]),
			0,
			"No runs in these days.",
		),
		tableSection(
			"insight-agents",
			"Agents",
			["Agent", "Tasks ended", ...FIGURE_HEADERS, SPEC_FAILURES],
			insights.agents.map((/** @type {any} */ a) => [a.agent, ...figures(a), count(a.specCheckFailures)]),
			0,
			"No tasks in these days.",
		),
		tableSection(
			"insight-models",
			"Models",
			["Model", "Tasks ended", ...FIGURE_HEADERS],
			insights.models.map((/** @type {any} */ m) => [m.model ?? "(agent's default)", ...figures(m)]),
			0,
			"No tasks in these days.",
		),
		tableSection(
			"insight-slowest",
			"Slowest steps, by median time of their completed tasks",
			stepHeaders,
			insights.slowestSteps.map(stepRow),
			2,
			"No step completed in these days.",
		),
		tableSection(
			"insight-costliest",
			"Costliest steps, by cost per completed task",
			stepHeaders,
			insights.costliestSteps.map(stepRow),
			2,
			"No step completed in these days.",
		),
	);
	return window.days;
}

/** The insights page: a choice of window, then what the runs of its days spent and how they did. */
export async function insightsPage() {
	setWhere("insights");
	const main = /** @type {HTMLElement} */ (document.getElementById("main"));
	const asked = new URLSearchParams(location.search).get("days");
	const offered = asked !== null && /^\d+$/.test(asked) ? [...new Set([...WINDOWS, Number(asked)])] : [...WINDOWS];
	const choice = /** @type {HTMLSelectElement} */ (el("select", { id: "insight-days" }));
	for (const days of offered.sort((a, b) => a - b)) {
		choice.append(el("option", { value: String(days) }, [`last ${plural(days, "day")}`]));
	}
	if (asked !== null) choice.value = asked;
	const body = el("div", { id: "insight-body" });
	main.replaceChildren(
		el("div", { class: "insight-head" }, [
			el("h1", {}, ["Insights"]),
			el("label", { for: "insight-days" }, ["Window"]),
			choice,
		]),
		body,
	);
	choice.addEventListener("change", () => {
		const url = new URL(location.href);
		url.searchParams.set("days", choice.value);
		history.replaceState(null, "", url);
		show(body, choice.value).catch((e) => setConnection(e.message));
	});
	choice.value = String(await show(body, asked));
}
