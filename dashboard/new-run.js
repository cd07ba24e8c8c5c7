// @ts-check
// The runs page's "New run" form: a goal and what runs it, planned first, then started, the new
// run's page opened. Every text from the server goes in through textContent, never as HTML.

import { el, labelled, openRun, send } from "./dom.js";
import { fillResources, resourceSelect } from "./resources.js";

const SANDBOXES = ["off", "workspace", "strict"];

/**
 * The plan as lines a reader can check before starting: what runs it, its tasks level by level
 * (each with the tasks it waits for), the critical path, the estimate and the diagnostics.
 * @param {any} plan
 */
function planView(plan) {
	const head = `workflow ${plan.workflow}${plan.team ? `, team ${plan.team}` : ""}`;
	const parts = [el("h3", {}, ["Plan"])];
	if (plan.script) {
		parts.push(
			el("p", { id: "plan-head" }, [
				`${head}: a script whose tasks are made as it runs, by the roles ${plan.script.roles.join(", ")}`,
			]),
		);
	} else {
		const byId = new Map(plan.tasks.map((/** @type {any} */ t) => [t.id, t]));
		const levels = plan.parallelGroups.length;
		parts.push(
			el("p", { id: "plan-head" }, [
				`${head}: ${plan.tasks.length} tasks in ${levels} level${levels === 1 ? "" : "s"}`,
			]),
			el(
				"ol",
				{ id: "plan-levels" },
				plan.parallelGroups.map((/** @type {string[]} */ ids, /** @type {number} */ level) =>
					el(
						"li",
						{ "data-level": String(level + 1) },
						ids.map((id) => {
							const t = byId.get(id);
							const model = t?.model ? ` ${t.model}` : "";
							const after = t?.dependsOn.length > 0 ? ` after ${t.dependsOn.join(", ")}` : "";
							return el("span", { class: "plan-task", "data-task": id }, [
								`${id} (${t?.role} → ${t?.agent}, ${t?.runtime}${model})${after}`,
							]);
						}),
					),
				),
			),
			el("p", { id: "plan-critical", class: "muted" }, [`critical path: ${plan.criticalPath.join(" → ")}`]),
		);
	}
	if (plan.estimate) parts.push(el("p", { id: "plan-estimate" }, [`estimate: ${plan.estimate.line}`]));
	if (plan.diagnostics.length > 0) {
		parts.push(
			el(
				"ul",
				{ id: "plan-diagnostics" },
				plan.diagnostics.map((/** @type {any} */ d) =>
					el("li", { class: d.level === "error" ? "error" : "warning" }, [`${d.level}: ${d.file}: ${d.message}`]),
				),
			),
		);
	}
	return parts;
}

/**
 * The form. Plan sends what it asks to `/api/plan` and shows the answer; Start sends that same
 * request to `/api/runs` and opens the run's page. Changing any field sets the plan aside, so
 * what starts is always what was planned.
 */
export function newRunForm() {
	const goal = /** @type {HTMLTextAreaElement} */ (
		el("textarea", { id: "new-run-goal", rows: "3", placeholder: "What the run should do" })
	);
	const workflow = resourceSelect("new-run-workflow", "the team's or the default");
	const team = resourceSelect("new-run-team", "the default");
	const agent = resourceSelect("new-run-agent", "none: the team and workflow");
	const model = /** @type {HTMLInputElement} */ (
		el("input", { id: "new-run-model", type: "text", placeholder: "each agent's own" })
	);
	const sandbox = /** @type {HTMLSelectElement} */ (
		el("select", { id: "new-run-sandbox" }, [
			el("option", { value: "" }, ["default"]),
			...SANDBOXES.map((s) => el("option", { value: s }, [s])),
		])
	);
	const budget = /** @type {HTMLInputElement} */ (
		el("input", { id: "new-run-budget", type: "number", min: "1", step: "1", placeholder: "no cap" })
	);
	const plan = /** @type {HTMLButtonElement} */ (el("button", { id: "new-run-plan", type: "submit" }, ["Plan"]));
	const start = /** @type {HTMLButtonElement} */ (
		el("button", { id: "new-run-start", type: "button", disabled: "" }, ["Start"])
	);
	const error = el("p", { id: "new-run-error", class: "error", role: "alert" });
	const view = el("div", { id: "new-run-view", "aria-live": "polite" });
	const form = /** @type {HTMLFormElement} */ (
		el("form", { id: "new-run", class: "action-form", "aria-labelledby": "new-run-title", novalidate: "" }, [
			el("h2", { id: "new-run-title" }, ["New run"]),
			labelled("Goal", goal),
			el("div", { class: "fields" }, [
				labelled("Workflow", workflow),
				labelled("Team", team),
				labelled("Or one agent", agent),
				labelled("Model", model),
				labelled("Sandbox", sandbox),
				labelled("Budget (tokens)", budget),
			]),
			el("p", { class: "buttons" }, [plan, start]),
			error,
			view,
		])
	);

	/** @type {object | undefined} The request the shown plan answers; Start sends it. */
	let planned;
	/** Counts the plans asked for and the changes of the fields: an answer to an older one is dropped. */
	let asked = 0;
	/** A request is on its way: the buttons keep their focus rather than go disabled meanwhile. */
	let busy = false;
	const setAside = () => {
		asked += 1;
		planned = undefined;
		start.disabled = true;
		view.replaceChildren();
	};

	/** The fields as a request: a one-agent run names neither team nor workflow. */
	const request = () => {
		/** @type {Record<string, string | number>} */
		const body = { goal: goal.value.trim() };
		if (agent.value) body.agent = agent.value;
		else {
			if (team.value) body.team = team.value;
			if (workflow.value) body.workflow = workflow.value;
		}
		if (model.value.trim()) body.model = model.value.trim();
		if (sandbox.value) body.sandbox = sandbox.value;
		if (budget.value !== "") body.budgetTokens = Number(budget.value);
		return body;
	};

	agent.addEventListener("change", () => {
		for (const other of [team, workflow]) {
			other.disabled = agent.value !== "";
			if (other.disabled) other.value = "";
		}
	});
	form.addEventListener("input", setAside);
	form.addEventListener("change", setAside);

	form.addEventListener("submit", async (event) => {
		event.preventDefault();
		if (busy) return;
		setAside();
		error.textContent = "";
		const body = request();
		if (body.goal === "") {
			error.textContent = "Write a goal first.";
			goal.focus();
			return;
		}
		busy = true;
		const mine = asked;
		try {
			const answer = await send("POST", "/api/plan", body);
			// The fields changed while it was on its way: it plans what they no longer say.
			if (mine !== asked) return;
			view.replaceChildren(...planView(answer));
			planned = body;
			start.disabled = answer.diagnostics.some((/** @type {any} */ d) => d.level === "error");
		} catch (e) {
			error.textContent = `Not planned: ${/** @type {Error} */ (e).message}`;
		} finally {
			busy = false;
		}
	});

	start.addEventListener("click", async () => {
		if (!planned || busy) return;
		busy = true;
		error.textContent = "";
		try {
			const started = await send("POST", "/api/runs", planned);
			openRun(started.runId);
		} catch (e) {
			error.textContent = `Not started: ${/** @type {Error} */ (e).message}`;
			busy = false;
		}
	});

	fillResources({ workflow, team, agent }).catch((e) => {
		error.textContent = `The agents, teams and workflows could not be read: ${e.message}`;
	});
	return form;
}
