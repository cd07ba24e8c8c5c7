// @ts-check
// The schedules page at `/schedules`: each schedule with its next slot and latest outcome, paused,
// resumed or removed from its row, and a form that adds one. Every text from the server goes in
// through textContent, never as HTML.

import { api, el, labelled, onClick, scrollingTable, send, setConnection, setWhere } from "./dom.js";
import { fillResources, resourceSelect } from "./resources.js";

const HEADERS = ["Schedule", "When", "Goal", "Next slot", "State", "Last outcome", "Actions"];
/** What the status line says of a change that went through. */
const DONE = { pause: "paused", resume: "resumed", remove: "removed" };

/**
 * The latest slot's outcome: the run it started and that run's status, else why it started none.
 * @param {any} s
 * @returns {(Node | string)[]}
 */
function lastOutcome(s) {
	const last = s.last[0];
	if (!last) return ["none yet"];
	if (last.runId)
		return [el("a", { href: `/runs/${encodeURIComponent(last.runId)}` }, [last.runId]), ` ${last.status ?? ""}`];
	return [`${last.outcome}${last.reason ? `: ${last.reason}` : ""}`];
}

export async function schedulesPage() {
	setWhere("schedules");
	const main = /** @type {HTMLElement} */ (document.getElementById("main"));
	const message = el("p", { id: "schedule-message", class: "muted", role: "status", tabindex: "-1" });
	const body = el("tbody");
	main.replaceChildren(
		el("h1", {}, ["Schedules"]),
		addForm(async (row) => {
			message.textContent = `added ${row.name}: ${row.when}`;
			await refresh().catch((e) => setConnection(e.message));
		}),
		message,
		scrollingTable("schedules-table", HEADERS, body),
	);

	/**
	 * Rows by schedule name, kept from one read to the next: a button keeps its focus while the
	 * rows' texts change under it.
	 * @type {Map<string, {row: HTMLElement, cells: HTMLElement[], toggle: HTMLButtonElement}>}
	 */
	const rows = new Map();

	/**
	 * Sends one change of schedule `name`, says how it went, and reads the schedules again.
	 * @param {string} name
	 * @param {"pause" | "resume" | "remove"} action
	 */
	const change = async (name, action) => {
		const path = `/api/schedules/${encodeURIComponent(name)}`;
		message.textContent = `${action} ${name}…`;
		try {
			if (action === "remove") await send("DELETE", path);
			else await send("POST", `${path}/${action}`, {});
			message.textContent = `${DONE[action]} ${name}`;
		} catch (error) {
			message.textContent = `${action} ${name} failed: ${/** @type {Error} */ (error).message}`;
		}
		await refresh().catch((e) => setConnection(e.message));
		// A removed row's buttons are gone: the keyboard goes on from what became of it.
		if (action === "remove") message.focus();
	};

	/** @param {string} name */
	const rowFor = (name) => {
		const known = rows.get(name);
		if (known) return known;
		const toggle = /** @type {HTMLButtonElement} */ (el("button", { type: "button", class: "schedule-toggle" }));
		onClick(toggle, () => change(name, toggle.dataset.action === "resume" ? "resume" : "pause"));
		const remove = el("button", { type: "button", class: "schedule-remove" }, ["Remove"]);
		onClick(remove, async () => {
			if (confirm(`Remove the schedule ${name}? Its past runs stay.`)) await change(name, "remove");
		});
		const cells = HEADERS.slice(0, -1).map(() => el("td"));
		const row = el("tr", { "data-schedule": name }, [
			...cells,
			el("td", {}, [el("span", { class: "buttons" }, [toggle, remove])]),
		]);
		const made = { row, cells, toggle };
		rows.set(name, made);
		return made;
	};

	/** Counts the reads: one answered after a later one is dropped, lest it bring back a removed row. */
	let reads = 0;
	const refresh = async () => {
		reads += 1;
		const mine = reads;
		const { schedules } = await api("/api/schedules");
		if (mine !== reads) return;
		const names = new Set(schedules.map((/** @type {any} */ s) => s.name));
		for (const [name, { row }] of rows) {
			if (names.has(name)) continue;
			row.remove();
			rows.delete(name);
		}
		if (schedules.length === 0) {
			body.replaceChildren(
				el("tr", {}, [
					el("td", { colspan: String(HEADERS.length), class: "muted" }, ["No schedules yet: add one above."]),
				]),
			);
			return;
		}
		const ordered = schedules.map((/** @type {any} */ s) => {
			const { row, cells, toggle } = rowFor(s.name);
			const texts = [
				[s.name],
				[s.when],
				[s.goal.split("\n")[0].slice(0, 120)],
				[s.next ? new Date(s.next).toLocaleString() : "none"],
				[s.paused ? "paused" : "active"],
				lastOutcome(s),
			];
			for (const [i, children] of texts.entries()) cells[i]?.replaceChildren(...children);
			toggle.textContent = s.paused ? "Resume" : "Pause";
			toggle.dataset.action = s.paused ? "resume" : "pause";
			row.classList.toggle("paused", s.paused);
			return row;
		});
		// Appending a row already in place moves nothing that has the focus out of the document.
		const children = [...body.children];
		if (children.length !== ordered.length || children.some((child, i) => child !== ordered[i]))
			body.replaceChildren(...ordered);
	};

	await refresh();
	setInterval(() => refresh().catch((e) => setConnection(e.message)), 5000);
}

