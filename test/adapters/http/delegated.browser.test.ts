// @module-tag browser
// @slow: drives Chromium over a run whose agent delegated a run of its own
import { expect, test } from "vitest";
import { confinedCommand, nestingRepo } from "../../engine/nesting-repo.js";
import { CLI, crew, read } from "../../helpers.js";
import { fileDashboard, runPage } from "./dashboard-browser.js";

const dashboard = fileDashboard();

test("a run's page lists the run its task delegated under that task, linked both ways, with its status and what it spent", async () => {
	const { repo, env } = nestingRepo();
	dashboard.keep(repo);
	repo.agent("counter", "--answer");
	confinedCommand(repo, "boss", `node ${CLI} agent tally --agent counter`);
	const done = await crew(repo.dir, ["agent", "hand it on", "--agent", "boss"], 120_000, env);
	expect(done.code, done.stderr).toBe(0);
	const [parentId, childId] = read(repo.dir, (r) => {
		const runs = r.repo.runs();
		return [runs.find((run) => run.goal === "hand it on")?.id, runs.find((run) => run.goal === "tally")?.id];
	}) as [string, string];

	const page = await dashboard.browser.newPage({ viewport: { width: 1400, height: 900 } });
	const home = new URL(await dashboard.serve(repo.dir));
	await page.goto(runPage(home, parentId));
	const row = page.locator(`#delegated-runs li.delegated-run[data-task="boss"]`);
	await row.waitFor();
	expect(await page.locator("#delegated h2").textContent()).toBe("Delegated runs");
	expect(await row.getAttribute("data-run")).toBe(childId);
	const text = (await row.textContent()) ?? "";
	expect(text).toContain(`boss ↳ run ${childId}`);
	expect(text).toContain("completed");
	expect(text).toContain("agent:counter");
	expect(text).toContain("no tokens");
	// The task's name opens it in the panel; the child's link opens the child's page, which names its parent.
	await row.locator("a.task-ref").click();
	await expect.poll(() => page.locator("#task-panel h2").textContent()).toContain("boss");
	await row.locator(`a[href="/runs/${childId}"]`).click();
	await page.waitForURL(`**/runs/${childId}`);
	await expect
		.poll(() => page.locator("#delegated-by").textContent())
		.toBe(`delegated by run ${parentId}, task boss, attempt 1`);
	expect(await page.locator("#delegated-runs li").count()).toBe(0);
	await page.locator(`#delegated-by a[href="/runs/${parentId}"]`).click();
	await page.waitForURL(`**/runs/${parentId}`);
	await row.waitFor();
	await page.close();
});
