// @module-tag browser
// @slow: drives Chromium over a run that waits for approval, in both themes
import { expect, test } from "vitest";
import { crew, lastJson, read, TestRepo, waitFor } from "../../helpers.js";
import { fileDashboard } from "./dashboard-browser.js";

const dashboard = fileDashboard();

/** WCAG's contrast ratio of two `rgb(r, g, b)` colours. */
function contrast(a: string, b: string): number {
	const luminance = (colour: string) => {
		const [r, g, b] = (colour.match(/\d+/g) ?? []).slice(0, 3).map((c) => {
			const v = Number(c) / 255;
			return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
		}) as [number, number, number];
		return 0.2126 * r + 0.7152 * g + 0.0722 * b;
	};
	const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
	return (hi + 0.05) / (lo + 0.05);
}

test("the inbox badge that counts what waits on a person reads well in both themes", async () => {
	const repo = dashboard.keep(new TestRepo());
	repo.commandAgent("done", "echo done");
	repo.workflow("gated", [{ id: "gate", role: "done", extra: { approval: "true" } }]);
	const started = await crew(repo.dir, ["run", "g", "--workflow", "gated", "--detach", "--json"]);
	expect(started.code, started.stderr).toBe(0);
	const runId = lastJson(started.stdout).runId;
	await waitFor("the approval", () => read(repo.dir, (r) => r.status(runId).tasks[0]?.status) === "waiting", 30_000);

	const home = new URL(await dashboard.serve(repo.dir));
	for (const colorScheme of ["light", "dark"] as const) {
		const page = await dashboard.browser.newPage({ viewport: { width: 1400, height: 900 }, colorScheme });
		await page.goto(`${home.origin}/${home.search}`);
		const badge = page.locator("#inbox-count.waiting");
		await badge.waitFor();
		expect(await badge.textContent()).toBe("1");
		const [fg, bg] = await badge.evaluate((node) => {
			const style = node.ownerDocument.defaultView?.getComputedStyle(node);
			return [style?.color ?? "", style?.backgroundColor ?? ""];
		});
		expect(contrast(fg, bg), `${colorScheme}: ${fg} on ${bg}`).toBeGreaterThanOrEqual(4.5);
		await page.close();
	}
});
