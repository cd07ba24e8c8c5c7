import { readFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { expect, test } from "vitest";
import { ZERO_USAGE } from "../../src/core/usage.js";
import { RuntimeRegistry } from "../../src/runtimes/runtime-registry.js";
import type { RunControl, TaskRequest, WorkerResult, WorkerRuntime } from "../../src/runtimes/worker-runtime.js";
import { TestRepo, waitFor } from "../helpers.js";
import { testCrew } from "./engine-helpers.js";

/**
 * An agent that takes messages: it opens its channel after `startMs` (as a CLI that takes time
 * to start), or never, and answers with what it heard once it has heard `expect` messages.
 */
class Listener implements WorkerRuntime {
	readonly name = "listener";
	readonly steerable = true;
	constructor(readonly options: { startMs: number; opens: boolean; expect: number }) {}

	async run(_request: TaskRequest, control: RunControl): Promise<WorkerResult> {
		const heard: string[] = [];
		await delay(this.options.startMs, undefined, { signal: control.signal });
		if (this.options.opens) {
			control.steering?.open(async (text) => {
				heard.push(text);
				return { delivered: true };
			});
			while (heard.length < this.options.expect) await delay(10, undefined, { signal: control.signal });
		}
		return { ok: true, text: `heard: ${heard.join(" | ")}`, exitCode: 0, usage: ZERO_USAGE, artifacts: [] };
	}
}

function listenerRepo(): TestRepo {
	const repo = new TestRepo();
	repo.writeFile(".crew/agents/listener.md", "---\nname: listener\nruntime: listener\n---\nYou listen.\n");
	repo.workflow("one", [{ id: "a", role: "listener" }]);
	return repo;
}

test("a message sent before its agent can take it waits for it, then reaches it; the attempt records it", async () => {
	const repo = listenerRepo();
	const runtimes = new RuntimeRegistry([new Listener({ startMs: 400, opens: true, expect: 2 })]);
	const crew = testCrew(repo, { runtimes });
	try {
		const runId = crew.create(await crew.plan({ goal: "g", workflow: "one" }));
		const running = crew.execute(runId);
		await waitFor("task a to run", () => crew.snapshot(runId).tasks[0]?.status === "running");
		const [first, second] = await Promise.all([crew.steer(runId, "a", "first"), crew.steer(runId, "a", "second")]);
		expect(await running).toBe("completed");
		expect(first).toMatchObject({ state: "delivered", taskId: "a" });
		expect(second).toMatchObject({ state: "delivered", taskId: "a" });
		const result = readFileSync(join(repo.dir, ".crew", "runs", runId, "tasks", "a", "result.md"), "utf8");
		expect(result).toBe("heard: first | second");
		const delivered = crew.events(runId).filter((e) => e.type === "task.steer.delivered");
		expect(delivered.map((e) => e.data)).toEqual([
			{ message: first.message, attempt: 1 },
			{ message: second.message, attempt: 1 },
		]);
	} finally {
		crew.close();
	}
});

test("a message its agent never became able to take is refused when the attempt ends, saying so", async () => {
	const repo = listenerRepo();
	const runtimes = new RuntimeRegistry([new Listener({ startMs: 300, opens: false, expect: 0 })]);
	const crew = testCrew(repo, { runtimes });
	try {
		const runId = crew.create(await crew.plan({ goal: "g", workflow: "one" }));
		const running = crew.execute(runId);
		await waitFor("task a to run", () => crew.snapshot(runId).tasks[0]?.status === "running");
		const steered = await crew.steer(runId, "a", "hello");
		expect(await running).toBe("completed");
		expect(steered).toMatchObject({ state: "refused", reason: "the attempt has ended" });
	} finally {
		crew.close();
	}
});
