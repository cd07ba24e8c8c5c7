// @module-tag agent-cli
// @module-tag browser
// @slow: Chromium draws the pictures of runs made by real agents
// The run page's pictures of a run: its timeline and where its cost went.
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { expect, test } from "vitest";
import { scriptedCliSetup } from "../../../src/scripted-model/cli-setup.js";
import { ScriptedModelServer } from "../../../src/scripted-model/scripted-model-server.js";
import {
	cliHome,
	crew,
	failingPi,
	gitRepo,
	lastJson,
	ROOT,
	read,
	succeedingPi,
	TestRepo,
	waitFor,
} from "../../helpers.js";
import { fileDashboard, runPage } from "./dashboard-browser.js";

const dashboard = fileDashboard();

test("a run's timeline draws each attempt, the failed one and its backoff, an approval wait and a question wait, with tooltips naming the task, attempt, time, tokens and cost", async () => {
	const model = await ScriptedModelServer.start((request) => {
		if (request.messages.some((m) => m.text.includes("ANSWER-"))) return { kind: "text", text: "answered" };
		return { kind: "call", tool: "ask", args: { question: "Which database?" } };
	});
	const pi = scriptedCliSetup("pi", model.url, cliHome("pi"));
	const repo = dashboard.keep(new TestRepo());
	repo.writeFile(".crew/agents/chooser.md", `---\nname: chooser\nruntime: pi\nmodel: ${pi.model}\n---\nYou choose.\n`);
	const flag = join(repo.dir, ".git", "flaky-tried");
	repo.commandAgent("flaky", `test -f ${flag} || { touch ${flag}; echo first try breaks >&2; exit 75; }`);
	repo.commandAgent("fixed", "echo done");
	repo.workflow("mixed", [
		{ id: "ask", role: "chooser", text: "pick a database" },
		{ id: "flaky", role: "flaky" },
		{ id: "gate", role: "fixed", dependsOn: ["flaky"], extra: { approval: "true" } },
	]);
	try {
		const env = { ...process.env, ...pi.env };
		const started = await crew(
			repo.dir,
			["run", "g", "--workflow", "mixed", "--retries", "1", "--detach", "--json"],
			60_000,
			env,
		);
		expect(started.code, started.stderr).toBe(0);
		const runId = lastJson(started.stdout).runId;
		const statusOf = (task: string) => read(repo.dir, (r) => r.status(runId).tasks.find((t) => t.id === task)?.status);
		await waitFor("the question", () => statusOf("ask") === "waiting", 30_000);
		await waitFor("the approval", () => statusOf("gate") === "waiting", 30_000);
		// Live: the page, open while the run waits, shows the waits growing, then the rest as it happens.
		const page = await dashboard.browser.newPage({ viewport: { width: 1400, height: 900 } });
		const url = new URL(await dashboard.serve(repo.dir));
		await page.goto(runPage(url, runId));
		const open = page.locator('#timeline g.row[data-task="gate"] rect.bar-approval.open');
		await open.waitFor();
		expect(await open.locator("title").textContent()).toMatch(/^gate waits for approval\n.* so far$/);
		const answered = await crew(repo.dir, ["answer", runId, "ask", "ANSWER-sqlite"], 60_000, env);
		expect(answered.code, answered.stderr).toBe(0);
		await waitFor("the answered task to end", () => statusOf("ask") === "completed", 30_000);
		const approved = await crew(repo.dir, ["approve", runId], 60_000, env);
		expect(approved.code, approved.stderr).toBe(0);
		await waitFor("the run to end", () => read(repo.dir, (r) => r.status(runId).run.status) === "completed", 30_000);
		const status = JSON.parse((await crew(repo.dir, ["status", runId, "--json"])).stdout);
		const usageOf = (task: string) => status.tasks.find((t: { id: string }) => t.id === task).usage;

		const bars = (task: string) =>
			page
				.locator(`#timeline g.row[data-task="${task}"] rect.bar`)
				.evaluateAll((rects) => rects.map((r) => [r.getAttribute("data-kind"), r.querySelector("title")?.textContent]));
		const time = String.raw`\d+(\.\d)?(ms|s)`;

		// The page reads the timeline again at most every second: wait until it shows the gate's attempt ended.
		await expect
			.poll(
				async () => (await bars("gate")).map(([kind, title]) => `${kind}${title?.includes("so far") ? " open" : ""}`),
				{
					timeout: 20_000,
				},
			)
			.toEqual(["approval", "running"]);
		const flaky = await bars("flaky");
		expect(flaky.map(([kind]) => kind)).toEqual(["failed", "backoff", "running"]);
		expect(flaky[0]?.[1]).toMatch(
			new RegExp(`^flaky attempt 1\\n${time} · 0 tokens · \\$0\\.0000\\nended failed: .*first try breaks`),
		);
		expect(flaky[1]?.[1]).toMatch(
			new RegExp(`^flaky backs off after attempt 1\\n${time}\\nretried because: .*first try breaks.*retry 1 of 1`),
		);
		expect(flaky[2]?.[1]).toMatch(new RegExp(`^flaky attempt 2\\n${time} · 0 tokens · \\$0\\.0000$`));

		const gate = await bars("gate");
		expect(gate.map(([kind]) => kind)).toEqual(["approval", "running"]);
		expect(gate[0]?.[1]).toMatch(new RegExp(`^gate waits for approval\\n${time}$`));
		expect(gate[1]?.[1]).toMatch(new RegExp(`^gate attempt 1\\n${time} · 0 tokens`));

		const ask = await bars("ask");
		expect(ask.map(([kind]) => kind)).toEqual(["running", "question", "running"]);
		expect(ask[0]?.[1]).toMatch(new RegExp(`^ask attempt 1\\n${time}\\nasked a question`));
		expect(ask[1]?.[1]).toMatch(new RegExp(`^ask attempt 1 waits for an answer\\n${time}\\n.*Which database\\?`));
		const used = usageOf("ask");
		const tokens = used.inputTokens + used.outputTokens + used.cacheReadTokens + used.cacheWriteTokens;
		expect(tokens).toBeGreaterThan(0);
		expect(ask[2]?.[1]).toMatch(
			new RegExp(
				`^ask attempt 1\\n${time} · ${tokens.toLocaleString("en-US")} tokens · \\$${used.costUsd.toFixed(4).replace(".", "\\.")}$`,
			),
		);
		// The critical path: gate waited for flaky, and gate ended last.
		expect(
			await page
				.locator("#timeline g.row.critical")
				.evaluateAll((rows) => rows.map((r) => r.getAttribute("data-task"))),
		).toEqual(["flaky", "gate"]);
		await page.locator("#timeline").screenshot({ path: join(ROOT, "test-results", "dashboard-timeline.png") });
		await page.close();
	} finally {
		await model.close();
	}
});

