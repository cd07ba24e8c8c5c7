// @slow: runs in crew processes tell webhook targets served here, one runner killed -9 and another resuming
import { createHmac } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, test } from "vitest";
import { projectAt } from "../../../src/config/project.js";
import { RunReader } from "../../../src/engine/views/reader.js";
import { cancelLiveRuns, crew, isAlive, TestRepo, waitFor } from "../../helpers.js";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
	for (const close of closers.splice(0)) await close();
});

/** A local HTTP receiver of webhook posts, answering each with `status`. */
async function receiver(
	status = 200,
): Promise<{ url: string; posts: { headers: IncomingHttpHeaders; body: string }[] }> {
	const posts: { headers: IncomingHttpHeaders; body: string }[] = [];
	const server = createServer((req, res) => {
		let body = "";
		req.setEncoding("utf8").on("data", (chunk: string) => {
			body += chunk;
		});
		req.on("end", () => {
			posts.push({ headers: req.headers, body });
			res.statusCode = status;
			res.end(status === 200 ? "ok" : "the receiver fell over");
		});
	});
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	closers.push(() => new Promise((resolve) => server.close(() => resolve())));
	return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, posts };
}

function runStatus(dir: string, runId: string): string {
	const reader = new RunReader(projectAt(dir));
	try {
		return reader.run(runId).status;
	} finally {
		reader.close();
	}
}

test("each run event is told once per target, signed, across a runner killed -9 and another resuming; a project's own notify is ignored with a warning", async () => {
	const hook = await receiver();
	const home = mkdtempSync(join(tmpdir(), "crew-notify-home-"));
	const told = join(home, "told.jsonl");
	mkdirSync(join(home, "crew"), { recursive: true });
	const notify = [
		{ webhook: hook.url, secret: "s3cret", events: ["ended", "waiting"] },
		{ command: `cat >> ${told}; echo >> ${told}`, events: ["ended"] },
	];
	writeFileSync(join(home, "crew", "config.json"), JSON.stringify({ notify }));
	const env = { ...process.env, XDG_CONFIG_HOME: home };

	const repo = new TestRepo();
	closers.push(() => cancelLiveRuns(repo.dir));
	const gates = join(repo.dir, "gates");
	mkdirSync(gates);
	repo.agent("worker", `--gate ${gates}`);
	repo.workflow("gated", [
		{ id: "g", extra: { approval: "true" } },
		{ id: "a", dependsOn: ["g"] },
	]);
	// The repository's own target is never told.
	const own = await receiver();
	repo.writeFile(".crew/config.json", JSON.stringify({ notify: [{ webhook: own.url }] }));

	expect((await crew(repo.dir, ["trust"], 60_000, env)).code).toBe(0);
	const started = await crew(repo.dir, ["run", "g", "--workflow", "gated", "--detach", "--json"], 60_000, env);
	expect(started.stderr).toContain('.crew/config.json: "notify" is ignored: only your user config may set it');
	const { runId } = JSON.parse(started.stdout.trim().split("\n").at(-1) ?? "{}");
	await waitFor("the waiting run's notification", () => hook.posts.length === 1);
	const reader = new RunReader(projectAt(repo.dir));
	const pid = reader.run(runId).lease?.pid ?? 0;
	reader.close();
	process.kill(pid, "SIGKILL");
	await waitFor("the runner to die", () => !isAlive(pid));

	// A new runner takes the run on approval: it tells of nothing told before, and of the end once.
	writeFileSync(join(gates, "g"), "");
	expect((await crew(repo.dir, ["approve", runId], 60_000, env)).code).toBe(0);
	await waitFor("task a to run", () => repo.starts("a").length === 1);
	writeFileSync(join(gates, "a"), "");
	await waitFor("the run to complete", () => runStatus(repo.dir, runId) === "completed");
	await waitFor("the end's notifications", () => hook.posts.length >= 2 && existsSync(told));
	await new Promise((resolve) => setTimeout(resolve, 500));

	expect(hook.posts.map((p) => JSON.parse(p.body).event)).toEqual(["waiting", "ended"]);
	for (const post of hook.posts) {
		const signature = `sha256=${createHmac("sha256", "s3cret").update(post.body).digest("hex")}`;
		expect(post.headers["x-crew-signature"]).toBe(signature);
		expect(post.headers["content-type"]).toBe("application/json");
		expect(JSON.parse(post.body)).toMatchObject({ runId, repository: repo.dir, goal: "g" });
	}
	expect(JSON.parse(hook.posts[1]?.body ?? "{}")).toMatchObject({ type: "run.completed", status: "completed" });
	const lines = readFileSync(told, "utf8").trim().split("\n");
	expect(lines).toHaveLength(1);
	expect(JSON.parse(lines[0] ?? "{}")).toMatchObject({ event: "ended", runId, status: "completed" });
	expect(own.posts).toEqual([]);
});

