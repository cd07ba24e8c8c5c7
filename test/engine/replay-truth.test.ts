// @slow: nine runs are made for real, then replayed from their records
import { readFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { expect, test } from "vitest";
import { crew, crewProcess, exitOf, gitRepo, lastJson, read, waitFor } from "../helpers.js";

async function taskStatuses(dir: string, runId: string): Promise<string[]> {
	const status = JSON.parse((await crew(dir, ["status", runId, "--json"])).stdout);
	return status.tasks.map((t: { id: string; status: string }) => `${t.id}:${t.status}`);
}

test("a replay answers only what completed: a task that failed fails again, unrun, and the replay ends as the run did; live, it runs for real", async () => {
	const repo = gitRepo();
	// Its attempts say something, as most failing agents do, and so leave a result file.
	const ran = join(repo.dir, "ran-a");
	repo
		.agent("ok")
		.commandAgent("bad", `node -e "fs.appendFileSync('${ran}', 'a'); console.log('partial'); process.exit(3)"`);
	repo.workflow("two", [
		{ id: "a", role: "bad" },
		{ id: "b", role: "ok" },
	]);
	const source = await crew(repo.dir, ["run", "goal", "--workflow", "two", "--json"]);
	const { runId, status } = lastJson(source.stdout);
	const runs = readFileSync(ran, "utf8").length;
	expect(status).toBe("failed");
	expect(source.code).not.toBe(0);

	const replay = await crew(repo.dir, ["replay", runId, "--json"]);
	const replayed = lastJson(replay.stdout);
	expect({ status: replayed.status, code: replay.code }).toEqual({ status, code: source.code });
	expect(await taskStatuses(repo.dir, replayed.runId)).toEqual(await taskStatuses(repo.dir, runId));
	const events = (await crew(repo.dir, ["status", replayed.runId])).stdout;
	expect(events).toContain(`run ${runId} recorded a as failed`);
	expect(readFileSync(ran, "utf8")).toHaveLength(runs);

	const live = await crew(repo.dir, ["replay", runId, "--live-on-divergence", "--json"]);
	expect({ status: lastJson(live.stdout).status, code: live.code }).toEqual({ status, code: source.code });
	expect(readFileSync(ran, "utf8").length).toBeGreaterThan(runs);
});

test("a replay makes the attempts the run made, in its order: a task retried once is answered twice, and one waiting out its retry when a failure stopped the run is left as it was", async () => {
	const repo = gitRepo();
	// a fails after w's first failure, and before w's retry (a backoff of 500 ms or more) comes.
	const late = `node -e "setTimeout(() => process.exit(3), 250)"`;
	repo.agent("flaky", "--fail-first 1").commandAgent("bad", late);
	repo.workflow("retried", [
		{ id: "r", role: "flaky", extra: { retries: "1" } },
		{ id: "a", role: "bad", dependsOn: ["r"] },
		{ id: "w", role: "flaky", dependsOn: ["r"], extra: { retries: "1" } },
	]);
	const told = async (runId: string) => {
		const status = JSON.parse((await crew(repo.dir, ["status", runId, "--json"])).stdout);
		return status.tasks.map(
			(t: { id: string; status: string; attempts: number }) => `${t.id}:${t.status}:${t.attempts}`,
		);
	};
	const source = await crew(repo.dir, ["run", "goal", "--workflow", "retried", "--concurrency", "2", "--json"]);
	const { runId } = lastJson(source.stdout);
	expect(await told(runId)).toEqual(["r:completed:2", "a:failed:1", "w:skipped:1"]);

	const replay = await crew(repo.dir, ["replay", runId, "--json"]);
	const replayed = lastJson(replay.stdout);
	expect({ status: replayed.status, code: replay.code }).toEqual({ status: "failed", code: source.code });
	expect(await told(replayed.runId)).toEqual(await told(runId));
});

test("a replay of a cancelled run is cancelled where the run was, and ends as it did, with its exit code", async () => {
	const repo = gitRepo();
	repo.agent("ok").agent("slow", "--sleep 20000");
	repo.workflow("long", [
		{ id: "first", role: "ok" },
		{ id: "long", role: "slow", dependsOn: ["first"] },
		{ id: "after", role: "ok", dependsOn: ["long"] },
	]);
	const runner = crewProcess(repo.dir, ["run", "goal", "--workflow", "long"]);
	const runId = await waitFor(
		"the slow task",
		() => repo.starts("long")[0] && read(repo.dir, (r) => r.repo.runs()[0]?.id),
	);
	expect((await crew(repo.dir, ["cancel", runId])).code).toBe(0);
	await exitOf(runner);
	const told = async (id: string) =>
		JSON.parse((await crew(repo.dir, ["status", id, "--json"])).stdout).tasks.map(
			(t: { id: string; status: string; attempts: number }) => `${t.id}:${t.status}:${t.attempts}`,
		);
	expect(await told(runId)).toEqual(["first:completed:1", "long:cancelled:1", "after:cancelled:0"]);

	const replay = await crew(repo.dir, ["replay", runId, "--json"]);
	expect({ status: lastJson(replay.stdout).status, code: replay.code }).toEqual({
		status: "cancelled",
		code: runner.exitCode,
	});
	expect(await told(lastJson(replay.stdout).runId)).toEqual(await told(runId));
});

/**
 * Marks run `runId` cancelled as a cancel that lands before the run's own end leaves it, then
 * replays it: checks the replay ended cancelled, and gives its tasks' statuses.
 */
async function replayCancelled(dir: string, runId: string): Promise<string[]> {
	const db = new Database(join(dir, ".crew", "crew.db"));
	db.prepare("UPDATE runs SET status = 'cancelled', error = 'cancelled by the user' WHERE id = ?").run(runId);
	db.close();
	const replay = await crew(dir, ["replay", runId, "--json"]);
	expect({ status: lastJson(replay.stdout).status, code: replay.code }).toEqual({ status: "cancelled", code: 1 });
	return await taskStatuses(dir, lastJson(replay.stdout).runId);
}

test("a replay of a run cancelled after its last task ended, before the run itself had, is cancelled too", async () => {
	const repo = gitRepo();
	repo.agent("ok");
	repo.workflow("one", [{ id: "only", role: "ok" }]);
	const { runId } = lastJson((await crew(repo.dir, ["run", "goal", "--workflow", "one", "--json"])).stdout);
	// What a cancel that lands between the last task's end and the run's own leaves: the runner's
	// ticker saw it first. Timing decides whether it happens, so it is written here as it is left.
	expect(await replayCancelled(repo.dir, runId)).toEqual(["only:completed"]);
});

test("a replay of a run cancelled after a task failed and the run was draining, before the run itself had ended, is cancelled too", async () => {
	const repo = gitRepo();
	repo.agent("ok").commandAgent("bad", `node -e "process.exit(3)"`);
	repo.workflow("two", [
		{ id: "good", role: "ok" },
		{ id: "last", role: "bad", dependsOn: ["good"] },
	]);
	const { runId } = lastJson((await crew(repo.dir, ["run", "goal", "--workflow", "two", "--json"])).stdout);
	// As above: the cancel landed once the failed task had stopped the run, before the run had ended.
	expect(await replayCancelled(repo.dir, runId)).toEqual(["good:completed", "last:failed"]);
});

test("a replay of an --until run keeps its goal check: passes and checks are answered from the record, and it ends as the run did", async () => {
	const repo = gitRepo();
	repo.agent("worker");
	repo.workflow("one", [{ id: "work", role: "worker" }]);
	const args = ["run", "goal", "--workflow", "one", "--until", "test -f goal-met", "--max-iterations", "2", "--json"];
	const source = await crew(repo.dir, args);
	const { runId, status } = lastJson(source.stdout);
	expect(status).toBe("failed");

	const replay = await crew(repo.dir, ["replay", runId, "--json"]);
	const replayed = lastJson(replay.stdout);
	expect({ status: replayed.status, code: replay.code }).toEqual({ status, code: source.code });
	expect(await taskStatuses(repo.dir, replayed.runId)).toEqual(await taskStatuses(repo.dir, runId));
});

test("a replay of a fork, and of a fork of that fork, answers the tasks each took from its run as recorded", async () => {
	const repo = gitRepo();
	repo.agent("worker");
	repo.workflow("trio", [
		{ id: "a", role: "worker" },
		{ id: "b", role: "worker", dependsOn: ["a"] },
		{ id: "c", role: "worker", dependsOn: ["b"] },
	]);
	const source = lastJson((await crew(repo.dir, ["run", "goal", "--workflow", "trio", "--json"])).stdout);
	const fork = lastJson((await crew(repo.dir, ["fork", source.runId, "--from", "c", "--json"])).stdout);
	const again = lastJson((await crew(repo.dir, ["fork", fork.runId, "--from", "c", "--json"])).stdout);
	for (const run of [fork, again]) {
		expect(run.status).toBe("completed");
		const replay = await crew(repo.dir, ["replay", run.runId, "--json"]);
		expect({ code: replay.code, status: lastJson(replay.stdout).status }, replay.stdout).toEqual({
			code: 0,
			status: "completed",
		});
	}
});

test("crew diff of a fork on another model names the model, in text and JSON, the prompt a changed step gave, and another thinking level", async () => {
	const repo = gitRepo();
	repo.agent("worker");
	repo.workflow("duo", [
		{ id: "a", role: "worker" },
		{ id: "b", role: "worker", dependsOn: ["a"] },
	]);
	const source = lastJson((await crew(repo.dir, ["run", "goal", "--workflow", "duo", "--json"])).stdout);
	const fork = lastJson(
		(await crew(repo.dir, ["fork", source.runId, "--from", "b", "--model", "scripted/scripted-2", "--json"])).stdout,
	);
	const text = (await crew(repo.dir, ["diff", source.runId, fork.runId])).stdout;
	expect(text).toMatch(/^ {2}b +model\b/m);
	expect(text).toContain("(scripted/scripted-2)");
	expect(text).toMatch(/^ {2}a +same \(b: inherited from /m);
	const json = JSON.parse((await crew(repo.dir, ["diff", source.runId, fork.runId, "--json"])).stdout);
	const b = json.tasks.find((t: { taskId: string }) => t.taskId === "b");
	expect(b.changed).toContain("model");
	expect(b.b.model).toBe("scripted/scripted-2");
	expect(b.prompt).toBeNull();

	repo.writeFile("b-step.md", "Do b twice as well for {goal}\n");
	const args = ["fork", source.runId, "--from", "b", "--prompt", "b=b-step.md", "--json"];
	const reworded = lastJson((await crew(repo.dir, args)).stdout);
	const shown = (await crew(repo.dir, ["diff", source.runId, reworded.runId])).stdout;
	expect(shown).toMatch(/^ {2}b +prompt\b/m);
	expect(shown).toContain("+Do b twice as well for goal");

	const thought = lastJson(
		(await crew(repo.dir, ["run", "goal", "--workflow", "duo", "--thinking", "high", "--json"])).stdout,
	);
	const deeper = (await crew(repo.dir, ["diff", source.runId, thought.runId])).stdout;
	expect(deeper).toMatch(/^ {2}a +thinking\b/m);
	expect(deeper).toContain("thinking high");
	const thinking = JSON.parse((await crew(repo.dir, ["diff", source.runId, thought.runId, "--json"])).stdout);
	expect(thinking.tasks.map((t: { b: { thinking: string } }) => t.b.thinking)).toEqual(["high", "high"]);
});

test("a run of one agent (crew agent) replays and forks as any run", async () => {
	const repo = gitRepo();
	repo.agent("helper");
	const run = lastJson((await crew(repo.dir, ["agent", "--agent", "helper", "say hi", "--json"])).stdout);
	expect(run.status).toBe("completed");
	const replay = await crew(repo.dir, ["replay", run.runId, "--json"]);
	expect({ code: replay.code, status: lastJson(replay.stdout).status }, replay.stderr).toEqual({
		code: 0,
		status: "completed",
	});
	const fork = await crew(repo.dir, ["fork", run.runId, "--json"]);
	expect({ code: fork.code, status: lastJson(fork.stdout).status }, fork.stderr).toEqual({
		code: 0,
		status: "completed",
	});
});
