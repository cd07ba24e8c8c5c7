// @ts-check
// crew's dashboard: the runs list at `/`, a run's live DAG at `/runs/<id>`. Plain DOM, no build
// step; every text from the server goes in through textContent, never as HTML.

import { comparePage } from "./compare.js";
import { showCost } from "./cost.js";
import { api, count, el, elapsed, setConnection, setWhere, statusBadge, token, usageText } from "./dom.js";
import { inboxPage, watchInbox } from "./inbox.js";
import { runsPage } from "./runs.js";
import { timelineSection } from "./timeline.js";

const SVG = "http://www.w3.org/2000/svg";
const TERMINAL = new Set(["completed", "failed", "cancelled", "interrupted"]);
/** Characters of a goal the run page shows before the reader asks for all of it. */
const GOAL_SHOWN = 500;
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
 * Calls `fn` at most once per `ms`, the last call winning.
 * @param {() => void} fn
 * @param {number} ms
 */
function throttle(fn, ms) {
	/** @type {ReturnType<typeof setTimeout> | undefined} */
	let timer;
	return () => {
		if (timer) return;
		timer = setTimeout(() => {
			timer = undefined;
			fn();
		}, ms);
	};
}

/**
 * How a worktree run's branches came together: what its branch holds and what is missing from it.
 * @param {any} run
 */
function integrationText(run) {
	const foreseen = (run.foreseen ?? []).map((/** @type {any} */ c) => {
		const where =
			c.regions.length > 0
				? c.regions.map((/** @type {any} */ r) => `${r.file} lines ${r.lines[0]}–${r.lines[1]}`)
				: c.files;
		return `foreseen: ${c.tasks[0]} and ${c.tasks[1]} both change ${where.join(", ")}`;
	});
	const i = run.integration;
	if (!i) return foreseen.join(" · ");
	const list = (/** @type {string[]} */ ids) => (ids.length > 0 ? ids.join(", ") : "none");
	const parts = [...foreseen, `integration ${i.status}: ${i.branch} holds ${list(i.merged)}`];
	if (i.resolvedBy.length > 0) parts.push(`conflicts resolved by ${i.resolvedBy.join(", ")}`);
	if (i.missing.length > 0) parts.push(`missing: ${i.missing.join(", ")}`);
	for (const c of i.conflicts) parts.push(`${c.task} conflicts in ${c.files.join(", ")}`);
	if (i.error) parts.push(i.error);
	if (i.order) {
		parts.push(
			`merged in the order ${i.order.chosen.join(", ")}: ${i.order.conflicts} conflicting, where dependency order (${i.order.dependencyOrder.join(", ")}) meets ${i.order.dependencyOrderConflicts}`,
		);
	}
	return parts.join(" · ");
}

/**
 * A choice of another run to compare this one with, the run it was forked from first (listed
 * even when it is not among the latest runs).
 * @param {string} runId
 * @param {string | null} forkedFrom
 */
function compareWith(runId, forkedFrom) {
	const choice = /** @type {HTMLSelectElement} */ (
		el("select", { id: "compare-with" }, [el("option", { value: "" }, ["Compare with…"])])
	);
	choice.addEventListener("change", () => {
		if (choice.value) location.href = `/runs/${encodeURIComponent(runId)}/compare/${encodeURIComponent(choice.value)}`;
	});
	api("/api/runs")
		.then(({ runs }) => {
			const others = runs.filter((/** @type {any} */ r) => r.id !== runId && r.id !== forkedFrom);
			if (forkedFrom) {
				const source = runs.find((/** @type {any} */ r) => r.id === forkedFrom);
				choice.append(
					el("option", { value: forkedFrom }, [`${forkedFrom} ${source?.workflow ?? "run"} (forked from)`]),
				);
			}
			for (const r of others) choice.append(el("option", { value: r.id }, [`${r.id} ${r.workflow}`]));
		})
		.catch((e) => setConnection(e.message));
	return choice;
}

