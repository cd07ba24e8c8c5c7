// @module-tag agent-cli
// @module-tag browser
// @slow: drives Chromium through the dashboard while pi runs start, ask and end
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { projectAt } from "../../../src/config/project.js";
import { scriptedCliSetup } from "../../../src/scripted-model/cli-setup.js";
import { ScriptedModelServer } from "../../../src/scripted-model/scripted-model-server.js";
import { openWriter } from "../../../src/store/database.js";
import { RunStore } from "../../../src/store/run-store.js";
import { cliHome, conflictingWorktrees, crew, isAlive, ROOT, read, TestRepo, waitFor } from "../../helpers.js";
import { fileDashboard, runPage } from "./dashboard-browser.js";

/** Where the test leaves its screenshot of the run page. */
const SCREENSHOT = join(ROOT, "test-results", "dashboard-run-page.png");

const dashboard = fileDashboard();

test("the run page draws the DAG live, shows a task's transcript, and cancels the run", async () => {
	const repo = new TestRepo();
	dashboard.keep(repo);
	const gates = join(repo.dir, "gates");
	mkdirSync(gates);
	repo.agent("worker", `--gate ${gates}`);
	repo.workflow("ship", [
		{ id: "plan" },
		{ id: "build", dependsOn: ["plan"] },
		{ id: "docs", dependsOn: ["plan"] },
		{ id: "check", dependsOn: ["build", "docs"] },
	]);
	const open = (step: string) => writeFileSync(join(gates, step), "");
	const started = await crew(repo.dir, ["run", "ship the feature", "--workflow", "ship", "--detach", "--json"]);
	expect(started.code).toBe(0);
	const runId = JSON.parse(started.stdout.trim().split("\n").at(-1) ?? "{}").runId as string;

	const page = await dashboard.browser.newPage({ viewport: { width: 1400, height: 900 } });
	await page.goto(await dashboard.serve(repo.dir));
	await page.click(`a[href="/runs/${runId}"]`);
	await page.waitForURL(`**/runs/${runId}`);

	const node = (task: string) => page.locator(`g.node[data-task="${task}"]`);
	const statusOf = (task: string) => node(task).getAttribute("data-status");
	await node("plan").and(page.locator('[data-status="running"]')).waitFor();
	// Each node says its step, role and status in words and a mark, not only in colour, with its time, attempts and usage.
	expect(await node("plan").locator("text").allTextContents()).toEqual([
		"plan",
		"worker",
		"▶ running",
		expect.stringMatching(/^\d+(\.\d)?(ms|s) so far · 1 attempt$/),
		"no tokens",
	]);
	expect(await statusOf("check")).toBe("queued");
	expect(await node("check").locator("text").allTextContents()).toEqual([
		"check",
		"worker",
		"○ queued",
		"0 attempts",
		"no tokens",
	]);
	await expect.poll(() => page.locator(".edge").count()).toBe(4);

	open("plan");
	await node("build").and(page.locator('[data-status="running"]')).waitFor();
	expect(await statusOf("plan")).toBe("completed");
	expect(await node("plan").locator("text.state").textContent()).toBe("✓ completed");
	expect(await node("plan").locator("text.figures").first().textContent()).toMatch(/^\d+(\.\d)?(ms|s) · 1 attempt$/);
	expect(await statusOf("docs")).toBe("running");

	await node("plan").click();
	const panel = page.locator("#task-panel");
	await panel.locator("#task-log").waitFor();
	expect(await panel.locator("h2").textContent()).toContain("plan");
	const transcript = await panel.locator("#task-log .log-line .text").allTextContents();
	expect(transcript).toEqual(
		expect.arrayContaining([
			"attempt 1 (command, unconfined)",
			expect.stringContaining("waiting for gate plan"),
			"completed",
		]),
	);
	expect(await panel.locator("#task-result").textContent()).toBe(
		"waiting for gate plan\ngate plan opened\ndone plan\n",
	);
	expect(await panel.locator("#task-prompt").textContent()).toContain("Do plan for ship the feature");
	// How its latest attempt was confined: this test's agents run with the sandbox off.
	expect(await panel.locator("#task-meta").textContent()).toMatch(/ · unconfined$/);

	// A live task's transcript grows while it is open.
	await node("build").click();
	await panel.locator("#task-log .log-line", { hasText: "waiting for gate build" }).waitFor();
	open("build");
	await panel.locator("#task-log .log-line", { hasText: "gate build opened" }).waitFor();
	await node("build").and(page.locator('[data-status="completed"]')).waitFor();
	expect(await page.locator("#totals").textContent()).toMatch(/2 completed, 1 running, 1 queued/);

	mkdirSync(join(ROOT, "test-results"), { recursive: true });
	await page.screenshot({ path: SCREENSHOT, fullPage: true });

	const docsPid = await waitFor("docs started", () => repo.starts("docs")[0]?.pid);
	await page.click("#cancel");
	await page.locator(".run-head .status", { hasText: "cancelled" }).waitFor();
	await node("docs").and(page.locator('[data-status="cancelled"]')).waitFor();
	expect(await statusOf("check")).toBe("cancelled");
	expect(await page.locator("#action-message").textContent()).toBe("cancel: run is cancelled");
	await waitFor("the docs worker gone", () => !isAlive(docsPid));
	const status = JSON.parse((await crew(repo.dir, ["status", runId, "--json"])).stdout);
	expect(status.run.status).toBe("cancelled");
	expect(status.tasks.map((t: { status: string }) => t.status)).toEqual([
		"completed",
		"completed",
		"cancelled",
		"cancelled",
	]);
	await page.close();
});