/**
 * The form that adds a schedule: a name, a goal, when (every so long, or a cron line), and what
 * runs it. `added` is given the schedule once the server has it.
 * @param {(row: any) => Promise<void>} added
 */
function addForm(added) {
	const name = /** @type {HTMLInputElement} */ (
		el("input", { id: "schedule-name", type: "text", placeholder: "nightly-check", autocomplete: "off" })
	);
	const goal = /** @type {HTMLTextAreaElement} */ (
		el("textarea", { id: "schedule-goal", rows: "2", placeholder: "What each run should do" })
	);
	const every = /** @type {HTMLInputElement} */ (
		el("input", { id: "schedule-every", type: "text", placeholder: "10m, 1h, 1d", autocomplete: "off" })
	);
	const cron = /** @type {HTMLInputElement} */ (
		el("input", { id: "schedule-cron", type: "text", placeholder: "0 9 * * 1-5", autocomplete: "off" })
	);
	const workflow = resourceSelect("schedule-workflow", "the team's or the default");
	const team = resourceSelect("schedule-team", "the default");
	const error = el("p", { id: "schedule-error", class: "error", role: "alert" });
	const form = /** @type {HTMLFormElement} */ (
		el("form", { id: "add-schedule", class: "action-form", "aria-labelledby": "add-schedule-title", novalidate: "" }, [
			el("h2", { id: "add-schedule-title" }, ["Add a schedule"]),
			el("div", { class: "fields" }, [labelled("Name", name)]),
			labelled("Goal", goal),
			el("div", { class: "fields" }, [
				labelled("Every", every),
				labelled("Or cron", cron),
				labelled("Workflow", workflow),
				labelled("Team", team),
			]),
			el("p", { class: "buttons" }, [el("button", { id: "schedule-add", type: "submit" }, ["Add schedule"])]),
			error,
		])
	);
	let busy = false;
	form.addEventListener("submit", async (event) => {
		event.preventDefault();
		if (busy) return;
		/** @type {Record<string, string>} */
		const body = { name: name.value.trim(), goal: goal.value.trim() };
		if (every.value.trim()) body.every = every.value.trim();
		if (cron.value.trim()) body.cron = cron.value.trim();
		if (workflow.value) body.workflow = workflow.value;
		if (team.value) body.team = team.value;
		const missing = [
			body.name ? "" : "a name",
			body.goal ? "" : "a goal",
			body.every || body.cron ? "" : "when (every or cron)",
		].filter(Boolean);
		if (missing.length > 0) {
			error.textContent = `Give ${missing.join(", ")}.`;
			return;
		}
		busy = true;
		error.textContent = "";
		try {
			const row = await send("POST", "/api/schedules", body);
			form.reset();
			await added(row);
		} catch (e) {
			error.textContent = `Not added: ${/** @type {Error} */ (e).message}`;
		} finally {
			busy = false;
		}
	});
	fillResources({ workflow, team }).catch((e) => {
		error.textContent = `The teams and workflows could not be read: ${e.message}`;
	});
	return form;
}