test("a run page's Cost section shows tokens and cost by task, role and model, summing as crew status --json, and the budget spent", async () => {
	const repo = new TestRepo();
	dashboard.keep(repo);
	for (const role of ["drafter", "checker"]) {
		repo.writeFile(
			`.crew/agents/${role}.md`,
			`---\nname: ${role}\nruntime: pi\nmodel: scripted/m-${role}\nsandbox: off\n---\n`,
		);
	}
	repo.workflow("pair", [
		{ id: "draft", role: "drafter" },
		{ id: "check", role: "checker" },
		{ id: "again", role: "drafter" },
	]);
	const env = { ...process.env, CREW_PI: failingPi() };
	const run = await crew(
		repo.dir,
		["run", "g", "--workflow", "pair", "--retries", "0", "--budget-usd", "1", "--json"],
		60_000,
		env,
	);
	const { runId } = JSON.parse(run.stdout.trim().split("\n").at(-1) ?? "{}");
	const status = JSON.parse((await crew(repo.dir, ["status", runId, "--json"])).stdout);
	const tokens = (u: Record<string, number>) =>
		(
			(u.inputTokens ?? 0) +
			(u.outputTokens ?? 0) +
			(u.cacheReadTokens ?? 0) +
			(u.cacheWriteTokens ?? 0)
		).toLocaleString("en-US");
	const line = (u: Record<string, number>) => `${tokens(u)} tokens · $${(u.costUsd ?? 0).toFixed(4)}`;

	const page = await dashboard.browser.newPage();
	const url = new URL(await dashboard.serve(repo.dir));
	await page.goto(runPage(url, runId));
	await page.locator("#cost h2", { hasText: "Cost" }).waitFor();
	expect(await page.locator("#cost-total").textContent()).toBe(`this run: ${line(status.run.usage)}`);
	expect(await page.locator("#cost-budget").textContent()).toBe(
		`budget: $${status.run.usage.costUsd.toFixed(4)} of $1.00 (${Math.round(status.run.usage.costUsd * 100)}%)`,
	);
	const group = async (title: string) =>
		Object.fromEntries(
			await page
				.locator(".cost-group", { has: page.locator("h3", { hasText: title }) })
				.locator("li")
				.evaluateAll((items) =>
					items.map((li) => [li.getAttribute("data-key"), li.querySelector(".cost-figures")?.textContent]),
				),
		);
	const byTask = Object.fromEntries(
		status.tasks.map((t: { id: string; usage: Record<string, number> }) => [t.id, line(t.usage)]),
	);
	expect(await group("By task")).toEqual(byTask);
	const byRole = Object.fromEntries(
		Object.entries(status.run.usageByRole).map(([k, u]) => [k, line(u as Record<string, number>)]),
	);
	expect(await group("By role")).toEqual(byRole);
	const byModel = Object.fromEntries(
		Object.entries(status.run.usageByModel).map(([k, u]) => [k, line(u as Record<string, number>)]),
	);
	expect(await group("By model")).toEqual(byModel);
	expect(Object.keys(byModel).sort()).toEqual(["scripted/m-checker", "scripted/m-drafter"]);
	expect(byRole.drafter).toBe("3,036 tokens · $0.0246");
	await page.locator("#cost").screenshot({ path: join(ROOT, "test-results", "dashboard-cost.png") });
});