test("the run page says when a worktree run's integration left a conflict, and what is missing", async () => {
	const repo = conflictingWorktrees();
	dashboard.keep(repo);
	const run = await crew(repo.dir, [
		"run",
		"notes",
		"--workflow",
		"pair",
		"--workspace",
		"worktree",
		"--integration",
		"manual",
		"--json",
	]);
	expect(run.code).toBe(3);
	const runId = JSON.parse(run.stdout.trim().split("\n").at(-1) ?? "{}").runId as string;
	const page = await dashboard.browser.newPage();
	const url = new URL(await dashboard.serve(repo.dir));
	await page.goto(runPage(url, runId));
	const integration = page.locator("#integration");
	await integration.filter({ hasText: "conflict" }).waitFor();
	// Foreseen while b worked: a and b, not c, whose worktree holds a's change but which changed only c.txt itself.
	expect(await integration.textContent()).toBe(
		`foreseen: a and b both change notes.txt lines 1–1 · integration conflict: crew/${runId} holds a, c · missing: b · b conflicts in notes.txt`,
	);
	expect(await integration.getAttribute("class")).toBe("error");
	expect(await page.locator("#run-error").textContent()).toContain("integration incomplete");
});

test("the header counts what waits in the inbox, the inbox page says how to answer it, approving empties it, and a running task's panel steers its agent", async () => {
	const repo = new TestRepo();
	dashboard.keep(repo);
	const gates = join(repo.dir, "gates");
	mkdirSync(gates);
	repo.agent("worker", `--gate ${gates}`);
	repo.workflow("gated", [
		{ id: "gate", extra: { approval: "true" } },
		{ id: "work", dependsOn: ["gate"] },
	]);
	writeFileSync(join(gates, "gate"), "");
	const started = await crew(repo.dir, ["run", "g", "--workflow", "gated", "--detach", "--json"]);
	const runId = JSON.parse(started.stdout.trim().split("\n").at(-1) ?? "{}").runId as string;

	const page = await dashboard.browser.newPage({ viewport: { width: 1400, height: 900 } });
	await page.goto(await dashboard.serve(repo.dir));
	await expect.poll(() => page.locator("#inbox-count").textContent(), { timeout: 20_000 }).toBe("1");
	await page.click("#inbox-link");
	await page.waitForURL("**/inbox");
	const row = page.locator(`#inbox tr[data-kind="approval"][data-run="${runId}"]`);
	await row.waitFor();
	expect(await row.locator("code").textContent()).toBe(`crew approve ${runId}`);
	expect(await row.textContent()).toContain("gate waits for approval");

	await row.locator("a").click();
	await page.waitForURL(`**/runs/${runId}`);
	await page.click("#approve");
	await expect.poll(() => page.locator("#inbox-count").textContent(), { timeout: 20_000 }).toBe("0");
	const work = page.locator('g.node[data-task="work"]');
	await work.and(page.locator('[data-status="running"]')).waitFor();
	await work.click();
	await page.locator("#steer-text").fill("look at the tests too");
	await page.click("#steer-send");
	await expect
		.poll(() => page.locator("#steer-result").textContent())
		.toBe("message 1: refused: a command agent cannot be steered: it takes no messages");
	await page.locator("#task-log .log-line", { hasText: "message 1: look at the tests too" }).waitFor();

	writeFileSync(join(gates, "work"), "");
	await page.locator(".run-head .status", { hasText: "completed" }).waitFor();
	await page.close();
});

