// @ts-check
// Choices of the repository's agents, teams and workflows (what `crew list` shows), for the forms
// that start runs and add schedules.

import { api, el } from "./dom.js";

/**
 * A select whose first choice, `none`, sends nothing: the server's default.
 * @param {string} id
 * @param {string} none
 */
export function resourceSelect(id, none) {
	return /** @type {HTMLSelectElement} */ (el("select", { id }, [el("option", { value: "" }, [none])]));
}

/**
 * Fills each select with the resources of its kind, by name, their layer beside them. A choice
 * already made is kept.
 * @param {Partial<Record<"agent" | "team" | "workflow", HTMLSelectElement>>} selects
 */
export async function fillResources(selects) {
	const { resources } = await api("/api/resources");
	for (const [kind, select] of Object.entries(selects)) {
		const chosen = select.value;
		const known = new Set([...select.options].map((o) => o.value));
		for (const r of resources) {
			if (r.kind !== kind || known.has(r.name)) continue;
			const option = el("option", { value: r.name }, [`${r.name} (${r.layer})`]);
			if (r.description) option.title = r.description;
			select.append(option);
		}
		select.value = chosen;
	}
}