test("a fork's Cost section counts only what the fork spent and shows the inherited tasks apart, with the run they were spent in", async () => {
	const repo = new TestRepo();
	dashboard.keep(repo);
	repo.writeFile(".crew/agents/drafter.md", "---\nname: drafter\nruntime: pi\nmodel: scripted/m\nsandbox: off\n---\n");
	repo.workflow("two-steps", [
		{ id: "draft", role: "drafter" },
		{ id: "polish", role: "drafter", dependsOn: ["draft"] },
	]);
	const env = { ...process.env, CREW_PI: succeedingPi() };
	const first = await crew(repo.dir, ["run", "g", "--workflow", "two-steps", "--json"], 60_000, env);
	expect(first.code, first.stderr).toBe(0);
	const runId = lastJson(first.stdout).runId;
	const fork = await crew(repo.dir, ["fork", runId, "--from", "polish", "--json"], 60_000, env);
	expect(fork.code, fork.stderr).toBe(0);
	const forkId = lastJson(fork.stdout).runId;
	const status = JSON.parse((await crew(repo.dir, ["status", forkId, "--json"])).stdout);
	expect(status.run.usage.costUsd).toBe(0.0123);

	const page = await dashboard.browser.newPage();
	const url = new URL(await dashboard.serve(repo.dir));
	await page.goto(runPage(url, forkId));
	await page.locator("#cost h2", { hasText: "Cost" }).waitFor();
	expect(await page.locator("#cost-total").textContent()).toBe("this run: 1,518 tokens · $0.0123");
	const keys = (title: string) =>
		page
			.locator(".cost-group", { has: page.locator("h3", { hasText: title }) })
			.locator("li")
			.evaluateAll((items) =>
				items.map((li) => `${li.getAttribute("data-key")}: ${li.querySelector(".cost-figures")?.textContent}`),
			);
	expect(await keys("By task")).toEqual(["polish: 1,518 tokens · $0.0123"]);
	expect(await keys("Inherited")).toEqual([`draft (run ${runId}): 1,518 tokens · $0.0123`]);
	// Its box in the graph says it was not run here, not the time and tokens of a run it did not have.
	expect(await page.locator('g.node[data-task="draft"] text.figures').allTextContents()).toEqual([
		"inherited, not run here",
		`from ${runId}`,
	]);
	await page.close();
}, 60_000);

