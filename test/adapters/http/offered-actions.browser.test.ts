// @module-tag browser
// The dashboard offers only what the server would do: no Retry while a runner holds the run, no
// fork or replay of a workflow script's run.
import { expect, test } from "vitest";
import { crew, lastJson, TestRepo } from "../../helpers.js";
import { scriptRepo } from "../growing-runs.js";
import { fileDashboard, runPage } from "./dashboard-browser.js";

const dashboard = fileDashboard();

test("a failed task of a run that waits for an approval, its runner alive, offers no Retry until the run has ended", async () => {
	const repo = dashboard.keep(new TestRepo());
	repo.commandAgent("flaky", 'echo "broken" >&2; exit 3');
	repo.commandAgent("worker", "echo done");
	repo.workflow("gated", [
		{ id: "check", role: "flaky", extra: { retries: "0" } },
		{ id: "gate", role: "worker", extra: { approval: "true" } },
	]);
	const started = await crew(repo.dir, [
		"run",
		"g",
		"--workflow",
		"gated",
		"--failure",
		"continue",
		"--detach",
		"--json",
	]);
	expect(started.code, started.stderr).toBe(0);
	const runId = lastJson(started.stdout).runId;

	const page = await dashboard.browser.newPage({ viewport: { width: 1400, height: 900 } });
	await page.goto(runPage(await dashboard.serve(repo.dir), runId));
	await page.locator(".run-head .status", { hasText: "waiting" }).waitFor({ timeout: 20_000 });
	const check = page.locator('g.node[data-task="check"]');
	await check.and(page.locator('[data-status="failed"]')).waitFor();
	await check.click();
	const panel = page.locator("#task-panel");
	await panel.locator("h2", { hasText: "check failed" }).waitFor();
	expect(await panel.locator("#task-retry").isVisible()).toBe(false);
	expect(await panel.locator("#task-fork").isVisible()).toBe(false);

	// Approved, the run ends failed and lets go of its lease: now the task can be retried.
	await page.click("#approve");
	await page.locator(".run-head .status", { hasText: "failed" }).waitFor({ timeout: 20_000 });
	await panel.locator("#task-retry").waitFor();
	expect(await panel.locator("#task-fork").isVisible()).toBe(true);
	await page.close();
});

test("a workflow script's run, ended, offers neither a fork nor a replay, of it or from its tasks", async () => {
	const { repo, args } = scriptRepo();
	dashboard.keep(repo);
	const ran = await crew(repo.dir, ["run", "check the packages", ...args, "--json"]);
	expect(ran.code, ran.stderr).toBe(0);
	const runId = lastJson(ran.stdout).runId;

	const page = await dashboard.browser.newPage({ viewport: { width: 1400, height: 900 } });
	await page.goto(runPage(await dashboard.serve(repo.dir), runId));
	await page.locator(".run-head .status", { hasText: "completed" }).waitFor();
	expect(await page.locator("#fork").isDisabled()).toBe(true);
	expect(await page.locator("#replay").isDisabled()).toBe(true);
	await page.locator('g.node[data-task="tester-2"]').click();
	await page.locator("#task-panel h2", { hasText: "completed" }).waitFor();
	expect(await page.locator("#task-fork").isVisible()).toBe(false);
	await page.close();
});
