// @module-tag browser
// @slow: drives Chromium over a wide run's graph
import { expect, test } from "vitest";
import { crew, lastJson, TestRepo } from "../../helpers.js";
import { fileDashboard, runPage } from "./dashboard-browser.js";

const dashboard = fileDashboard();

test("a wide run's graph draws every node whole in a 1400 px window: none clipped, each reachable by scrolling the graph", async () => {
	const repo = dashboard.keep(new TestRepo());
	repo.commandAgent("done", "echo done");
	const wide = Array.from({ length: 12 }, (_, i) => ({ id: `branch-with-a-long-name-${i}`, role: "done" }));
	repo.workflow("wide", [...wide, { id: "join", role: "done", dependsOn: wide.map((s) => s.id) }]);
	const run = await crew(repo.dir, ["run", "g", "--workflow", "wide", "--json"]);
	expect(run.code, run.stderr).toBe(0);
	const runId = lastJson(run.stdout).runId;

	const home = new URL(await dashboard.serve(repo.dir));
	const page = await dashboard.browser.newPage({ viewport: { width: 1400, height: 900 } });
	await page.goto(runPage(home, runId));
	await page.locator(".graph g.node").first().waitFor();
	expect(await page.locator(".graph g.node").count()).toBe(13);
	// Each node lies inside the drawing, and the drawing inside what the graph's box scrolls over.
	const fit = (await page.evaluate(`(() => {
		const box = document.querySelector(".graph");
		const root = box.querySelector("svg");
		const width = root.width.baseVal.value;
		const height = root.height.baseVal.value;
		const outside = [...root.querySelectorAll("g.node")].flatMap((node) => {
			const b = node.getBBox();
			const m = node.transform.baseVal.consolidate()?.matrix;
			const x = b.x + (m?.e ?? 0);
			const y = b.y + (m?.f ?? 0);
			return x < 0 || y < 0 || x + b.width > width || y + b.height > height ? [node.getAttribute("data-task")] : [];
		});
		return { outside, scrolls: box.scrollWidth >= width, page: document.documentElement.scrollWidth };
	})()`)) as { outside: string[]; scrolls: boolean; page: number };
	expect(fit.outside).toEqual([]);
	expect(fit.scrolls).toBe(true);
	expect(fit.page).toBeLessThanOrEqual(1400);
	await page.close();
});
