import { readFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { expect, test } from "vitest";
import { inboxItems } from "../../src/adapters/shared/inbox.js";
import { ANSWERED_HEADING } from "../../src/core/asked.js";
import { ZERO_USAGE } from "../../src/core/usage.js";
import { RuntimeRegistry } from "../../src/runtimes/runtime-registry.js";
import type { RunControl, TaskRequest, WorkerResult, WorkerRuntime } from "../../src/runtimes/worker-runtime.js";
import { read, TestRepo, waitFor } from "../helpers.js";
import { testCrew } from "./engine-helpers.js";

/** An agent that asks its questions at once, all together, and answers with what it was told, or says it could not ask. */
class Asker implements WorkerRuntime {
	readonly name = "asker";
	constructor(readonly questions: readonly string[] = ["Which database?"]) {}
	async run(_request: TaskRequest, control: RunControl): Promise<WorkerResult> {
		const { asking } = control;
		const text = asking
			? `told: ${(await Promise.all(this.questions.map((q) => asking(q)))).join(" | ")}`
			: "could not ask";
		return { ok: true, text, exitCode: 0, usage: ZERO_USAGE, artifacts: [] };
	}
}

function askerRepo(extra: Record<string, string> = {}): TestRepo {
	const repo = new TestRepo();
	repo.writeFile(".crew/agents/asker.md", "---\nname: asker\nruntime: asker\n---\nYou ask.\n");
	repo.workflow("one", [{ id: "a", role: "asker", extra }]);
	return repo;
}

function resultOf(repo: TestRepo, runId: string): string {
	return readFileSync(join(repo.dir, ".crew", "runs", runId, "tasks", "a", "result.md"), "utf8");
}

function testAskers(repo: TestRepo, asker = new Asker()) {
	return testCrew(repo, { runtimes: new RuntimeRegistry([asker]) });
}

test("time spent waiting for an answer counts against neither the attempt's timeout nor its stall limit", async () => {
	const repo = askerRepo({ timeout: "1s", stallTimeout: "1s" });
	const crew = testAskers(repo);
	try {
		const runId = crew.create(await crew.plan({ goal: "g", workflow: "one" }));
		const running = crew.execute(runId);
		await waitFor("task a to wait", () => crew.snapshot(runId).tasks[0]?.status === "waiting");
		await delay(1500);
		expect(crew.snapshot(runId).tasks[0]).toMatchObject({ status: "waiting", attempts: 1 });
		// Approval is another matter: a task that asks is not at its gate.
		expect(() => crew.approve(runId)).toThrow(`run ${runId} has nothing waiting for approval`);
		expect(await crew.answer(runId, "a", "Postgres")).toMatchObject({ state: "delivered" });
		expect(await running).toBe("completed");
		expect(crew.snapshot(runId).tasks[0]).toMatchObject({ status: "completed", attempts: 1 });
		expect(resultOf(repo, runId)).toBe("told: Postgres");
	} finally {
		crew.close();
	}
});

test("a question unanswered within its step's askTimeout fails the task with that reason, once, and is withdrawn", async () => {
	const repo = askerRepo({ askTimeout: "1s", retries: "2" });
	const crew = testAskers(repo);
	try {
		const runId = crew.create(await crew.plan({ goal: "g", workflow: "one" }));
		expect(await crew.execute(runId)).toBe("failed");
		const task = crew.snapshot(runId).tasks[0];
		expect(task).toMatchObject({
			status: "failed",
			attempts: 1,
			error: "no answer within 1.0s to its question: Which database?",
		});
		const withdrawn = crew.events(runId).find((e) => e.type === "task.question.withdrawn");
		expect(withdrawn).toMatchObject({
			taskId: "a",
			data: { reason: "its attempt ended before the answer reached it" },
		});
		await expect(crew.answer(runId, "a", "late")).rejects.toThrow(`task a of run ${runId} has no question waiting`);
	} finally {
		crew.close();
	}
});

test("an answer that comes as the wait for it runs out is not lost: the task runs again with it, not counted as a retry", async () => {
	const repo = askerRepo({ askTimeout: "1s", retries: "0" });
	// An agent told the answer in its prompt does not ask again.
	const asker = new Asker();
	const told: WorkerRuntime = {
		name: "asker",
		run: (request, control) =>
			request.prompt.includes(ANSWERED_HEADING)
				? Promise.resolve({ ok: true, text: "told in the prompt", exitCode: 0, usage: ZERO_USAGE, artifacts: [] })
				: asker.run(request, control),
	};
	// The runner looks for answers every 3 s: the answer is recorded, then the wait runs out, before it looks.
	const crew = testCrew(repo, { runtimes: new RuntimeRegistry([told]), pollMs: 3000 });
	try {
		const runId = crew.create(await crew.plan({ goal: "g", workflow: "one" }));
		const running = crew.execute(runId);
		await waitFor("task a to wait", () => crew.snapshot(runId).tasks[0]?.status === "waiting");
		void crew.answer(runId, "a", "Postgres").catch(() => undefined);
		expect(await running).toBe("completed");
		expect(crew.snapshot(runId).tasks[0]).toMatchObject({ status: "completed", attempts: 2 });
		expect(resultOf(repo, runId)).toBe("told in the prompt");
	} finally {
		crew.close();
	}
});

test("a step with ask: false gives its agent no way to ask", async () => {
	const repo = askerRepo({ ask: "false" });
	const crew = testAskers(repo);
	try {
		const runId = crew.create(await crew.plan({ goal: "g", workflow: "one" }));
		expect(await crew.execute(runId)).toBe("completed");
		expect(resultOf(repo, runId)).toBe("could not ask");
	} finally {
		crew.close();
	}
});

test("an agent that asks two questions at once waits until both are answered; its task runs again after the second", async () => {
	const repo = askerRepo();
	const crew = testAskers(repo, new Asker(["Which database?", "Which port?"]));
	try {
		const runId = crew.create(await crew.plan({ goal: "g", workflow: "one" }));
		const running = crew.execute(runId);
		await waitFor("both questions", () => crew.events(runId).filter((e) => e.type === "task.asked").length === 2);
		const [db, port] = crew.events(runId).flatMap((e) => (e.type === "task.asked" ? [Number(e.data.question)] : []));
		// Which question an answer is for must be said.
		await expect(crew.answer(runId, "a", "Postgres")).rejects.toThrow(
			`task a waits for answers to 2 questions (${db}: Which database?; ${port}: Which port?); say which with --question <id>`,
		);
		expect(await crew.answer(runId, "a", "5432", { question: port })).toMatchObject({
			question: "Which port?",
			state: "delivered",
		});
		expect(crew.snapshot(runId).tasks[0]?.status).toBe("waiting");
		expect(await crew.answer(runId, "a", "Postgres")).toMatchObject({
			question: "Which database?",
			state: "delivered",
		});
		expect(await running).toBe("completed");
		expect(resultOf(repo, runId)).toBe("told: Postgres | 5432");
		const moves = crew.events(runId).filter((e) => e.type === "task.waiting" || e.type === "task.running");
		expect(moves.map((e) => e.type)).toEqual(["task.running", "task.waiting", "task.running"]);
	} finally {
		crew.close();
	}
});

test("a cancelled task's question is withdrawn: answering it is refused, and starts nothing", async () => {
	const repo = askerRepo();
	const crew = testAskers(repo);
	try {
		const runId = crew.create(await crew.plan({ goal: "g", workflow: "one" }));
		const running = crew.execute(runId);
		await waitFor("task a to wait", () => crew.snapshot(runId).tasks[0]?.status === "waiting");
		await crew.cancel(runId);
		expect(await running).toBe("cancelled");
		await expect(crew.answer(runId, "a", "too late")).rejects.toThrow(
			`task a of run ${runId} has no question waiting for an answer`,
		);
		const withdrawn = crew.events(runId).find((e) => e.type === "task.question.withdrawn");
		expect(withdrawn).toMatchObject({
			taskId: "a",
			data: { reason: "its attempt ended before the answer reached it" },
		});
		expect(crew.run(runId).status).toBe("cancelled");
	} finally {
		crew.close();
	}
});

test("a question's number counts within its run and task from 1, whatever else the store holds", async () => {
	const repo = new TestRepo();
	repo.writeFile(".crew/agents/asker.md", "---\nname: asker\nruntime: asker\n---\nYou ask.\n");
	repo.workflow("two", [
		{ id: "a", role: "asker" },
		{ id: "b", role: "asker", dependsOn: ["a"] },
	]);
	const crew = testAskers(repo, new Asker(["Which database?", "Which port?"]));
	try {
		// Two runs of two tasks, each asking two questions: every task numbers its own 1 and 2.
		for (const round of [1, 2]) {
			const runId = crew.create(await crew.plan({ goal: "g", workflow: "two" }));
			const running = crew.execute(runId);
			for (const task of ["a", "b"]) {
				const asked = () => crew.events(runId).filter((e) => e.type === "task.asked" && e.taskId === task);
				await waitFor(`task ${task}'s questions in round ${round}`, () => asked().length === 2);
				expect(asked().map((e) => e.data.question)).toEqual([1, 2]);
				const inbox = read(repo.dir, (reader) => inboxItems(reader)).filter((i) => i.runId === runId);
				expect(inbox.map((i) => [i.question, i.command])).toEqual([
					[1, `crew answer ${runId} ${task} --question 1 "<answer>"`],
					[2, `crew answer ${runId} ${task} --question 2 "<answer>"`],
				]);
				await expect(crew.answer(runId, task, "Postgres")).rejects.toThrow(
					`task ${task} waits for answers to 2 questions (1: Which database?; 2: Which port?); say which with --question <id>`,
				);
				expect(await crew.answer(runId, task, "5432", { question: 2 })).toMatchObject({
					questionId: 2,
					question: "Which port?",
				});
				expect(await crew.answer(runId, task, "Postgres")).toMatchObject({
					questionId: 1,
					question: "Which database?",
				});
			}
			expect(await running).toBe("completed");
			for (const type of ["task.answered", "task.answer.delivered"]) {
				const numbers = crew.events(runId).flatMap((e) => (e.type === type ? [`${e.taskId}:${e.data.question}`] : []));
				expect(numbers.sort()).toEqual(["a:1", "a:2", "b:1", "b:2"]);
			}
		}
	} finally {
		crew.close();
	}
});