test("the inbox count rises when an agent asks a question, and answering it from the inbox page lets the run finish", async () => {
	const model = await ScriptedModelServer.start((request) => {
		if (request.messages.some((m) => m.text.includes("ANSWER-TEXT"))) return { kind: "text", text: "answered" };
		return { kind: "call", tool: "ask", args: { question: "Which database, Postgres or SQLite?" } };
	});
	const pi = scriptedCliSetup("pi", model.url, cliHome("pi"));
	const repo = new TestRepo();
	dashboard.keep(repo);
	repo.writeFile(".crew/agents/chooser.md", `---\nname: chooser\nruntime: pi\nmodel: ${pi.model}\n---\nYou choose.\n`);
	repo.workflow("one", [{ id: "a", role: "chooser", text: "pick a database" }]);
	const page = await dashboard.browser.newPage({ viewport: { width: 1400, height: 900 } });
	try {
		await page.goto(await dashboard.serve(repo.dir));
		await page.click("#inbox-link");
		await page.waitForURL("**/inbox");
		await expect.poll(() => page.locator("#inbox-count").textContent(), { timeout: 20_000 }).toBe("0");

		const env = { ...process.env, ...pi.env };
		const started = await crew(repo.dir, ["run", "g", "--workflow", "one", "--detach", "--json"], 60_000, env);
		const runId = JSON.parse(started.stdout.trim().split("\n").at(-1) ?? "{}").runId as string;
		await expect.poll(() => page.locator("#inbox-count").textContent(), { timeout: 30_000 }).toBe("1");
		const row = page.locator(`#inbox tr[data-kind="question"][data-run="${runId}"]`);
		await row.waitFor();
		expect(await row.textContent()).toContain("a asks: Which database, Postgres or SQLite?");
		await row.locator(".answer-text").fill("ANSWER-TEXT: Postgres");
		const [response] = await Promise.all([
			page.waitForResponse((r) => r.url().endsWith(`/api/runs/${runId}/tasks/a/answer`)),
			row.locator(".answer-send").click(),
		]);
		expect(await response.json()).toMatchObject({ runId, taskId: "a", state: "delivered" });
		await expect.poll(() => page.locator("#inbox-count").textContent(), { timeout: 20_000 }).toBe("0");
		await waitFor("the run to complete", () => read(repo.dir, (r) => r.status(runId).run.status) === "completed");
		expect(model.requests.at(-1)?.messages.at(-1)?.text).toContain("ANSWER-TEXT: Postgres");
	} finally {
		await page.close();
		await model.close();
	}
});