/**
 * A goal as the run page shows it: whole when short, else its first characters with the whole a
 * click away, so a goal of megabytes leaves the page readable.
 * @param {string} goal
 */
function goalView(goal) {
	if (goal.length <= GOAL_SHOWN) return [goal];
	const start = goal.slice(0, GOAL_SHOWN).replace(/\s+\S*$/, "");
	const whole = `show all ${count(goal.length)} characters`;
	return [el("details", {}, [el("summary", {}, [`${start}… (${whole})`]), el("pre", { class: "goal-whole" }, [goal])])];
}

/** @param {string} runId */
async function runPage(runId) {
	setWhere(runId);
	const main = /** @type {HTMLElement} */ (document.getElementById("main"));
	const head = el("div", { class: "run-head" });
	const goal = el("div", { class: "goal" });
	const runError = el("p", { class: "error", id: "run-error" });
	const integration = el("p", { id: "integration" });
	const actions = el("div", { class: "actions" });
	const message = el("span", { id: "action-message", class: "muted" });
	const graph = el("div", { class: "graph", id: "graph" });
	const cost = el("section", { id: "cost", "aria-label": "Cost" });
	/** The cost is read again at most every 2 s while the run changes. */
	const costSoon = throttle(() => showCost(cost, runId).catch((e) => setConnection(e.message)), 2000);
	const timeline = timelineSection(runId, (taskId) => select(taskId));
	/** The timeline at most every 1 s; between reads, its open bars grow with the clock. */
	const timelineSoon = throttle(() => timeline.update().catch((e) => setConnection(e.message)), 1000);
	const panel = el("aside", { class: "panel", id: "task-panel" }, [
		el("p", { class: "muted" }, ["Select a task to see its prompt, transcript, result and changes."]),
	]);
	main.replaceChildren(
		head,
		goal,
		runError,
		integration,
		el("p", {}, [actions, message]),
		el("div", { class: "layout" }, [graph, panel]),
		timeline.section,
		cost,
	);

	/** @type {any} */
	let run;
	/** @type {any[]} */
	let tasks = [];
	/** Each task's node in the graph, or its row in the list drawn instead, by task id. */
	/** @type {Map<string, Element>} */
	const drawn = new Map();
	/** The seq of the run's latest event as of the last read: the next reads only what changed after it. */
	let seq = 0;
	/** @type {string | undefined} */
	let selected;

	const buttons = {
		cancel: el("button", { id: "cancel", type: "button" }, ["Cancel run"]),
		resume: el("button", { id: "resume", type: "button" }, ["Resume"]),
		approve: el("button", { id: "approve", type: "button" }, ["Approve"]),
		reject: el("button", { id: "reject", type: "button" }, ["Reject…"]),
	};
	actions.append(...Object.values(buttons));

	/**
	 * @param {string} action
	 * @param {object} [body]
	 */
	const act = async (action, body) => {
		message.textContent = `${action}…`;
		try {
			const result = await api(`/api/runs/${encodeURIComponent(runId)}/${action}`, {
				method: "POST",
				headers: { authorization: `Bearer ${token()}`, "content-type": "application/json" },
				body: JSON.stringify(body ?? {}),
			});
			message.textContent = `${action}: run is ${result.status}`;
			refresh();
		} catch (error) {
			message.textContent = `${action} failed: ${/** @type {Error} */ (error).message}`;
		}
	};
	buttons.cancel.addEventListener("click", () => act("cancel"));
	buttons.resume.addEventListener("click", () => act("resume"));
	buttons.approve.addEventListener("click", () => act("approve"));
	buttons.reject.addEventListener("click", () => {
		const reason = prompt("Why reject?");
		if (reason) act("reject", { reason });
	});

	const showRun = () => {
		const counts = new Map();
		for (const t of tasks) counts.set(t.status, (counts.get(t.status) ?? 0) + 1);
		head.replaceChildren(
			el("h1", {}, [`run ${run.id}`]),
			statusBadge(run.status),
			el("span", { class: "totals", id: "totals" }, [
				`${[...counts].map(([s, n]) => `${n} ${s}`).join(", ")} · ${usageText(run.usage)} · ${elapsed(run.createdAt, run.finishedAt)}`,
			]),
			el("span", { class: "muted" }, [`${run.workflow}${run.team ? ` / ${run.team}` : ""}`]),
		);
		if (goal.dataset.shown !== run.id) {
			goal.replaceChildren(...goalView(run.goal));
			goal.dataset.shown = run.id;
		}
		runError.textContent = run.error && run.status !== "completed" ? run.error : "";
		integration.textContent = integrationText(run);
		integration.className = ["conflict", "failed"].includes(run.integration?.status) ? "error" : "muted";
		const waiting = run.status === "waiting" || tasks.some((t) => t.status === "waiting");
		/** @type {HTMLButtonElement} */ (buttons.cancel).disabled = TERMINAL.has(run.status);
		/** @type {HTMLButtonElement} */ (buttons.resume).disabled = !["interrupted", "failed", "cancelled"].includes(
			run.status,
		);
		/** @type {HTMLButtonElement} */ (buttons.approve).disabled = !waiting;
		/** @type {HTMLButtonElement} */ (buttons.reject).disabled = !waiting;
	};

	const drawGraph = async () => {
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

	const paintTasks = () => {
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

	const refresh = async () => {
		const path = `/api/runs/${encodeURIComponent(runId)}`;
		if (seq > 0) {
			// Only what changed since the last read; the tasks keep their places.
			const changes = await api(`${path}?since=${seq}`);
			const byId = new Map(tasks.map((t) => [t.id, t]));
			if (changes.tasks.every((/** @type {any} */ t) => byId.has(t.id))) {
				for (const t of changes.tasks) byId.set(t.id, t);
				run = changes.run;
				tasks = [...byId.values()];
				seq = changes.seq;
				showRun();
				costSoon();
				timelineSoon();
				paintTasks();
				return;
			}
		}
		// The first read, and one after tasks joined the run: every task, in the order views list them,
		// read with the graph, the timeline and the cost at once.
		const [view] = await Promise.all([api(path), drawGraph(), showCost(cost, runId), timeline.update()]);
		run = view.run;
		tasks = view.tasks;
		seq = view.seq;
		showRun();
		paintTasks();
	};

	// One box per page, moved into the panel of a running task: what is typed survives the panel's redraws.
	const steerText = /** @type {HTMLTextAreaElement} */ (
		el("textarea", { id: "steer-text", rows: "2", placeholder: "A message the agent hears at its next turn" })
	);
	const steerSend = el("button", { id: "steer-send", type: "button" }, ["Send"]);
	const steerResult = el("span", { id: "steer-result", class: "muted" });
	const steerBox = el("div", { id: "steer" }, [
		el("h3", {}, ["Steer"]),
		steerText,
		el("p", {}, [steerSend, steerResult]),
	]);
	steerSend.addEventListener("click", async () => {
		const task = selected;
		const text = steerText.value.trim();
		if (!task || text === "") return;
		steerResult.textContent = "sending…";
		try {
			const sent = await api(`/api/runs/${encodeURIComponent(runId)}/tasks/${encodeURIComponent(task)}/steer`, {
				method: "POST",
				headers: { authorization: `Bearer ${token()}`, "content-type": "application/json" },
				body: JSON.stringify({ message: text }),
			});
			steerResult.textContent = `message ${sent.message}: ${sent.state}${sent.reason ? `: ${sent.reason}` : ""}`;
			if (sent.state !== "refused") steerText.value = "";
		} catch (error) {
			steerResult.textContent = `not sent: ${/** @type {Error} */ (error).message}`;
		}
	});

	const showTask = async () => {
		if (!selected) return;
		const d = await api(`/api/runs/${encodeURIComponent(runId)}/tasks/${encodeURIComponent(selected)}`);
		const t = d.task;
		const log = el(
			"div",
			{ id: "task-log" },
			d.log.length === 0
				? [el("p", { class: "muted" }, ["Nothing yet."])]
				: d.log.map((/** @type {any} */ e) =>
						el("div", { class: `log-line log-${e.kind}`, "data-kind": e.kind }, [
							el("span", { class: "time muted" }, [e.time.slice(11, 19)]),
							el("span", { class: "kind" }, [e.kind]),
							el("span", { class: "text" }, [e.text]),
						]),
					),
		);
		panel.replaceChildren(
			el("h2", {}, [`${t.stepId} `, statusBadge(t.status)]),
			el("p", { id: "task-meta" }, [
				`${t.id} · role ${t.role} · agent ${t.agent} · ${t.runtime}${t.model ? `/${t.model}` : ""} · attempt ${t.attempts} · ${elapsed(t.startedAt, t.finishedAt)}${d.sandbox ? ` · ${d.sandbox}` : ""}`,
			]),
			el("p", { id: "task-usage" }, [usageText(t.usage)]),
			...(t.error && t.status !== "completed" ? [el("p", { class: "error" }, [t.error])] : []),
			...(t.status === "running" ? [steerBox] : []),
			el("h3", {}, ["Transcript"]),
			log,
			el("h3", {}, ["Result"]),
			el("pre", { id: "task-result" }, [d.result || "(none yet)"]),
			...(d.patch ? [el("h3", {}, ["Changes"]), el("pre", { id: "task-diff" }, [d.patch])] : []),
			el("h3", {}, ["Prompt"]),
			el("pre", { id: "task-prompt" }, [d.prompt]),
			el("h3", {}, ["Files"]),
			el(
				"ul",
				{},
				d.artifacts.map((/** @type {any} */ a) =>
					el("li", {}, [
						el("a", { href: `/api/runs/${encodeURIComponent(runId)}/artifacts/${a.path}`, target: "_blank" }, [a.path]),
						` (${a.kind}, ${a.size} bytes)`,
					]),
				),
			),
		);
	};

	/** @param {string} id */
	const select = (id) => {
		if (id !== selected) {
			steerText.value = "";
			steerResult.textContent = "";
		}
		selected = id;
		paintTasks();
		showTask().catch((e) => panel.replaceChildren(el("p", { class: "error" }, [e.message])));
	};

	await refresh();
	actions.append(compareWith(runId, run.forkedFrom ?? null));
	const refreshSoon = throttle(() => refresh().catch((e) => setConnection(e.message)), 250);
	const taskSoon = throttle(() => showTask().catch((e) => setConnection(e.message)), 300);
	const stream = new EventSource(`/api/runs/${encodeURIComponent(runId)}/stream`);
	stream.addEventListener("open", () => setConnection("live"));
	stream.addEventListener("error", () => setConnection("reconnecting…"));
	stream.addEventListener("event", (e) => {
		const event = JSON.parse(/** @type {MessageEvent} */ (e).data);
		refreshSoon();
		if (event.taskId && event.taskId === selected) taskSoon();
	});
	stream.addEventListener("run", () => refreshSoon());
	// Elapsed times move on between events.
	setInterval(() => {
		if (run && !TERMINAL.has(run.status)) showRun();
	}, 1000);
}

async function start() {
	token();
	watchInbox();
	const match = /^\/runs\/([^/]+)$/.exec(location.pathname);
	const compare = /^\/runs\/([^/]+)\/compare\/([^/]+)$/.exec(location.pathname);
	try {
		if (match) await runPage(decodeURIComponent(match[1] ?? ""));
		else if (compare) await comparePage(decodeURIComponent(compare[1] ?? ""), decodeURIComponent(compare[2] ?? ""));
		else if (location.pathname === "/inbox") await inboxPage();
		else if (location.pathname === "/insights") await (await import("./insights.js")).insightsPage();
		else await runsPage();
	} catch (error) {
		const main = document.getElementById("main");
		main?.replaceChildren(el("p", { class: "error" }, [/** @type {Error} */ (error).message]));
	}
}

start();
