// @ts-check
// Two runs side by side at `/runs/<a>/compare/<b>`: each task's status, attempts and tokens, and
// the diffs of the prompts, results and patches that differ.

import { api, duration, el, setWhere, statusBadge, usageText } from "./dom.js";

/**
 * One side of a task, or a dash when that run has no such task.
 * @param {any} side
 */
function sideCell(side) {
	if (!side) return el("td", { class: "muted" }, ["—"]);
	const how = side.inheritedFrom ? `inherited from ${side.inheritedFrom}` : `${side.attempts} attempt(s)`;
	const took = side.durationMs === null ? "" : ` · ${duration(side.durationMs)}`;
	const thinking = side.thinking ? ` · thinking ${side.thinking}` : "";
	const who = `${side.agent} on ${side.runtime}${side.model ? ` (${side.model})` : ""}${thinking}${side.sandbox ? ` · sandbox ${side.sandbox}` : ""}`;
	return el("td", {}, [statusBadge(side.status), ` ${how} · ${who} · ${usageText(side.usage)}${took}`]);
}

/**
 * A unified diff, each line coloured by what it does.
 * @param {string} text
 */
function diffBlock(text) {
	const lines = text.split("\n").map((line) => {
		const kind =
			line.startsWith("+") && !line.startsWith("+++")
				? "added"
				: line.startsWith("-") && !line.startsWith("---")
					? "removed"
					: "";
		return el("span", kind ? { class: kind } : {}, [`${line}\n`]);
	});
	return el("pre", { class: "diff" }, lines);
}

/**
 * @param {string} a
 * @param {string} b
 */
export async function comparePage(a, b) {
	setWhere(`${a} ↔ ${b}`);
	const main = /** @type {HTMLElement} */ (document.getElementById("main"));
	const compared = await api(`/api/runs/${encodeURIComponent(a)}/compare/${encodeURIComponent(b)}`);
	const totals = el("table", { class: "runs", id: "compare-totals" }, [
		el(
			"tr",
			{},
			["", "run", "status", "spent", "inherited", "took"].map((h) => el("th", {}, [h])),
		),
		...[
			["a", compared.a],
			["b", compared.b],
		].map(([name, t]) =>
			el("tr", {}, [
				el("td", {}, [name]),
				el("td", {}, [el("a", { href: `/runs/${encodeURIComponent(t.runId)}` }, [t.runId])]),
				el("td", {}, [statusBadge(t.status)]),
				el("td", {}, [usageText(t.usage)]),
				el("td", {}, [usageText(t.inherited)]),
				el("td", {}, [t.durationMs === null ? "" : duration(t.durationMs)]),
			]),
		),
	]);
	const rows = compared.tasks.map((/** @type {any} */ t) =>
		el("tr", { class: t.changed.length === 0 ? "same" : "changed", "data-task": t.taskId }, [
			el("td", {}, [t.taskId]),
			el("td", { class: "what" }, [t.changed.length === 0 ? "same" : t.changed.join(", ")]),
			sideCell(t.a),
			sideCell(t.b),
		]),
	);
	const tasks = el("table", { class: "runs", id: "compare-tasks" }, [
		el(
			"tr",
			{},
			["task", "differs in", `a: ${a}`, `b: ${b}`].map((h) => el("th", {}, [h])),
		),
		...rows,
	]);
	const diffs = compared.tasks.flatMap((/** @type {any} */ t) =>
		[
			["prompt", t.prompt],
			["result", t.result],
			["patch", t.patch],
		]
			.filter(([, text]) => text)
			.map(([name, text]) =>
				el("section", { class: "task-diff", "data-task": t.taskId, "data-kind": name }, [
					el("h2", {}, [`${name} of ${t.taskId}`]),
					diffBlock(text),
				]),
			),
	);
	main.replaceChildren(el("h1", {}, [`compare ${a} with ${b}`]), totals, tasks, ...diffs);
}