test("two tasks that ask at once each get their own answer box in the inbox, and each answer reaches its own task", async () => {
	const model = await ScriptedModelServer.start((request) => {
		const said = request.messages.map((m) => m.text).join("\n");
		if (said.includes("ANSWER-")) return { kind: "text", text: "answered" };
		const question = said.includes("pick a port") ? "Which port?" : "Which database?";
		return { kind: "call", tool: "ask", args: { question } };
	});
	const pi = scriptedCliSetup("pi", model.url, cliHome("pi"));
	const repo = new TestRepo();
	dashboard.keep(repo);
	repo.writeFile(".crew/agents/chooser.md", `---\nname: chooser\nruntime: pi\nmodel: ${pi.model}\n---\nYou choose.\n`);
	repo.workflow("two", [
		{ id: "db", role: "chooser", text: "pick a database" },
		{ id: "port", role: "chooser", text: "pick a port" },
	]);
	const page = await dashboard.browser.newPage({ viewport: { width: 1400, height: 900 } });
	try {
		await page.goto(await dashboard.serve(repo.dir));
		await page.click("#inbox-link");
		await page.waitForURL("**/inbox");
		const env = { ...process.env, ...pi.env };
		const started = await crew(repo.dir, ["run", "g", "--workflow", "two", "--detach", "--json"], 60_000, env);
		const runId = JSON.parse(started.stdout.trim().split("\n").at(-1) ?? "{}").runId as string;
		await expect.poll(() => page.locator("#inbox-count").textContent(), { timeout: 30_000 }).toBe("2");
		for (const [task, asks] of [
			["db", "db asks: Which database?"],
			["port", "port asks: Which port?"],
		]) {
			const row = page.locator(`#inbox tr[data-kind="question"][data-run="${runId}"]`, { hasText: asks });
			await row.waitFor();
			await row.locator(".answer-text").fill(`ANSWER-${task}`);
			const [response] = await Promise.all([
				page.waitForResponse((r) => r.url().endsWith(`/api/runs/${runId}/tasks/${task}/answer`)),
				row.locator(".answer-send").click(),
			]);
			expect(await response.json()).toMatchObject({ runId, taskId: task, questionId: 1 });
		}
		await waitFor("the run to complete", () => read(repo.dir, (r) => r.status(runId).run.status) === "completed");
		const told = model.requests.map((r) => r.messages.map((m) => m.text).join("\n"));
		expect(told.some((t) => t.includes("pick a database") && t.includes("ANSWER-db"))).toBe(true);
		expect(told.some((t) => t.includes("pick a port") && t.includes("ANSWER-port"))).toBe(true);
	} finally {
		await page.close();
		await model.close();
	}
});

test("a run page compares the run with the one it was forked from: each task's difference and the diffs of the results", async () => {
	const repo = new TestRepo();
	dashboard.keep(repo);
	const agent = (name: string, command: string) => repo.commandAgent(name, command);
	agent("fixed", "echo the same every time");
	agent("clock", "echo made at $(date +%s%N)");
	repo.workflow("pair", [
		{ id: "first", role: "fixed" },
		{ id: "second", role: "clock", dependsOn: ["first"] },
	]);
	const first = await crew(repo.dir, ["run", "g", "--workflow", "pair", "--json"]);
	expect(first.code, first.stderr).toBe(0);
	const runId = JSON.parse(first.stdout.trim().split("\n").at(-1) ?? "{}").runId as string;
	const fork = await crew(repo.dir, ["fork", runId, "--from", "second", "--json"]);
	expect(fork.code, fork.stderr).toBe(0);
	const forkId = JSON.parse(fork.stdout.trim().split("\n").at(-1) ?? "{}").runId as string;

	const page = await dashboard.browser.newPage({ viewport: { width: 1400, height: 900 } });
	const url = new URL(await dashboard.serve(repo.dir));
	await page.goto(runPage(url, forkId));
	const choice = page.locator("#compare-with");
	await choice.locator(`option[value="${runId}"]`).waitFor({ state: "attached" });
	expect(await choice.locator("option").nth(1).textContent()).toBe(`${runId} pair (forked from)`);
	await choice.selectOption(runId);
	await page.waitForURL(`**/runs/${forkId}/compare/${runId}`);

	const row = (task: string) => page.locator(`#compare-tasks tr[data-task="${task}"]`);
	await row("second").waitFor();
	expect(await row("first").locator("td.what").textContent()).toBe("same");
	expect(await row("first").locator("td").nth(2).textContent()).toContain(`inherited from ${runId}`);
	expect(await row("second").locator("td.what").textContent()).toBe("result");
	const diff = page.locator('section.task-diff[data-task="second"][data-kind="result"] pre.diff');
	expect(await diff.locator(".removed").allTextContents()).toEqual([expect.stringMatching(/^-made at \d+\n$/)]);
	expect(await diff.locator(".added").allTextContents()).toEqual([expect.stringMatching(/^\+made at \d+\n$/)]);
	expect(await page.locator("#compare-totals tr").nth(1).locator("a").textContent()).toBe(forkId);
}, 60_000);

