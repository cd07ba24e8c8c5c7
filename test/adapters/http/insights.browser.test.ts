// @module-tag browser
// @slow: runs of real pi agents and a fork fill the store, then Chromium draws the insights page from it
// The insights page: what the repository's runs spent by day, and how each workflow, agent, model and step did.
import { join } from "node:path";
import Database from "better-sqlite3";
import type { Page } from "playwright-core";
import { expect, test } from "vitest";
import { projectAt } from "../../../src/config/project.js";
import { crew, failingPi, lastJson, ROOT, servedApp, succeedingPi, TestRepo } from "../../helpers.js";
import { fileDashboard } from "./dashboard-browser.js";

const dashboard = fileDashboard();

const DAY_MS = 86_400_000;

/** The page's ways of writing figures: what a reader sees, so what the test compares. */
const count = (n: number) => n.toLocaleString("en-US");
const usd = (n: number) => `$${n.toFixed(4)}`;
const none = "—";
function time(ms: number): string {
	if (ms < 1000) return `${Math.round(ms)}ms`;
	const s = ms / 1000;
	if (s < 60) return `${s.toFixed(1)}s`;
	const m = Math.floor(s / 60);
	return m < 60 ? `${m}m${Math.round(s % 60)}s` : `${Math.floor(m / 60)}h${m % 60}m`;
}
function median(values: readonly number[]): number | null {
	const sorted = [...values].sort((a, b) => a - b);
	if (sorted.length === 0) return null;
	const middle = Math.floor(sorted.length / 2);
	return sorted.length % 2 === 1
		? (sorted[middle] as number)
		: ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

interface Group {
	readonly name: string;
	readonly ended: number;
	readonly completed: number;
	readonly tokens: number;
	readonly cost: number;
	readonly times: number[];
	/** Attempts whose failure was their spec checks'. */
	readonly specFailed: number;
}

/** A row of a table as the page writes it: name, ended, success, median time, tokens, cost, and both per completed. */
function rowText(g: Group): string[] {
	const m = median(g.times);
	return [
		g.name,
		count(g.ended),
		g.ended === 0 ? none : `${Math.round((g.completed / g.ended) * 100)}% (${g.completed} of ${g.ended})`,
		m === null ? none : time(m),
		count(g.tokens),
		usd(g.cost),
		g.completed === 0 ? none : count(Math.round(g.tokens / g.completed)),
		g.completed === 0 ? none : usd(g.cost / g.completed),
	];
}

/**
 * What the store holds, read with SQL of the test's own: the runs made in the repository in the
 * last 30 UTC days (not imported, not replays), their tasks that ran in them (not a fork's
 * inherited ones), each with its agent and model from its spec. A task has ended once it ran and
 * is completed, failed, cancelled or needs_attention; a run once completed, failed or cancelled.
 */
function stored(dir: string) {
	const db = new Database(projectAt(dir).dbFile, { readonly: true, fileMustExist: true });
	try {
		const from = new Date(Math.floor(Date.now() / DAY_MS) * DAY_MS - 29 * DAY_MS).toISOString().slice(0, 10);
		const RUNS = `SELECT * FROM runs WHERE imported_at IS NULL AND json_extract(options, '$.replay') IS NULL AND created_at >= '${from}'`;
		const TASKS = `SELECT r.workflow, t.*, json_extract(d.spec, '$.agent.name') AS agent, json_extract(d.spec, '$.agent.model') AS model,
				t.tokens_in + t.tokens_out + t.cache_read + t.cache_write AS tokens,
				t.attempts > 0 AND t.status IN ('completed', 'failed', 'cancelled', 'needs_attention') AS ended,
				t.attempts > 0 AND t.status = 'completed' AS done,
				(SELECT count(*) FROM attempts a WHERE a.run_id = t.run_id AND a.task_id = t.id AND a.error LIKE 'the spec check%') AS specFailed
			FROM (${RUNS}) r JOIN tasks t ON t.run_id = r.id JOIN task_data d ON d.run_id = t.run_id AND d.task_id = t.id
			WHERE t.inherited IS NULL`;
		const ms = (from: string, to: string) => Date.parse(to) - Date.parse(from);
		const taskGroups = (key: string, name: (k: string | null) => string): Group[] => {
			const sums = db
				.prepare(
					`SELECT ${key} AS k, sum(ended) AS ended, sum(done) AS completed, sum(tokens) AS tokens, sum(cost) AS cost, sum(specFailed) AS specFailed FROM (${TASKS}) GROUP BY ${key}`,
				)
				.all() as {
				k: string | null;
				ended: number;
				completed: number;
				tokens: number;
				cost: number;
				specFailed: number;
			}[];
			const finished = db.prepare(`SELECT ${key} AS k, started_at, finished_at FROM (${TASKS}) WHERE done`).all() as {
				k: string | null;
				started_at: string;
				finished_at: string;
			}[];
			return sums.map((s) => ({
				...s,
				name: name(s.k),
				times: finished.filter((f) => f.k === s.k).map((f) => ms(f.started_at, f.finished_at)),
			}));
		};
		const runSums = db
			.prepare(
				`SELECT r.workflow AS name, sum(r.status IN ('completed', 'failed', 'cancelled')) AS ended, sum(r.status = 'completed') AS completed,
					(SELECT coalesce(sum(t.tokens), 0) FROM (${TASKS}) t WHERE t.workflow = r.workflow) AS tokens,
					(SELECT coalesce(sum(t.cost), 0) FROM (${TASKS}) t WHERE t.workflow = r.workflow) AS cost,
					(SELECT coalesce(sum(t.specFailed), 0) FROM (${TASKS}) t WHERE t.workflow = r.workflow) AS specFailed
				FROM (${RUNS}) r GROUP BY r.workflow`,
			)
			.all() as Omit<Group, "times">[];
		const completedRuns = db
			.prepare(`SELECT workflow, created_at, finished_at FROM (${RUNS}) WHERE status = 'completed'`)
			.all() as {
			workflow: string;
			created_at: string;
			finished_at: string;
		}[];
		const workflows = runSums.map((s) => ({
			...s,
			times: completedRuns.filter((r) => r.workflow === s.name).map((r) => ms(r.created_at, r.finished_at)),
		}));
		const daily = db
			.prepare(
				`SELECT day, sum(runs) AS runs, sum(tokens) AS tokens, sum(cost) AS cost FROM (
					SELECT substr(created_at, 1, 10) AS day, 1 AS runs, 0 AS tokens, 0 AS cost FROM (${RUNS})
					UNION ALL
					SELECT substr(a.started_at, 1, 10), 0,
						json_extract(a.usage, '$.input') + json_extract(a.usage, '$.output') + json_extract(a.usage, '$.cacheRead') + json_extract(a.usage, '$.cacheWrite'),
						json_extract(a.usage, '$.cost')
					FROM attempts a JOIN (${RUNS}) r ON r.id = a.run_id JOIN tasks t ON t.run_id = a.run_id AND t.id = a.task_id
					WHERE a.usage IS NOT NULL AND t.inherited IS NULL)
				GROUP BY day ORDER BY day`,
			)
			.all() as { day: string; runs: number; tokens: number; cost: number }[];
		return {
			daily,
			workflows,
			agents: taskGroups("agent", (k) => k ?? ""),
			models: taskGroups("model", (k) => k ?? "(agent's default)"),
			steps: taskGroups("workflow || ' / ' || step_id", (k) => k ?? ""),
		};
	} finally {
		db.close();
	}
}

/** Most spent first, then tokens, then the name; the agent's default model after the named ones. */
const byCost = (groups: readonly Group[]) =>
	[...groups].sort(
		(a, b) =>
			b.cost - a.cost ||
			b.tokens - a.tokens ||
			Number(a.name.startsWith("(")) - Number(b.name.startsWith("(")) ||
			a.name.localeCompare(b.name),
	);

/** The texts of a table's body, a row at a time, a cell at a time. */
const cells = (page: Page, table: string) =>
	page
		.locator(`${table} tbody tr`)
		.evaluateAll((rows) => rows.map((r) => [...r.children].map((c) => c.textContent?.trim() ?? "")));

test("the insights page shows tokens, cost and runs by day and each workflow's, agent's, model's and step's outcomes, as the store holds them", async () => {
	const repo = dashboard.keep(new TestRepo());
	const agent = (name: string, model?: string) =>
		repo.writeFile(
			`.crew/agents/${name}.md`,
			`---\nname: ${name}\nruntime: pi\n${model ? `model: ${model}\n` : ""}sandbox: off\n---\n`,
		);
	agent("drafter", "scripted/m-a");
	agent("checker", "scripted/m-b");
	agent("editor");
	repo.workflow("pair", [
		{ id: "draft", role: "drafter" },
		{ id: "check", role: "checker", dependsOn: ["draft"] },
	]);
	repo.workflow("solo", [{ id: "write", role: "editor" }]);
	// Before the first run there is no store: every day of the window at zero, and no rows.
	const before = servedApp(repo.dir);
	try {
		const empty = (await (await before.request("/api/insights?days=3")).json()) as {
			daily: Record<string, number>[];
		};
		expect(empty.daily.map((d) => [d.runs, d.tokens, d.costUsd])).toEqual([
			[0, 0, 0],
			[0, 0, 0],
			[0, 0, 0],
		]);
		expect(empty).toMatchObject({ window: { days: 3 }, workflows: [], agents: [], models: [], slowestSteps: [] });
	} finally {
		before.close();
	}
	const succeeding = { ...process.env, CREW_PI: succeedingPi() };
	const failing = { ...process.env, CREW_PI: failingPi() };
	const run = async (workflow: string, env: NodeJS.ProcessEnv) => {
		const done = await crew(repo.dir, ["run", "g", "--workflow", workflow, "--json"], 60_000, env);
		return lastJson(done.stdout);
	};
	const first = await run("pair", succeeding);
	expect(first.status).toBe("completed");
	expect((await run("pair", failing)).status).toBe("failed");
	expect((await run("solo", succeeding)).status).toBe("completed");
	expect((await run("solo", failing)).status).toBe("failed");
	expect((await run("pair", succeeding)).status).toBe("completed");
	// A fork takes the first run's draft as it was: that draft is counted once, in the first run.
	const fork = await crew(repo.dir, ["fork", first.runId, "--from", "check", "--json"], 60_000, succeeding);
	expect(fork.code, fork.stderr).toBe(0);
	expect(lastJson(fork.stdout).status).toBe("completed");

	const truth = stored(repo.dir);
	expect(truth.workflows.map((w) => [w.name, w.ended, w.completed]).sort()).toEqual([
		["pair", 4, 3],
		["solo", 2, 1],
	]);
	// Each attempt reported 1,518 tokens: draft ×3 (one failed), check ×2 and the fork's, write ×2 (one failed).
	expect(truth.daily.reduce((n, d) => n + d.tokens, 0)).toBe(1518 * 8);

	const page = await dashboard.browser.newPage({ viewport: { width: 1400, height: 900 } });
	const url = new URL(await dashboard.serve(repo.dir));
	await page.goto(`${url.origin}/${url.search}`);
	await page.locator("header a", { hasText: "insights" }).click();
	await page.waitForURL(`${url.origin}/insights`);
	await page.locator("#insight-workflows tbody tr").first().waitFor();
	const today = Math.floor(Date.now() / DAY_MS) * DAY_MS;
	const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
	expect(await page.locator("#insight-window").textContent()).toMatch(
		new RegExp(`^${day(today - 29 * DAY_MS)} to ${day(today)}, UTC days`),
	);

	expect(await cells(page, "#insight-daily")).toEqual(
		truth.daily.map((d) => [d.day, count(d.runs), count(d.tokens), usd(d.cost)]),
	);
	const runs = truth.daily.reduce((n, d) => n + d.runs, 0);
	const tokens = truth.daily.reduce((n, d) => n + d.tokens, 0);
	const cost = truth.daily.reduce((n, d) => n + d.cost, 0);
	expect(await page.locator("#insight-total").textContent()).toBe(
		`${count(runs)} runs started · ${count(tokens)} tokens · ${usd(cost)}`,
	);
	// Each day's bars say its figures in their title as well as by their heights.
	const bars = await page
		.locator("#insight-chart g.insight-day")
		.evaluateAll((days) => days.map((g) => [g.getAttribute("data-day"), g.querySelector("title")?.textContent]));
	expect(bars).toHaveLength(30);
	for (const d of truth.daily) {
		expect(bars).toContainEqual([
			d.day,
			`${d.day}: ${count(d.runs)} run${d.runs === 1 ? "" : "s"} started, ${count(d.tokens)} tokens, ${usd(d.cost)}`,
		]);
	}

	// Workflows and agents end with their attempts that failed spec checks.
	const withSpecs = (g: Group) => [...rowText(g), count(g.specFailed)];
	expect(await cells(page, "#insight-workflows")).toEqual(byCost(truth.workflows).map(withSpecs));
	expect(await cells(page, "#insight-agents")).toEqual(byCost(truth.agents).map(withSpecs));
	expect(await cells(page, "#insight-models")).toEqual(byCost(truth.models).map(rowText));
	expect((await cells(page, "#insight-models")).map((r) => r[0]).sort()).toEqual([
		"(agent's default)",
		"scripted/m-a",
		"scripted/m-b",
	]);

	const ranked = truth.steps.filter((s) => s.completed > 0);
	const stepRow = (s: Group, n: number) => {
		const [workflow, step] = s.name.split(" / ");
		return [String(n + 1), workflow, step, ...rowText(s).slice(1)];
	};
	const slowest = [...ranked]
		.sort((a, b) => (median(b.times) ?? 0) - (median(a.times) ?? 0) || a.name.localeCompare(b.name))
		.slice(0, 10);
	expect(await cells(page, "#insight-slowest")).toEqual(slowest.map(stepRow));
	const costliest = [...ranked]
		.sort((a, b) => b.cost / b.completed - a.cost / a.completed || a.name.localeCompare(b.name))
		.slice(0, 10);
	expect(await cells(page, "#insight-costliest")).toEqual(costliest.map(stepRow));

	// Every table is labelled by its heading, with headers for its columns and its rows.
	for (const table of await page.locator("main table").all()) {
		const heading = await table.getAttribute("aria-labelledby");
		expect(await page.locator(`#${heading}`).textContent()).not.toBe("");
		expect(await table.locator("thead th[scope=col]").count()).toBeGreaterThan(2);
		expect(await table.locator("tbody tr").count()).toBe(await table.locator("tbody th[scope=row]").count());
	}

	await page.screenshot({ path: join(ROOT, "test-results", "dashboard-insights-1400.png"), fullPage: true });
	await page.setViewportSize({ width: 800, height: 1000 });
	// At 800 pixels the page does not scroll sideways; wide tables scroll within themselves.
	expect(Number(await page.evaluate("document.documentElement.scrollWidth"))).toBeLessThanOrEqual(800);
	await page.screenshot({ path: join(ROOT, "test-results", "dashboard-insights-800.png"), fullPage: true });

	// Another window, from the address or the choice on the page; a bad one is refused in words.
	await page.goto(`${url.origin}/insights?days=7`);
	await page.locator("#insight-workflows tbody tr").first().waitFor();
	expect(await page.locator("#insight-days").inputValue()).toBe("7");
	expect(await page.locator("#insight-chart g.insight-day").count()).toBe(7);
	await page.locator("#insight-days").selectOption("90");
	await expect.poll(() => page.locator("#insight-chart g.insight-day").count()).toBe(90);
	expect(new URL(page.url()).searchParams.get("days")).toBe("90");
	for (const bad of ["0", "366", "abc"]) {
		const answer = await page.request.get(`${url.origin}/api/insights?days=${bad}`);
		expect(answer.status()).toBe(400);
		expect((await answer.json()).error).toBe(
			`invalid query parameter days ${JSON.stringify(bad)}: expected an integer from 1 to 365`,
		);
	}
	await page.close();
}, 180_000);