test("every page fits a 1400×900 and an 800×1000 window without scrolling sideways, shot into test-results", async () => {
	const repo = dashboard.keep(new TestRepo());
	repo.commandAgent("fixed", "echo the same every time");
	repo.commandAgent("clock", "echo made at $(date +%s%N)");
	repo.workflow("pair", [
		{ id: "first", role: "fixed" },
		{ id: "second", role: "clock", dependsOn: ["first"] },
	]);
	const first = await crew(repo.dir, ["run", "g", "--workflow", "pair", "--json"]);
	expect(first.code, first.stderr).toBe(0);
	const runId = lastJson(first.stdout).runId;
	const fork = await crew(repo.dir, ["fork", runId, "--from", "second", "--json"]);
	expect(fork.code, fork.stderr).toBe(0);
	const forkId = lastJson(fork.stdout).runId;
	const url = new URL(await dashboard.serve(repo.dir));
	const pages = [
		["runs", "/", "#runs"],
		["run", `/runs/${forkId}`, "#timeline g.row"],
		["compare", `/runs/${forkId}/compare/${runId}`, "#compare-tasks"],
		["inbox", "/inbox", "#inbox"],
		["schedules", "/schedules", "#schedules-table"],
	] as const;
	for (const [width, height] of [
		[1400, 900],
		[800, 1000],
	] as const) {
		const page = await dashboard.browser.newPage({ viewport: { width, height } });
		for (const [name, path, drawn] of pages) {
			await page.goto(`${url.origin}${path}${url.search}`);
			await page.locator(drawn).first().waitFor();
			await page.screenshot({ path: join(ROOT, "test-results", `dashboard-${name}-${width}.png`) });
			const wide = Number(await page.evaluate("document.documentElement.scrollWidth"));
			expect(wide, `${name} at ${width}×${height}`).toBeLessThanOrEqual(width);
		}
		await page.close();
	}
});

test("a collision foreseen while the tasks worked shows on the run page beside the integration", async () => {
	const repo = dashboard.keep(gitRepo());
	repo.writeFile("notes.txt", "line one\nline two\n");
	const git = (...args: string[]) => execFileSync("git", args, { cwd: repo.dir, stdio: "pipe" });
	git("add", "notes.txt");
	git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "notes");
	const agent = (name: string, command: string) =>
		repo.writeFile(`.crew/agents/${name}.md`, `---\nname: ${name}\nruntime: command\ncommand: ${command}\n---\n`);
	agent("writer-a", "sed -i 1s/.*/from-a/ notes.txt");
	agent("writer-b", "sed -i 1s/.*/from-b/ notes.txt; echo wrote; sleep 3");
	repo.workflow("pair", [
		{ id: "a", role: "writer-a" },
		{ id: "b", role: "writer-b" },
	]);
	const args = ["run", "g", "--workflow", "pair", "--workspace", "worktree", "--integration", "manual", "--json"];
	const runId = lastJson((await crew(repo.dir, args)).stdout).runId;
	const page = await dashboard.browser.newPage();
	const url = new URL(await dashboard.serve(repo.dir));
	await page.goto(runPage(url, runId));
	await page.locator("#integration", { hasText: "integration conflict" }).waitFor();
	expect(await page.locator("#integration").textContent()).toMatch(
		/^foreseen: a and b both change notes\.txt lines 1–1 · integration conflict: /,
	);
	await page.close();
});
