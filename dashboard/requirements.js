// @ts-check
// A run page's "Requirements": each check of the specs its tasks were held to, with its outcome
// (met, failed, not run and why, cited, unverified, pending), the task held to it and the
// evidence its answer cited. Every text from the server goes in through textContent, never as HTML.

import { api, el } from "./dom.js";

/** What each outcome reads as, and the status colour it borrows. */
const OUTCOMES = /** @type {const} */ ({
	met: ["met", "completed"],
	failed: ["failed", "failed"],
	"not-run": ["not run", "skipped"],
	cited: ["cited, not checked", "waiting"],
	unverified: ["unverified", "interrupted"],
	pending: ["pending", "queued"],
});

/**
 * The section, and `update()`, which reads the run's requirements again and redraws them when
 * they changed; a run without specs has none, and the section stays empty.
 * @param {string} runId
 * @param {(taskId: string) => void} select opens a task of this run in its panel
 */
export function requirementsSection(runId, select) {
	const section = el("section", { id: "requirements", "aria-label": "Requirements" });
	let drawn = "";
	const update = async () => {
		const { requirements } = await api(`/api/runs/${encodeURIComponent(runId)}/requirements`);
		const key = JSON.stringify(requirements);
		if (key === drawn) return;
		drawn = key;
		if (requirements.length === 0) {
			section.replaceChildren();
			return;
		}
		const head = el(
			"tr",
			{},
			["Check", "Outcome", "Requirement", "Spec", "Task", "Evidence"].map((h) => el("th", { scope: "col" }, [h])),
		);
		const rows = requirements.map((/** @type {any} */ r) => {
			const [words, colour] = OUTCOMES[/** @type {keyof typeof OUTCOMES} */ (r.outcome)] ?? [r.outcome, "queued"];
			const task = el("a", { href: "#", class: "task-ref" }, [r.taskId]);
			task.addEventListener("click", (e) => {
				e.preventDefault();
				select(r.taskId);
			});
			return el("tr", { class: "requirement", "data-check": r.acceptanceId, "data-outcome": r.outcome }, [
				el("td", {}, [el("code", {}, [r.acceptanceId]), el("div", { class: "muted" }, [r.check])]),
				el("td", {}, [
					el("span", { class: `status status-${colour}` }, [words]),
					...(r.reason ? [el("div", { class: "muted" }, [r.reason])] : []),
				]),
				el("td", {}, [`${r.requirementId} (${r.priority}) ${r.text}`]),
				el("td", {}, [`${r.specId} v${r.version}${r.strict ? ", strict" : ""}${r.trusted ? "" : ", not imported"}`]),
				el("td", {}, [task]),
				el("td", {}, [r.cited ?? "—"]),
			]);
		});
		section.replaceChildren(
			el("h2", {}, ["Requirements"]),
			el("table", { class: "requirements" }, [el("thead", {}, [head]), el("tbody", {}, rows)]),
		);
	};
	return { section, update };
}
