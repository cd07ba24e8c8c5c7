// @ts-check
// A run's page at `/runs/<id>`: its head, goal, integration and actions (an ended run forked or
// replayed as a new run among them), its live DAG beside the task panel, the requirements of its
// specs, its timeline and its cost, kept current by the run's event stream. Every text from the
// server goes in through textContent, never as HTML.

import { showCost } from "./cost.js";
import { delegatedSection } from "./delegated.js";
import {
	api,
	count,
	ENDED_RUN,
	el,
	elapsed,
	onClick,
	openRun,
	send,
	setConnection,
	setWhere,
	statusBadge,
	usageText,
} from "./dom.js";
import { requirementsSection } from "./requirements.js";
import { runGraph } from "./run-graph.js";
import { taskPanel } from "./task-panel.js";
import { timelineSection } from "./timeline.js";

/** Characters of a goal the run page shows before the reader asks for all of it. */
const GOAL_SHOWN = 500;

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
export async function runPage(runId) {
	setWhere(runId);
	const main = /** @type {HTMLElement} */ (document.getElementById("main"));
	const head = el("div", { class: "run-head" });
	const goal = el("div", { class: "goal" });
	const runError = el("p", { class: "error", id: "run-error" });
	const integration = el("p", { id: "integration" });
	const actions = el("div", { class: "actions" });
	const message = el("span", { id: "action-message", class: "muted" });
	const graph = runGraph(runId, (taskId) => select(taskId));
	const cost = el("section", { id: "cost", "aria-label": "Cost" });
	/** The cost is read again at most every 2 s while the run changes. */
	const costSoon = throttle(() => showCost(cost, runId).catch((e) => setConnection(e.message)), 2000);
	const timeline = timelineSection(runId, (taskId) => select(taskId));
	/** The timeline at most every 1 s; between reads, its open bars grow with the clock. */
	const timelineSoon = throttle(() => timeline.update().catch((e) => setConnection(e.message)), 1000);
	const panel = taskPanel(runId);
	const delegated = delegatedSection((taskId) => select(taskId));
	const requirements = requirementsSection(runId, (taskId) => select(taskId));
	/** The requirements at most every 2 s while the run changes. */
	const requirementsSoon = throttle(() => requirements.update().catch((e) => setConnection(e.message)), 2000);
	main.replaceChildren(
		head,
		delegated.parent,
		goal,
		runError,
		integration,
		el("p", {}, [actions, message]),
		el("div", { class: "layout" }, [graph.element, panel.element]),
		requirements.section,
		delegated.section,
		timeline.section,
		cost,
	);

	/** @type {any} */
	let run;
	/** @type {any[]} */
	let tasks = [];
	/** The seq of the run's latest event as of the last read: the next reads only what changed after it. */
	let seq = 0;
	/** The run's status and runner when the task panel was last told of them. */
	let panelOffers = "";

	const buttons = {
		cancel: el("button", { id: "cancel", type: "button" }, ["Cancel run"]),
		resume: el("button", { id: "resume", type: "button" }, ["Resume"]),
		approve: el("button", { id: "approve", type: "button" }, ["Approve"]),
		reject: el("button", { id: "reject", type: "button" }, ["Reject…"]),
		fork: el(
			"button",
			{ id: "fork", type: "button", title: "a new run reusing the outcomes of tasks that need not run again" },
			["Fork"],
		),
		replay: el(
			"button",
			{
				id: "replay",
				type: "button",
				title: "a new run answering every task from this run's record, no agent started",
			},
			["Replay"],
		),
	};
	actions.append(...Object.values(buttons));

	/**
	 * @param {string} action
	 * @param {object} [body]
	 */
	const act = async (action, body) => {
		message.textContent = `${action}…`;
		try {
			const result = await send("POST", `/api/runs/${encodeURIComponent(runId)}/${action}`, body ?? {});
			message.textContent = `${action}: run is ${result.status}`;
			refresh();
		} catch (error) {
			message.textContent = `${action} failed: ${/** @type {Error} */ (error).message}`;
		}
	};
	onClick(buttons.cancel, () => act("cancel"));
	onClick(buttons.resume, () => act("resume"));
	onClick(buttons.approve, () => act("approve"));
	/**
	 * Makes a new run of this one and opens its page.
	 * @param {"fork" | "replay"} action
	 */
	const again = async (action) => {
		message.textContent = `${action}…`;
		try {
			const made = await send("POST", `/api/runs/${encodeURIComponent(runId)}/${action}`, {});
			return openRun(made.runId);
		} catch (error) {
			message.textContent = `${action} failed: ${/** @type {Error} */ (error).message}`;
		}
	};
	onClick(buttons.fork, () => again("fork"));
	onClick(buttons.replay, () => again("replay"));
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
		delegated.show(run);
		integration.textContent = integrationText(run);
		integration.className = ["conflict", "failed"].includes(run.integration?.status) ? "error" : "muted";
		const waiting = run.status === "waiting" || tasks.some((t) => t.status === "waiting");
		/** @type {HTMLButtonElement} */ (buttons.cancel).disabled = ENDED_RUN.has(run.status);
		/** @type {HTMLButtonElement} */ (buttons.resume).disabled = !["interrupted", "failed", "cancelled"].includes(
			run.status,
		);
		/** @type {HTMLButtonElement} */ (buttons.approve).disabled = !waiting;
		/** @type {HTMLButtonElement} */ (buttons.reject).disabled = !waiting;
		// A workflow script's run is neither forked nor replayed: its tasks come from the script as it runs.
		const forkable = ENDED_RUN.has(run.status) && run.script === undefined;
		/** @type {HTMLButtonElement} */ (buttons.fork).disabled = !forkable;
		/** @type {HTMLButtonElement} */ (buttons.replay).disabled = !forkable;
		// What the task panel offers (retry, fork from its task) follows the run's status and runner.
		const offered = `${run.status} ${run.heldBy ?? ""}`;
		if (offered !== panelOffers) {
			panelOffers = offered;
			if (panel.selected) panel.show().catch((e) => setConnection(e.message));
		}
	};

	const paintTasks = () => graph.paint(tasks, panel.selected);

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
				requirementsSoon();
				paintTasks();
				return;
			}
		}
		// The first read, and one after tasks joined the run: every task, in the order views list them,
		// read with the graph, the timeline and the cost at once.
		const [view] = await Promise.all([
			api(path),
			graph.draw(),
			showCost(cost, runId),
			timeline.update(),
			requirements.update(),
		]);
		run = view.run;
		tasks = view.tasks;
		seq = view.seq;
		showRun();
		paintTasks();
	};

	/** @param {string} id */
	const select = (id) => {
		panel.select(id);
		paintTasks();
		panel.show().catch((e) => panel.element.replaceChildren(el("p", { class: "error" }, [e.message])));
	};

	await refresh();
	actions.append(compareWith(runId, run.forkedFrom ?? null));
	const refreshSoon = throttle(() => refresh().catch((e) => setConnection(e.message)), 250);
	const taskSoon = throttle(() => panel.show().catch((e) => setConnection(e.message)), 300);
	const stream = new EventSource(`/api/runs/${encodeURIComponent(runId)}/stream`);
	stream.addEventListener("open", () => setConnection("live"));
	stream.addEventListener("error", () => setConnection("reconnecting…"));
	stream.addEventListener("event", (e) => {
		const event = JSON.parse(/** @type {MessageEvent} */ (e).data);
		refreshSoon();
		if (event.taskId && event.taskId === panel.selected) taskSoon();
	});
	stream.addEventListener("run", () => refreshSoon());
	// Elapsed times move on between events.
	setInterval(() => {
		if (run && !ENDED_RUN.has(run.status)) showRun();
	}, 1000);
}