test("a task's panel says which nested repository its attempt left and where crew moved it", async () => {
	const repo = new TestRepo();
	dashboard.keep(repo);
	repo.commandAgent("scaffolder", "mkdir app && cd app && git init -q && echo made > index.js && echo ok");
	repo.workflow("scaffold", [{ id: "make", role: "scaffolder" }]);
	const run = await crew(repo.dir, ["run", "scaffold it", "--workflow", "scaffold", "--json"]);
	expect(run.code).toBe(0);
	const runId = JSON.parse(run.stdout.trim().split("\n").at(-1) ?? "{}").runId as string;
	const page = await dashboard.browser.newPage();
	const url = new URL(await dashboard.serve(repo.dir));
	await page.goto(runPage(url, runId));
	await page.locator('g.node[data-task="make"]').click();
	const note = page.locator("#task-panel .set-aside");
	await note.waitFor();
	expect(await note.textContent()).toBe(
		`attempt 1: nested repository app/.git moved to ${repo.dir}/.crew/runs/${runId}/tasks/make/attempt-1.git-set-aside/app/.git: its config could run programs at your next git command there`,
	);
});

test("a huge goal shows bounded on the run page, saying its length, and whole when asked", async () => {
	const repo = new TestRepo().agent("worker");
	dashboard.keep(repo);
	repo.workflow("one", [{ id: "a" }]);
	const goal = `${"make it so ".repeat(40_000)}done`;
	repo.writeFile("goal.txt", goal);
	const run = await crew(repo.dir, ["run", "--goal-file", "goal.txt", "--workflow", "one", "--json"]);
	const runId = JSON.parse(run.stdout.trim().split("\n").at(-1) ?? "{}").runId as string;
	const page = await dashboard.browser.newPage();
	const url = new URL(await dashboard.serve(repo.dir));
	await page.goto(runPage(url, runId));
	const shown = page.locator(".goal");
	await shown.filter({ hasText: "make it so" }).waitFor();
	// biome-ignore lint/performance/useDomNodeTextContent: what the page shows; the text holds the folded whole too
	const text = (await shown.innerText()).trim();
	expect(text.length).toBeLessThan(700);
	expect(text).toContain(`show all ${goal.length.toLocaleString("en-US")} characters`);
	await page.locator(".goal summary").click();
	// biome-ignore lint/performance/useDomNodeTextContent: what the page shows once unfolded
	expect((await page.locator(".goal").innerText()).length).toBeGreaterThan(goal.length);
});

test("the runs page lists the schedules above the runs: when each runs, its next slot and its last run", async () => {
	const repo = new TestRepo().agent("worker");
	dashboard.keep(repo);
	repo.workflow("one", [{ id: "a" }]);
	expect(
		(await crew(repo.dir, ["schedule", "add", "daily", "--every", "1d", "--workflow", "one", "check it"])).code,
	).toBe(0);
	const { runId } = JSON.parse((await crew(repo.dir, ["schedule", "run", "daily", "--json"])).stdout);
	await waitFor("the run to end", () => read(repo.dir, (r) => r.run(runId).status) === "completed");
	const page = await dashboard.browser.newPage();
	await page.goto(await dashboard.serve(repo.dir));
	const row = page.locator('#schedule-list tr[data-schedule="daily"]');
	await row.waitFor();
	const cells = await row.locator("td").allTextContents();
	expect(cells[0]).toBe("daily");
	expect(cells[1]).toBe("every 1d");
	expect(Date.parse(cells[2] ?? "")).not.toBeNaN();
	expect(cells[3]).toBe(`${runId} completed`);
	expect(cells[4]).toBe("check it");
	expect(await page.locator("#schedules h2").textContent()).toBe("Schedules");
});

