// @ts-check
// The dashboard's inbox: its count in the header on every page, and its page at `/inbox`, where
// questions are answered.

import { api, el, send, setConnection, setWhere } from "./dom.js";

/** The header's count of what waits on a person, kept current. */
export function watchInbox() {
	const count = document.getElementById("inbox-count");
	const refresh = async () => {
		const { items } = await api("/api/inbox");
		if (count) count.textContent = String(items.length);
		count?.classList.toggle("waiting", items.length > 0);
	};
	refresh().catch((e) => setConnection(e.message));
	setInterval(() => refresh().catch((e) => setConnection(e.message)), 2000);
}

/**
 * A box that answers an agent's question from the page: one per question, kept across the
 * table's redraws so that what is typed survives them.
 * @param {string} runId
 * @param {string} task
 * @param {number} question
 */
function answerForm(runId, task, question) {
	const text = /** @type {HTMLInputElement} */ (el("input", { class: "answer-text", placeholder: "Your answer" }));
	const button = el("button", { class: "answer-send", type: "submit" }, ["Answer"]);
	const result = el("span", { class: "answer-result muted" });
	const form = el("form", { class: "answer", "data-task": task }, [text, button, result]);
	form.addEventListener("submit", async (event) => {
		event.preventDefault();
		const answer = text.value.trim();
		if (answer === "") return;
		result.textContent = "sending…";
		try {
			const path = `/api/runs/${encodeURIComponent(runId)}/tasks/${encodeURIComponent(task)}/answer`;
			const given = await send("POST", path, { answer, question });
			result.textContent =
				given.state === "delivered" ? "its agent has the answer" : `answered; the run is ${given.status}`;
			text.value = "";
		} catch (error) {
			result.textContent = `not sent: ${/** @type {Error} */ (error).message}`;
		}
	});
	return form;
}

/** Everything waiting on a person, oldest first, each with the command that answers it, and a box for each question. */
export async function inboxPage() {
	setWhere("inbox");
	const main = /** @type {HTMLElement} */ (document.getElementById("main"));
	const body = el("tbody");
	/** @type {Map<string, HTMLElement>} */
	const forms = new Map();
	/** @param {any} i */
	const formFor = (i) => {
		// A question's number counts within its task: the task is part of what names it.
		const key = `${i.runId}/${i.tasks[0]}/${i.question}`;
		const form = forms.get(key) ?? answerForm(i.runId, i.tasks[0], i.question);
		forms.set(key, form);
		return form;
	};
	main.replaceChildren(
		el("h1", {}, ["Inbox"]),
		el("table", { id: "inbox" }, [
			el("thead", {}, [
				el(
					"tr",
					{},
					["Since", "Kind", "Run", "What", "Answer"].map((h) => el("th", {}, [h])),
				),
			]),
			body,
		]),
	);
	const refresh = async () => {
		const { items } = await api("/api/inbox");
		body.replaceChildren(
			...(items.length === 0
				? [el("tr", {}, [el("td", { colspan: "5", class: "muted" }, ["Nothing waits for you."])])]
				: items.map((/** @type {any} */ i) =>
						el("tr", { "data-kind": i.kind, "data-run": i.runId }, [
							el("td", {}, [new Date(i.since).toLocaleString()]),
							el("td", {}, [i.kind]),
							el("td", {}, [el("a", { href: `/runs/${encodeURIComponent(i.runId)}` }, [i.runId])]),
							el("td", {}, [i.what]),
							el("td", {}, [el("code", {}, [i.command]), ...(i.kind === "question" ? [formFor(i)] : [])]),
						]),
					)),
		);
	};
	await refresh();
	setInterval(() => refresh().catch((e) => setConnection(e.message)), 2000);
}
