// @module-tag browser
// @slow: drives Chromium over a run cancelled while its attempt works
import { expect, test } from "vitest";
import { crew, lastJson, read, TestRepo, waitFor } from "../../helpers.js";
import { fileDashboard, runPage } from "./dashboard-browser.js";

const dashboard = fileDashboard();

test("a cancelled attempt is drawn in the cancelled colour and named so in the legend, never red as a failure, in both themes", async () => {
	const repo = dashboard.keep(new TestRepo());
	repo.commandAgent("sleeper", "sleep 60");
	repo.workflow("slow", [{ id: "nap", role: "sleeper" }]);
	const started = await crew(repo.dir, ["run", "g", "--workflow", "slow", "--detach", "--json"]);
	expect(started.code, started.stderr).toBe(0);
	const runId = lastJson(started.stdout).runId;
	const statusOf = () => read(repo.dir, (r) => r.status(runId).tasks[0]?.status);
	await waitFor("the attempt to start", () => statusOf() === "running", 30_000);
	expect((await crew(repo.dir, ["cancel", runId])).code).toBe(0);
	await waitFor("the run to end", () => read(repo.dir, (r) => r.status(runId).run.status) === "cancelled", 30_000);

	const home = new URL(await dashboard.serve(repo.dir));
	for (const [colorScheme, cancelled] of [
		["light", "rgb(110, 84, 148)"],
		["dark", "rgb(179, 146, 240)"],
	] as const) {
		const page = await dashboard.browser.newPage({ viewport: { width: 1400, height: 900 }, colorScheme });
		await page.goto(runPage(home, runId));
		const bar = page.locator('#timeline g.row[data-task="nap"] rect.bar');
		await bar.first().waitFor();
		expect(await bar.evaluateAll((rects) => rects.map((r) => r.getAttribute("data-kind")))).toEqual(["cancelled"]);
		expect(await bar.first().evaluate((r) => r.ownerDocument.defaultView?.getComputedStyle(r).fill)).toBe(cancelled);
		expect(await bar.first().locator("title").textContent()).toMatch(/^nap attempt 1\n.*\nended cancelled/);
		expect(await page.locator(".timeline-legend").textContent()).toContain(
			"an attempt cancelled, or lost with its runner",
		);
		await page.close();
	}
});
