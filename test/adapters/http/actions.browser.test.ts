// @slow: drives Chromium through starting a run, retrying a failed task and keeping a schedule, each to its end
// @module-tag browser
// The dashboard acts: what a person does from it alone, with no terminal, from the runs page to a run's end.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { expect, test } from "vitest";
import { TestRepo } from "../../helpers.js";
import { fileDashboard } from "./dashboard-browser.js";

const dashboard = fileDashboard();

/** Whether the element `selector` has the keyboard's focus. */
function focused(page: Page, selector: string): Promise<boolean> {
	return page.locator(selector).evaluate((node) => node === node.ownerDocument.activeElement);
}

/** Fills the New run form with `goal` and `workflow` and presses Plan with the mouse. */
async function planRun(page: Page, goal: string, workflow: string): Promise<void> {
	await page.locator(`#new-run-workflow option[value="${workflow}"]`).waitFor({ state: "attached" });
	await page.fill("#new-run-goal", goal);
	await page.selectOption("#new-run-workflow", workflow);
	await page.click("#new-run-plan");
	await page.locator("#plan-head").waitFor();
}

/** The run page's id once the page is at `/runs/<id>`, other than `not`. */
async function runOpened(page: Page, not = ""): Promise<string> {
	await page.waitForURL((url) => /^\/runs\/[^/]+$/.test(url.pathname) && url.pathname !== `/runs/${not}`);
	return decodeURIComponent(new URL(page.url()).pathname.split("/")[2] ?? "");
}

test("a person starts a run, retries a failed task and keeps a schedule from the dashboard alone", async () => {
	const repo = new TestRepo();
	dashboard.keep(repo);
	const fixed = join(repo.dir, "fixed");
	repo.agent("worker");
	repo.workflow("ship", [{ id: "plan" }, { id: "build", dependsOn: ["plan"] }, { id: "docs", dependsOn: ["plan"] }]);
	// Fails until the test has made the fix; no retry of its own, so its run ends failed.
	repo.commandAgent("flaky", `test -f ${fixed} && echo "fixed now" || { echo "not fixed yet" >&2; exit 3; }`);
	repo.workflow("fragile", [{ id: "check", role: "flaky", extra: { retries: "0" } }]);

	const page = await dashboard.browser.newPage({ viewport: { width: 1400, height: 900 }, locale: "en-US" });
	await page.goto(await dashboard.serve(repo.dir));

	// The New run form, planned by keyboard: Tab from the last field reaches Plan, Enter presses it.
	await page.locator('#new-run-workflow option[value="ship"]').waitFor({ state: "attached" });
	await page.fill("#new-run-goal", "ship the feature");
	await page.selectOption("#new-run-workflow", "ship");
	expect(await page.locator("#new-run-start").isDisabled()).toBe(true);
	await page.focus("#new-run-budget");
	await page.keyboard.press("Tab");
	expect(await focused(page, "#new-run-plan")).toBe(true);
	await page.keyboard.press("Enter");
	await page.locator("#plan-levels").waitFor();
	expect(await page.locator("#plan-head").textContent()).toBe("workflow ship: 3 tasks in 2 levels");
	expect(await page.locator('#plan-levels li[data-level="1"] .plan-task').allTextContents()).toEqual([
		"plan (worker → worker, command)",
	]);
	expect(await page.locator('#plan-levels li[data-level="2"] .plan-task').allTextContents()).toEqual([
		"build (worker → worker, command) after plan",
		"docs (worker → worker, command) after plan",
	]);
	expect(await page.locator("#plan-estimate").textContent()).toMatch(/^estimate: about 3 tasks, no tokens counted/);
	expect(await page.locator("#new-run-error").textContent()).toBe("");

	// Start is the next stop of the keyboard; Space presses it and the run's page opens.
	await page.keyboard.press("Tab");
	expect(await focused(page, "#new-run-start")).toBe(true);
	await page.keyboard.press("Space");
	const shipped = await runOpened(page);
	await page.locator(".run-head .status", { hasText: "completed" }).waitFor();
	for (const task of ["plan", "build", "docs"]) {
		expect(await page.locator(`g.node[data-task="${task}"]`).getAttribute("data-status")).toBe("completed");
	}
	expect(await page.locator(".goal").textContent()).toBe("ship the feature");

	// A run whose one task fails: its failure shows, Retry runs it again in the same run, and it completes.
	await page.click("a.brand");
	await planRun(page, "check the fix", "fragile");
	expect(await page.locator(".plan-task").allTextContents()).toEqual(["check (flaky → flaky, command)"]);
	await page.click("#new-run-start");
	await runOpened(page, shipped);
	await page.locator(".run-head .status", { hasText: "failed" }).waitFor();
	const check = page.locator('g.node[data-task="check"]');
	await check.click();
	const panel = page.locator("#task-panel");
	await panel.locator("h2", { hasText: "check failed" }).waitFor();
	await panel.locator("#task-retry").waitFor();
	writeFileSync(fixed, "");
	await panel.locator("#task-retry").click();
	await panel.locator("#task-action-result", { hasText: /^retry of check: run is / }).waitFor();
	// Its button gone, the keyboard goes on from the line that says what became of it.
	await expect.poll(() => focused(page, "#task-action-result")).toBe(true);
	await check.and(page.locator('[data-status="completed"]')).waitFor();
	await page.locator(".run-head .status", { hasText: "completed" }).waitFor();
	await panel.locator("h2", { hasText: "check completed" }).waitFor();
	expect(await panel.locator("#task-meta").textContent()).toContain("attempt 2");
	expect(await panel.locator("#task-result").textContent()).toBe("fixed now\n");
	expect(await panel.locator("#task-retry").isVisible()).toBe(false);

	// The schedules page: one added (every hour, so it never fires here), paused, resumed and removed.
	await page.click("#schedules-link");
	await page.waitForURL("**/schedules");
	await page.locator('#schedule-workflow option[value="ship"]').waitFor({ state: "attached" });
	await page.fill("#schedule-name", "hourly");
	await page.fill("#schedule-goal", "ship again");
	await page.fill("#schedule-every", "1h");
	await page.selectOption("#schedule-workflow", "ship");
	await page.click("#schedule-add");
	const row = page.locator('#schedules-table tr[data-schedule="hourly"]');
	await row.waitFor();
	const cells = await row.locator("td").allTextContents();
	expect(cells.slice(0, 3)).toEqual(["hourly", "every 1h", "ship again"]);
	expect(Date.parse(cells[3] ?? "")).not.toBeNaN();
	expect(cells.slice(4)).toEqual(["active", "none yet", "PauseRemove"]);
	expect(await page.locator("#schedule-message").textContent()).toBe("added hourly: every 1h");
	expect(await page.locator("#schedule-name").inputValue()).toBe("");

	const state = row.locator("td").nth(4);
	await row.locator("button", { hasText: "Pause" }).click();
	await state.filter({ hasText: "paused" }).waitFor();
	await row.locator("button", { hasText: "Resume" }).click();
	await state.filter({ hasText: "active" }).waitFor();

	page.once("dialog", (dialog) => dialog.accept());
	await row.locator("button", { hasText: "Remove" }).click();
	await row.waitFor({ state: "detached" });
	expect(await page.locator("#schedules-table tbody").textContent()).toBe("No schedules yet: add one above.");
	expect(await page.locator("#schedule-message").textContent()).toBe("removed hourly");
	await expect.poll(() => focused(page, "#schedule-message")).toBe(true);
	await page.close();
});
