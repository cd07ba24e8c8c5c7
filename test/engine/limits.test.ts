import { join } from "node:path";
import { expect, test } from "vitest";
import { projectAt } from "../../src/config/project.js";
import { Crew } from "../../src/engine/crew.js";
import type { EngineOptions } from "../../src/engine/options.js";
import type { PlanInput } from "../../src/engine/planning/plan-input.js";
import { RuntimeRegistry } from "../../src/runtimes/runtime-registry.js";
import { ROOT, read, TestRepo } from "../helpers.js";

const SILENT_CLI = join(ROOT, "test", "fixtures", "silent-cli.mjs");

/** A crew whose pi is the silent fixture, with quick retries and the given engine options. */
function limitedCrew(repo: TestRepo, engine: Partial<EngineOptions>): Crew {
	return new Crew({
		project: projectAt(repo.dir),
		runtimes: RuntimeRegistry.standard({ graceMs: 300, pi: { command: [process.execPath, SILENT_CLI] } }),
		pollMs: 20,
		retryPolicy: { baseMs: 50, factor: 2, maxMs: 200, jitter: 0 },
		...engine,
	});
}

/**
 * Runs a workflow to its end, or cancels it after `withinMs` (a run that would hang for ever must
 * not hang the test): its status and error, each task's status and error, and its attempts.
 */
async function runBounded(repo: TestRepo, crew: Crew, input: Omit<PlanInput, "goal">, withinMs = 30_000) {
	const runId = crew.create(await crew.plan({ goal: "g", ...input }));
	const stop = new AbortController();
	const timer = setTimeout(() => stop.abort(new Error(`still running after ${withinMs} ms`)), withinMs);
	try {
		const status = await crew.execute(runId, { signal: stop.signal });
		const snapshot = crew.snapshot(runId);
		return {
			status,
			error: snapshot.run.error,
			tasks: new Map(snapshot.tasks.map((t) => [t.id, { status: t.status, error: t.error }])),
			attempts: read(repo.dir, (reader) => reader.attempts(runId)),
		};
	} finally {
		clearTimeout(timer);
	}
}

test("an agent CLI that never prints, with no limit given anywhere, ends by the default stall limit: a stall, retried, then the run fails", async () => {
	const repo = new TestRepo();
	repo.writeFile(".crew/agents/quiet.md", "---\nname: quiet\nruntime: pi\n---\nYou answer.\n");
	repo.workflow("ask", [{ id: "ask", role: "quiet" }]);
	const crew = limitedCrew(repo, { defaultStallTimeoutMs: 400 });
	try {
		const r = await runBounded(repo, crew, { workflow: "ask", retries: 1 });
		expect(r.status).toBe("failed");
		expect(r.error).toBe("task ask failed: no output for 400ms");
		expect(r.attempts.map((a) => [a.taskId, a.status, a.error])).toEqual([
			["ask", "stalled", "no output for 400ms; retry 1 of 1 in 50ms"],
			["ask", "stalled", "no output for 400ms"],
		]);
	} finally {
		crew.close();
	}
});

test("limits: a step's beats its agent's, an agent's beats the run's, the run's beats the default; 0 turns one off; the stall default is for agent CLIs only", async () => {
	const repo = new TestRepo();
	const hang = `node ${join(ROOT, "test", "fixtures", "fake-agent.mjs")} --hang`;
	const agent = (name: string, fields: string) =>
		repo.writeFile(`.crew/agents/${name}.md`, `---\nname: ${name}\n${fields}---\nYou work.\n`);
	agent("hanger", `runtime: command\ncommand: ${hang}\n`);
	agent("slowpoke", `runtime: command\ncommand: ${hang}\ntimeout: 250ms\n`);
	agent("napper", `runtime: command\ncommand: node ${join(ROOT, "test", "fixtures", "fake-agent.mjs")} --sleep 2500\n`);
	agent("mute", "runtime: pi\nstallTimeout: 0\n");
	repo.workflow("limits", [
		{ id: "by-default", role: "hanger" },
		{ id: "by-agent", role: "slowpoke" },
		{ id: "by-step", role: "slowpoke", extra: { timeout: "350ms" } },
		// Silent longer than the stall default and longer than the default timeout, both off or not its own.
		{ id: "off", role: "napper", extra: { timeout: "0" } },
		// An agent CLI whose agent turns the stall limit off: the default wall-clock limit still ends it.
		{ id: "no-stall", role: "mute" },
	]);
	const crew = limitedCrew(repo, { defaultTimeoutMs: 1500, defaultStallTimeoutMs: 300 });
	try {
		const r = await runBounded(repo, crew, { workflow: "limits", retries: 0, failure: "continue", concurrency: 5 });
		const error = (id: string) => r.tasks.get(id)?.error;
		expect(error("by-default")).toBe("timed out after 1.5s");
		expect(error("by-agent")).toBe("timed out after 250ms");
		expect(error("by-step")).toBe("timed out after 350ms");
		expect(r.tasks.get("off")?.status).toBe("completed");
		expect(error("no-stall")).toBe("timed out after 1.5s");

		// The run's own limit is beaten by an agent's and beats the default.
		const flagged = await runBounded(repo, crew, {
			workflow: "limits",
			retries: 0,
			failure: "continue",
			concurrency: 5,
			timeoutMs: 600,
		});
		expect(flagged.tasks.get("by-default")?.error).toBe("timed out after 600ms");
		expect(flagged.tasks.get("by-agent")?.error).toBe("timed out after 250ms");
		expect(flagged.tasks.get("by-step")?.error).toBe("timed out after 350ms");
		expect(flagged.tasks.get("no-stall")?.error).toBe("timed out after 600ms");
	} finally {
		crew.close();
	}
});

test("an agent file's limit that is not a duration is refused, naming the file and the value", async () => {
	const repo = new TestRepo();
	repo.writeFile(".crew/agents/odd.md", "---\nname: odd\nruntime: pi\nstallTimeout: forever\n---\nYou work.\n");
	repo.workflow("one", [{ id: "one", role: "odd" }]);
	const crew = limitedCrew(repo, {});
	try {
		await expect(crew.plan({ goal: "g", workflow: "one" })).rejects.toThrow(
			/odd\.md: .*stallTimeout "forever": expected 0 \(no limit\) or a duration/,
		);
	} finally {
		crew.close();
	}
});