test("a target that keeps failing is tried three times, then shows in crew inbox and crew doctor; an ntfy topic gets a line of text", async () => {
	const broken = await receiver(500);
	const topic = await receiver();
	const home = mkdtempSync(join(tmpdir(), "crew-notify-home-"));
	mkdirSync(join(home, "crew"), { recursive: true });
	const notify = [
		{ webhook: broken.url, format: "slack", events: ["ended"] },
		{ ntfy: topic.url, events: ["failed"] },
	];
	writeFileSync(join(home, "crew", "config.json"), JSON.stringify({ notify }));
	const env = { ...process.env, XDG_CONFIG_HOME: home };
	const repo = new TestRepo();
	repo.writeFile(".crew/agents/failer.md", "---\nname: failer\nruntime: command\ncommand: exit 3\n---\n");
	repo.workflow("bad", [{ id: "a", role: "failer" }]);
	expect((await crew(repo.dir, ["trust"], 60_000, env)).code).toBe(0);
	const run = await crew(repo.dir, ["run", "g", "--workflow", "bad", "--retries", "0", "--json"], 60_000, env);
	expect(run.code).toBe(1);
	const runId = JSON.parse(run.stdout.trim().split("\n").at(-1) ?? "{}").runId;
	// The runner's process ends once its tries are done.
	expect(broken.posts).toHaveLength(3);
	expect(new Set(broken.posts.map((p) => p.headers["x-crew-delivery"]))).toEqual(
		new Set([expect.stringMatching(`^${runId}:`)]),
	);
	expect(JSON.parse(broken.posts[0]?.body ?? "{}")).toEqual({
		text: `crew run ${runId} failed: g (task a failed: exit code 3)`,
	});
	expect(topic.posts.map((p) => [p.body, p.headers.title])).toEqual([
		[`crew run ${runId} failed: g (task a failed: exit code 3)`, `crew: run ${runId} failed`],
	]);

	const inbox = JSON.parse((await crew(repo.dir, ["inbox", "--json"], 60_000, env)).stdout).items;
	expect(inbox.find((i: { kind: string }) => i.kind === "notify")).toMatchObject({
		runId,
		what: `${broken.url} was not told of the run's ended (3 tries): ${broken.url} answered 500 Internal Server Error`,
		command: "crew doctor",
	});
	const doctor = JSON.parse((await crew(repo.dir, ["doctor", "--json"], 60_000, env)).stdout);
	const check = doctor.checks.find((c: { name: string }) => c.name === "notify");
	expect(check).toMatchObject({ ok: false, fix: `check "notify" in ${join(home, "crew", "config.json")}` });
	expect(check.detail).toContain("1 failed this week");
});

test("the runner that takes over a run tells of what the runner before it had not told", async () => {
	const hook = await receiver();
	const home = mkdtempSync(join(tmpdir(), "crew-notify-home-"));
	mkdirSync(join(home, "crew"), { recursive: true });
	const env = { ...process.env, XDG_CONFIG_HOME: home };
	const repo = new TestRepo();
	closers.push(() => cancelLiveRuns(repo.dir));
	const gates = join(repo.dir, "gates");
	mkdirSync(gates);
	repo.agent("worker", `--gate ${gates}`);
	repo.workflow("gated", [{ id: "g", extra: { approval: "true" } }]);
	expect((await crew(repo.dir, ["trust"], 60_000, env)).code).toBe(0);
	// The first runner has no target: it tells of nothing, and is killed waiting.
	const started = await crew(repo.dir, ["run", "g", "--workflow", "gated", "--detach", "--json"], 60_000, env);
	const { runId } = JSON.parse(started.stdout.trim().split("\n").at(-1) ?? "{}");
	await waitFor("the run to wait", () => runStatus(repo.dir, runId) === "waiting");
	const reader = new RunReader(projectAt(repo.dir));
	const pid = reader.run(runId).lease?.pid ?? 0;
	reader.close();
	process.kill(pid, "SIGKILL");
	await waitFor("the runner to die", () => !isAlive(pid));

	writeFileSync(join(home, "crew", "config.json"), JSON.stringify({ notify: [{ webhook: hook.url }] }));
	writeFileSync(join(gates, "g"), "");
	expect((await crew(repo.dir, ["approve", runId], 60_000, env)).code).toBe(0);
	await waitFor("the run to complete", () => runStatus(repo.dir, runId) === "completed");
	await waitFor("the notifications", () => hook.posts.length >= 2);
	await new Promise((resolve) => setTimeout(resolve, 500));
	expect(hook.posts.map((p) => JSON.parse(p.body).type)).toEqual(["run.waiting", "run.completed"]);
});

test("a run with a huge goal is told of in a bounded line, with the goal's length and where to read it", async () => {
	const topic = await receiver();
	const hook = await receiver();
	const home = mkdtempSync(join(tmpdir(), "crew-notify-home-"));
	mkdirSync(join(home, "crew"), { recursive: true });
	const notify = [
		{ ntfy: topic.url, events: ["failed"] },
		{ webhook: hook.url, events: ["failed"] },
	];
	writeFileSync(join(home, "crew", "config.json"), JSON.stringify({ notify }));
	const env = { ...process.env, XDG_CONFIG_HOME: home };
	const repo = new TestRepo();
	repo.writeFile(".crew/agents/failer.md", "---\nname: failer\nruntime: command\ncommand: exit 3\n---\n");
	repo.workflow("bad", [{ id: "a", role: "failer" }]);
	repo.writeFile("goal.txt", `${"make it so ".repeat(100_000)}\n`);
	expect((await crew(repo.dir, ["trust"], 60_000, env)).code).toBe(0);
	const run = await crew(
		repo.dir,
		["run", "--goal-file", "goal.txt", "--workflow", "bad", "--retries", "0", "--json"],
		60_000,
		env,
	);
	const runId = JSON.parse(run.stdout.trim().split("\n").at(-1) ?? "{}").runId;
	const [line] = topic.posts.map((p) => p.body);
	expect(line?.length).toBeLessThan(1_000);
	expect(line).toMatch(
		new RegExp(
			`^crew run ${runId} failed: make it so .*… \\(1,099,999 characters; crew status ${runId} --json for all\\) \\(task a failed: exit code 3\\)$`,
		),
	);
	const posted = JSON.parse(hook.posts[0]?.body ?? "{}");
	expect(posted.goal).toHaveLength(500);
	expect(posted.goalLength).toBe(1_099_999);
});