test("the runs page pages, filters and searches a store of 10,000 runs, the server doing the work", async () => {
	const repo = new TestRepo();
	dashboard.keep(repo);
	const db = openWriter(projectAt(repo.dir).dbFile);
	const store = new RunStore(db);
	store.batch(() => {
		for (let i = 0; i < 10_000; i++) {
			store.createRun({
				id: `run-${String(i).padStart(5, "0")}`,
				goal: i % 100 === 7 ? `find the needle ${i}` : `goal ${i}`,
				team: i % 3 === 0 ? "red" : null,
				workflow: i % 2 === 1 ? "alpha" : "beta",
				options: { concurrency: 1, failure: "drain", roleLimits: {}, retries: 0, cwd: repo.dir },
				tasks: [
					{
						id: "a",
						stepId: "a",
						role: "worker",
						agent: { name: "worker", runtime: "pi", systemPrompt: "" },
						text: "a",
						dependsOn: [],
					},
				],
			});
		}
	});
	// Every tenth run failed, the rest completed, each having spent 120 tokens and a cent.
	db.exec(`UPDATE runs SET status = CASE WHEN rowid % 10 = 0 THEN 'failed' ELSE 'completed' END, finished_at = created_at;
UPDATE tasks SET status = (SELECT status FROM runs WHERE runs.id = tasks.run_id);
INSERT OR REPLACE INTO usage_totals (run_id, by, key, input, output, cost) SELECT id, 'role', 'worker', 100, 20, 0.01 FROM runs;`);
	db.close();

	const page = await dashboard.browser.newPage();
	await page.goto(await dashboard.serve(repo.dir));
	const shown = page.locator("#runs-shown");
	const says = async (text: string) => shown.filter({ hasText: new RegExp(`^${text}$`) }).waitFor();
	await says("runs 1–50 of 10,000");
	const first = await page.locator("#runs tbody tr").first().locator("td").allTextContents();
	expect(first.slice(0, 8)).toEqual([
		"run-09999",
		"failed",
		"alpha",
		"red",
		"goal 9999",
		"0 done, 1 failed / 1",
		"120",
		"$0.0100",
	]);
	await page.locator("#next").click();
	await says("runs 51–100 of 10,000");
	expect(await page.locator("#runs tbody tr").first().getAttribute("data-run")).toBe("run-09949");

	await page.locator("#search").fill("NEEDLE");
	await says("runs 1–50 of 100");
	const goals = await page.locator("#runs tbody tr td:nth-child(5)").allTextContents();
	expect(goals.every((g) => g.startsWith("find the needle"))).toBe(true);
	await page.locator("#status-filter").selectOption("failed");
	await page.locator("#runs td.muted", { hasText: "No run matches these filters." }).waitFor();

	await page.locator("#search").fill("");
	await says("runs 1–50 of 1,000");
	await page.locator("#team-filter").selectOption("red");
	await says("runs 1–50 of 334");
	await page.locator("#workflow-filter").selectOption("beta");
	await page.locator("#runs td.muted", { hasText: "No run matches these filters." }).waitFor();
	await page.locator("#workflow-filter").selectOption("alpha");
	await says("runs 1–50 of 334");
	const statuses = await page.locator("#runs tbody tr td:nth-child(2)").allTextContents();
	expect(new Set(statuses)).toEqual(new Set(["failed"]));
	await page.screenshot({ path: join(ROOT, "test-results", "dashboard-runs-page.png"), fullPage: false });
});
