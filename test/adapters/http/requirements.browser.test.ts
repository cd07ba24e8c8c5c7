// @module-tag browser
// @slow: drives Chromium over a run whose strict step was held to a spec
import { expect, test } from "vitest";
import { crew, lastJson } from "../../helpers.js";
import { heldCommand, repoWithSpec } from "../../specs/held-spec.js";
import { fileDashboard, runPage } from "./dashboard-browser.js";

const dashboard = fileDashboard();

const SPEC = {
	id: "page-spec",
	version: 4,
	requirements: [
		{ id: "R1", text: "the fix is written", priority: "must" },
		{ id: "R2", text: "it reads well", priority: "should" },
	],
	acceptance: [
		{ id: "A1", requirementId: "R1", check: "fixed.txt is there", command: "test -f fixed.txt", idempotent: true },
		{ id: "A2", requirementId: "R1", check: "it deploys", command: "false" },
		{ id: "S1", requirementId: "R2", check: "a person reads it" },
	],
	source: { kind: "manual" },
};

test("a run's page shows each requirement of its specs: the check's outcome and why, the task held to it, and the evidence cited, in both themes", async () => {
	const { repo, env } = await repoWithSpec(SPEC);
	dashboard.keep(repo);
	const footer = "SPEC-EVIDENCE:\\nA1: fixed.txt is there\\nS1: it reads well\\n";
	heldCommand(repo, "page-spec", `printf 'x' > fixed.txt && printf 'done\\n\\n${footer}'`, { specStrict: "true" });
	const run = await crew(repo.dir, ["run", "g", "--team", "held", "--workflow", "held", "--json"], 90_000, env);
	expect(run.code, run.stderr).toBe(0);
	const runId = lastJson(run.stdout).runId;

	const home = new URL(await dashboard.serve(repo.dir));
	for (const colorScheme of ["light", "dark"] as const) {
		const page = await dashboard.browser.newPage({ viewport: { width: 1400, height: 900 }, colorScheme });
		await page.goto(runPage(home, runId));
		const rows = page.locator("#requirements tr.requirement");
		await rows.first().waitFor();
		expect(await page.locator("#requirements h2").textContent()).toBe("Requirements");
		// Each cell's parts (a check's id and words, an outcome and its reason) apart, as a reader sees them.
		const seen = await rows.evaluateAll((trs) =>
			trs.map((tr) =>
				[...tr.querySelectorAll("td")].map((td) => [...td.childNodes].map((node) => node.textContent).join(" ")),
			),
		);
		expect(seen).toEqual([
			[
				"A1 fixed.txt is there",
				"met",
				"R1 (must) the fix is written",
				"page-spec v4, strict",
				"work",
				"fixed.txt is there",
			],
			[
				"A2 it deploys",
				"not run its command is not marked idempotent: coverage only",
				"R1 (must) the fix is written",
				"page-spec v4, strict",
				"work",
				"—",
			],
			[
				"S1 a person reads it",
				"cited, not checked",
				"R2 (should) it reads well",
				"page-spec v4, strict",
				"work",
				"it reads well",
			],
		]);
		// The outcome is drawn in its theme's colour: met as completed is, never the page's own text colour.
		const met = page.locator('#requirements tr[data-check="A1"] .status');
		const colour = await met.evaluate((node) => node.ownerDocument.defaultView?.getComputedStyle(node).color);
		const text = await page.evaluate("getComputedStyle(document.body).color");
		expect(colour).toBe(colorScheme === "dark" ? "rgb(74, 194, 107)" : "rgb(26, 127, 55)");
		expect(colour).not.toBe(text);
		// The task's name opens it in the panel.
		await page.locator('#requirements tr[data-check="A1"] a.task-ref').click();
		await expect.poll(() => page.locator("#task-panel h2").textContent()).toContain("work");
		await page.close();
	}
});
