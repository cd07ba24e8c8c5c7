// @ts-check
// A run page's "Cost" section: where the tokens and dollars went, by task, role and model, as bars.

import { api, count, el } from "./dom.js";

/** @param {any} u */
const tokensOf = (u) => u.inputTokens + u.outputTokens + u.cacheReadTokens + u.cacheWriteTokens;

/** @param {any} u */
const usageLine = (u) => `${count(tokensOf(u))} tokens · $${u.costUsd.toFixed(4)}${u.partial ? " (at least)" : ""}`;

/** Bars a group shows; the rest are summed on one line, as a list of hundreds would not be read. */
const SHOWN = 25;

/** @param {any[]} usages */
function sum(usages) {
	const total = {
		inputTokens: 0,
		outputTokens: 0,
		cacheReadTokens: 0,
		cacheWriteTokens: 0,
		costUsd: 0,
		partial: false,
	};
	for (const u of usages) {
		total.inputTokens += u.inputTokens;
		total.outputTokens += u.outputTokens;
		total.cacheReadTokens += u.cacheReadTokens;
		total.cacheWriteTokens += u.cacheWriteTokens;
		total.costUsd += u.costUsd;
		total.partial ||= Boolean(u.partial);
	}
	return total;
}

/**
 * One group of bars, longest first: each a label, a bar as long as its share of the group's
 * tokens, and its figures in words (the bar only repeats them). Past `SHOWN`, the rest are one
 * line with their sum.
 * @param {string} title
 * @param {[string, any][]} entries
 */
function bars(title, entries) {
	const most = Math.max(1, ...entries.map(([, u]) => tokensOf(u)));
	const sorted = [...entries].sort(([, a], [, b]) => tokensOf(b) - tokensOf(a) || b.costUsd - a.costUsd);
	const rest = sorted.slice(SHOWN);
	return el("div", { class: "cost-group" }, [
		el("h3", {}, [title]),
		el(
			"ul",
			{ class: "cost-bars" },
			sorted.slice(0, SHOWN).map(([label, u]) =>
				el("li", { "data-key": label }, [
					el("span", { class: "cost-label" }, [label]),
					el("span", {
						class: "cost-bar",
						style: `width: ${((tokensOf(u) / most) * 100).toFixed(1)}%`,
						"aria-hidden": "true",
					}),
					el("span", { class: "cost-figures" }, [usageLine(u)]),
				]),
			),
		),
		...(rest.length > 0
			? [
					el("p", { class: "muted cost-rest" }, [
						`${count(rest.length)} more: ${usageLine(sum(rest.map(([, u]) => u)))}`,
					]),
				]
			: []),
	]);
}

/**
 * The budget, and how much of it the run spent.
 * @param {any} budget
 * @param {any} usage
 */
function budgetLine(budget, usage) {
	if (!budget) return "no budget: the run spends what it needs";
	const parts = [];
	if (budget.tokens !== null) {
		parts.push(
			`${count(tokensOf(usage))} of ${count(budget.tokens)} tokens (${Math.round((tokensOf(usage) / budget.tokens) * 100)}%)`,
		);
	}
	if (budget.usd !== null) {
		parts.push(
			`$${usage.costUsd.toFixed(4)} of $${budget.usd.toFixed(2)} (${Math.round((usage.costUsd / budget.usd) * 100)}%)`,
		);
	}
	return `budget: ${parts.join(", ")}`;
}

/**
 * Fills `section` with run `runId`'s cost, read again from the server.
 * @param {HTMLElement} section
 * @param {string} runId
 */
export async function showCost(section, runId) {
	const cost = await api(`/api/runs/${encodeURIComponent(runId)}/cost`);
	const own = cost.tasks.filter((/** @type {any} */ t) => !t.inherited);
	const inherited = cost.tasks.filter((/** @type {any} */ t) => t.inherited);
	section.replaceChildren(
		el("h2", {}, ["Cost"]),
		el("p", { id: "cost-total" }, [`this run: ${usageLine(cost.usage)}`]),
		el("p", { id: "cost-budget", class: "muted" }, [budgetLine(cost.budget, cost.usage)]),
		bars(
			"By task",
			own.map((/** @type {any} */ t) => [t.id, t.usage]),
		),
		bars("By role", Object.entries(cost.usageByRole)),
		bars("By model", Object.entries(cost.usageByModel)),
		...(inherited.length > 0
			? [
					bars(
						"Inherited from the forked run (spent there, not here)",
						inherited.map((/** @type {any} */ t) => [`${t.id} (run ${t.inherited.runId})`, t.inherited.usage]),
					),
				]
			: []),
	);
}
