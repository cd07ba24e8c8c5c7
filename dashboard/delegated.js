// @ts-check
// A run page's lines of delegation: the run that delegated this one, and the runs this one's tasks
// delegated, each under its task with its status and what it spent, linked. Every text from the
// server goes in through textContent, never as HTML.

import { el, statusBadge, usageText } from "./dom.js";

/** @param {string} id */
const runLink = (id) => el("a", { href: `/runs/${encodeURIComponent(id)}` }, [`run ${id}`]);

/**
 * The section, and `show(run)`, which redraws it from the run's JSON (`parent`, `children`).
 * `select(taskId)` opens a task of this run in its panel.
 * @param {(taskId: string) => void} select
 */
export function delegatedSection(select) {
	const parent = el("p", { id: "delegated-by", class: "muted" });
	const list = el("ul", { id: "delegated-runs" });
	const section = el("section", { id: "delegated", "aria-label": "Delegated runs" });
	/** What was drawn last: a run page redraws it only when it changed. */
	let drawn = "";
	/** @param {any} run */
	const show = (run) => {
		const children = run.children ?? [];
		const key = JSON.stringify([run.parent ?? null, children]);
		if (key === drawn) return;
		drawn = key;
		parent.replaceChildren(
			...(run.parent
				? ["delegated by ", runLink(run.parent.runId), `, task ${run.parent.taskId}, attempt ${run.parent.attempt}`]
				: []),
		);
		list.replaceChildren(
			...children.map((/** @type {any} */ child) => {
				const task = el("a", { href: "#", class: "task-ref" }, [child.taskId]);
				task.addEventListener("click", (e) => {
					e.preventDefault();
					select(child.taskId);
				});
				return el("li", { class: "delegated-run", "data-task": child.taskId, "data-run": child.runId }, [
					task,
					" ↳ ",
					runLink(child.runId),
					" ",
					statusBadge(child.status),
					` ${child.workflow} · ${usageText(child.usage)}`,
					...(child.error && child.status !== "completed" ? [el("span", { class: "error" }, [` ${child.error}`])] : []),
				]);
			}),
		);
		const spent = run.usageNested
			? [el("p", { class: "muted" }, [`own ${usageText(run.usageOwn)} · delegated ${usageText(run.usageNested)}`])]
			: [];
		section.replaceChildren(...(children.length > 0 ? [el("h2", {}, ["Delegated runs"]), ...spent, list] : []));
	};
	return { parent, section, show };
}
