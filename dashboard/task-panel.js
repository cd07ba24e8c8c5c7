// @ts-check
// A run page's task panel: the selected task's figures, transcript, result, changes, prompt and
// files, while it runs a box to steer its agent, and once it has ended buttons that retry it or
// fork the run from it. Every text from the server goes in through textContent, never as HTML.

import { api, ENDED_RUN, el, elapsed, onClick, openRun, send, statusBadge, usageText } from "./dom.js";

/** A task in one of these states can be run again in its own run (the server refuses while the run is being run). */
const RETRYABLE = new Set(["failed", "cancelled", "skipped", "needs_attention"]);
/** Run states in which the run is being run, so no task of it can be retried. */
const BEING_RUN = new Set(["queued", "running"]);

/**
 * Whether a task of `run` in state `task` may be retried now: not while a runner holds the run,
 * whatever its status (a run waiting for an approval is held too).
 * @param {any} run
 * @param {string} task
 */
function retryable(run, task) {
	return RETRYABLE.has(task) && !BEING_RUN.has(run.status) && run.heldBy === undefined;
}

/**
 * The panel of the run `runId`: `select` names the task it shows, `show` reads that task and
 * redraws the panel with it.
 * @param {string} runId
 */
export function taskPanel(runId) {
	const panel = el("aside", { class: "panel", id: "task-panel" }, [
		el("p", { class: "muted" }, ["Select a task to see its prompt, transcript, result and changes."]),
	]);
	/** @type {string | undefined} */
	let selected;

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
			const sent = await send(
				"POST",
				`/api/runs/${encodeURIComponent(runId)}/tasks/${encodeURIComponent(task)}/steer`,
				{
					message: text,
				},
			);
			steerResult.textContent = `message ${sent.message}: ${sent.state}${sent.reason ? `: ${sent.reason}` : ""}`;
			if (sent.state !== "refused") steerText.value = "";
		} catch (error) {
			steerResult.textContent = `not sent: ${/** @type {Error} */ (error).message}`;
		}
	});

	// Retry and fork, made once: a button keeps its focus across the panel's redraws, and the line
	// saying how the last one went stays until another task is selected.
	const retry = el("button", { id: "task-retry", type: "button" }, ["Retry"]);
	const fork = el("button", { id: "task-fork", type: "button" }, ["Fork from here"]);
	const actionResult = el("span", { id: "task-action-result", class: "muted", role: "status", tabindex: "-1" });
	const actions = el("p", { id: "task-actions" }, [retry, fork, actionResult]);
	onClick(retry, async () => {
		const task = selected;
		if (!task) return;
		actionResult.textContent = "retrying…";
		try {
			const retried = await send(
				"POST",
				`/api/runs/${encodeURIComponent(runId)}/tasks/${encodeURIComponent(task)}/retry`,
				{},
			);
			actionResult.textContent = `retry of ${retried.task}: run is ${retried.status}`;
		} catch (error) {
			actionResult.textContent = `not retried: ${/** @type {Error} */ (error).message}`;
		}
		await showTask().catch((error) => {
			actionResult.textContent = error.message;
		});
	});
	onClick(fork, async () => {
		const task = selected;
		if (!task) return;
		actionResult.textContent = "forking…";
		try {
			const forked = await send("POST", `/api/runs/${encodeURIComponent(runId)}/fork`, { from: [task] });
			return openRun(forked.runId);
		} catch (error) {
			actionResult.textContent = `not forked: ${/** @type {Error} */ (error).message}`;
		}
	});

	// Reads answered out of order: only the latest one asked for is drawn.
	let reads = 0;
	const showTask = async () => {
		if (!selected) return;
		const read = ++reads;
		const d = await api(`/api/runs/${encodeURIComponent(runId)}/tasks/${encodeURIComponent(selected)}`);
		if (read !== reads) return;
		const focused = document.activeElement;
		// What is offered follows the run as it was read with the task: a retry is answered once its
		// runner holds the run, which may be before the task is queued again.
		const t = d.task;
		retry.hidden = !retryable(d.run, t.status);
		// A workflow script's run is not forked: its tasks come from the script as it runs.
		fork.hidden = !ENDED_RUN.has(d.run.status) || d.run.script !== undefined;
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
			...(retry.hidden && fork.hidden && actionResult.textContent === "" ? [] : [actions]),
			...d.setAside.map((/** @type {string} */ line) => el("p", { class: "warning set-aside" }, [line])),
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
		// Moved back into the redrawn panel, a control that had the focus has it again; a button
		// hidden meanwhile (a retried task's) hands it to the line saying what became of its action.
		if (focused instanceof HTMLElement && panel.contains(focused)) (focused.hidden ? actionResult : focused).focus();
	};

	return {
		element: panel,
		/** The task the panel shows, if one was selected. */
		get selected() {
			return selected;
		},
		/**
		 * Makes `id` the task the panel shows; the steer box starts empty for another task.
		 * @param {string} id
		 */
		select(id) {
			if (id !== selected) {
				steerText.value = "";
				steerResult.textContent = "";
				actionResult.textContent = "";
			}
			selected = id;
		},
		show: showTask,
	};
}
