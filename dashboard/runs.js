// @ts-check
// The runs page at `/`: a form that starts a run, the schedules, then the runs a page at a time,
// filtered and searched by the server.

import { api, count, el, elapsed, scrollingTable, setConnection, setWhere, statusBadge } from "./dom.js";
import { newRunForm } from "./new-run.js";

/** Runs on one page. */
const PAGE = 50;
const STATUSES = ["queued", "running", "waiting", "completed", "failed", "cancelled", "interrupted"];
const HEADERS = ["Run", "Status", "Workflow", "Team", "Goal", "Tasks", "Tokens", "Cost", "Created", "Time", "From"];

/**
 * A labelled select of `values`, "all" first.
 * @param {string} id
 * @param {string} label
 * @param {string[]} values
 */
function select(id, label, values) {
	const field = /** @type {HTMLSelectElement} */ (el("select", { id }, [el("option", { value: "" }, ["all"])]));
	for (const value of values) field.append(el("option", { value }, [value]));
	return { field, label: el("label", { for: id }, [label]) };
}

/**
 * Where a run came from: the run it was forked from, or the schedule that started it.
 * @param {any} r
 */
function origin(r) {
	if (r.forkedFrom)
		return [el("a", { href: `/runs/${encodeURIComponent(r.forkedFrom)}` }, [`fork of ${r.forkedFrom}`])];
	if (r.schedule) return [`schedule ${r.schedule.name}`];
	return [];
}

/** @param {any} r */
function runRow(r) {
	const t = r.tasks;
	const tasks = `${t.completed} done${t.failed > 0 ? `, ${t.failed} failed` : ""} / ${t.total}`;
	return el("tr", { "data-run": r.id }, [
		el("td", {}, [el("a", { href: `/runs/${encodeURIComponent(r.id)}` }, [r.id])]),
		el("td", {}, [statusBadge(r.status)]),
		el("td", {}, [r.workflow]),
		el("td", {}, [r.team ?? ""]),
		el("td", {}, [r.goal.split("\n")[0].slice(0, 120)]),
		el("td", { class: "number" }, [tasks]),
		el("td", { class: "number" }, [count(r.usage.tokens)]),
		el("td", { class: "number" }, [`$${r.usage.costUsd.toFixed(4)}`]),
		el("td", {}, [new Date(r.createdAt).toLocaleString()]),
		el("td", {}, [elapsed(r.createdAt, r.finishedAt)]),
		el("td", {}, origin(r)),
	]);
}

/**
 * The schedules above the runs: when each runs, its next slot and its latest run.
 * @param {HTMLElement} section
 * @param {any[]} schedules
 */
function showSchedules(section, schedules) {
	section.hidden = schedules.length === 0;
	if (schedules.length === 0) return;
	const row = (/** @type {any} */ s) => {
		const last = s.last[0];
		const lastRun = last?.runId
			? [el("a", { href: `/runs/${encodeURIComponent(last.runId)}` }, [last.runId]), ` ${last.status ?? ""}`]
			: [last ? `${last.outcome}${last.reason ? `: ${last.reason}` : ""}` : "none yet"];
		return el("tr", { "data-schedule": s.name }, [
			el("td", {}, [s.name]),
			el("td", {}, [`${s.when}${s.paused ? " (paused)" : ""}`]),
			el("td", {}, [s.next ? new Date(s.next).toLocaleString() : "none"]),
			el("td", {}, lastRun),
			el("td", {}, [s.goal.split("\n")[0].slice(0, 120)]),
		]);
	};
	section.replaceChildren(
		el("h2", {}, ["Schedules"]),
		el("p", {}, [el("a", { href: "/schedules" }, ["Add, pause or remove schedules"])]),
		el("table", { id: "schedule-list" }, [
			el("thead", {}, [
				el(
					"tr",
					{},
					["Schedule", "When", "Next slot", "Last run", "Goal"].map((h) => el("th", {}, [h])),
				),
			]),
			el("tbody", {}, schedules.map(row)),
		]),
	);
}

export async function runsPage() {
	setWhere("runs");
	const main = /** @type {HTMLElement} */ (document.getElementById("main"));
	const schedules = el("section", { id: "schedules", hidden: "" });
	const search = /** @type {HTMLInputElement} */ (
		el("input", { id: "search", type: "search", placeholder: "goal contains…" })
	);
	const status = select("status-filter", "Status", STATUSES);
	const workflow = select("workflow-filter", "Workflow", []);
	const team = select("team-filter", "Team", []);
	const body = el("tbody");
	const shown = el("span", { id: "runs-shown", class: "muted" });
	const previous = /** @type {HTMLButtonElement} */ (el("button", { id: "previous", type: "button" }, ["Newer"]));
	const next = /** @type {HTMLButtonElement} */ (el("button", { id: "next", type: "button" }, ["Older"]));
	main.replaceChildren(
		newRunForm(),
		schedules,
		el("form", { id: "run-filters", role: "search" }, [
			el("label", { for: "search" }, ["Search"]),
			search,
			status.label,
			status.field,
			workflow.label,
			workflow.field,
			team.label,
			team.field,
		]),
		scrollingTable("runs", HEADERS, body),
		el("p", { class: "pager" }, [previous, next, shown]),
	);
	let offset = 0;
	/** The filters' values are kept when the server's choices are filled in again. */
	const fill = (/** @type {HTMLSelectElement} */ field, /** @type {string[]} */ values) => {
		const chosen = field.value;
		const known = [...field.options].map((o) => o.value);
		for (const value of values) if (!known.includes(value)) field.append(el("option", { value }, [value]));
		field.value = chosen;
	};
	const refresh = async () => {
		showSchedules(schedules, (await api("/api/schedules")).schedules);
		const query = new URLSearchParams({ limit: String(PAGE), offset: String(offset) });
		if (search.value.trim()) query.set("q", search.value.trim());
		for (const [name, { field }] of Object.entries({ status, workflow, team })) {
			if (field.value) query.set(name, field.value);
		}
		const page = await api(`/api/runs?${query}`);
		fill(workflow.field, page.choices.workflows);
		fill(team.field, page.choices.teams);
		const filtered = query.has("q") || query.has("status") || query.has("workflow") || query.has("team");
		body.replaceChildren(
			...(page.runs.length > 0
				? page.runs.map(runRow)
				: [
						el("tr", {}, [
							el("td", { colspan: String(HEADERS.length), class: "muted" }, [
								filtered ? "No run matches these filters." : "No runs yet: start one above, or with crew run …",
							]),
						]),
					]),
		);
		shown.textContent =
			page.total === 0 ? "" : `runs ${offset + 1}–${offset + page.runs.length} of ${count(page.total)}`;
		previous.disabled = offset === 0;
		next.disabled = offset + page.runs.length >= page.total;
	};
	const again = () => {
		offset = 0;
		refresh().catch((e) => setConnection(e.message));
	};
	search.addEventListener("input", again);
	for (const { field } of [status, workflow, team]) field.addEventListener("change", again);
	previous.addEventListener("click", () => {
		offset = Math.max(0, offset - PAGE);
		refresh().catch((e) => setConnection(e.message));
	});
	next.addEventListener("click", () => {
		offset += PAGE;
		refresh().catch((e) => setConnection(e.message));
	});
	await refresh();
	setInterval(() => refresh().catch((e) => setConnection(e.message)), 2000);
}
