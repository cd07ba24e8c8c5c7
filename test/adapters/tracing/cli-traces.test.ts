// @module-tag agent-cli
// @slow: runs export their traces to a collector, through kill -9 and resume and a retry
import { mkdtempSync, readFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, test } from "vitest";
import type { AttemptRecord } from "../../../src/core/records.js";
import { traceIdOf } from "../../../src/engine/run/trace-ids.js";
import { scriptedCliSetup } from "../../../src/scripted-model/cli-setup.js";
import { ScriptedModelServer } from "../../../src/scripted-model/scripted-model-server.js";
import { actThenReport } from "../../../src/scripted-model/turns.js";
import { completedRun, crew, crewProcess, exitOf, read, TestRepo, waitFor } from "../../helpers.js";
import { OtlpReceiver, type ReceivedSpan } from "./otlp-receiver.js";

const closing: { close(): Promise<void> }[] = [];
afterEach(async () => {
	for (const c of closing.splice(0)) await c.close();
});

async function receiver(): Promise<OtlpReceiver> {
	const r = await OtlpReceiver.start();
	closing.push(r);
	return r;
}

/** The process's variables without any trace settings of the test's own, plus `extra`. */
function envWith(extra: Record<string, string>): NodeJS.ProcessEnv {
	const env = Object.fromEntries(
		Object.entries(process.env).filter(([name]) => !name.startsWith("OTEL_") && name !== "TRACEPARENT"),
	);
	return { ...env, ...extra };
}

function resultOf(repo: TestRepo, runId: string, task: string): string {
	return readFileSync(join(repo.dir, ".crew", "runs", runId, "tasks", task, "result.md"), "utf8");
}

const PROBE = `printf %s "$TRACEPARENT"`;

function one<T>(items: readonly T[], what: string): T {
	expect(items, what).toHaveLength(1);
	return items[0] as T;
}

/** The spans of `spans` named `name`. */
function named(spans: readonly ReceivedSpan[], name: string): ReceivedSpan[] {
	return spans.filter((s) => s.name === name);
}

function expectWithin(child: ReceivedSpan, parent: ReceivedSpan): void {
	expect(child.parentSpanId, child.name).toBe(parent.spanId);
	expect(child.startNs >= parent.startNs, `${child.name} starts within ${parent.name}`).toBe(true);
	expect(child.endNs <= parent.endNs, `${child.name} ends within ${parent.name}`).toBe(true);
}

function expectUsage(span: ReceivedSpan, usage: AttemptRecord["usage"]): void {
	expect(span.attributes["gen_ai.usage.input_tokens"], span.name).toBe(usage.input);
	expect(span.attributes["gen_ai.usage.output_tokens"], span.name).toBe(usage.output);
}

test("with OTEL_EXPORTER_OTLP_ENDPOINT, a run's trace reaches an OTLP receiver: run, task, attempt and tool spans nested, with the model, tokens and status of the store, and each attempt's processes given its span as TRACEPARENT", async () => {
	const model = await ScriptedModelServer.start(
		actThenReport((request) =>
			request.messages.some((m) => m.text.includes("STEP-act"))
				? { kind: "shell", command: "echo acted > acted.txt" }
				: { kind: "text", text: "answered" },
		),
	);
	closing.push(model);
	const otlp = await receiver();
	const repo = new TestRepo();
	const scripted = scriptedCliSetup("pi", model.url, mkdtempSync(join(tmpdir(), "crew-pi-")));
	repo.writeFile(".crew/agents/worker.md", "---\nname: worker\nruntime: pi\nsandbox: off\n---\nYou work.\n");
	repo.commandAgent("probe", PROBE);
	repo.workflow("traced", [
		{ id: "act", text: "STEP-act: write a file for {goal}" },
		{ id: "probe", role: "probe", dependsOn: ["act"] },
		{ id: "tell", dependsOn: ["probe"], text: "STEP-tell: say what was done for {goal}" },
	]);
	const env = envWith({ ...scripted.env, OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url });
	const runId = await completedRun(repo, ["run", "trace me", "--workflow", "traced", "--model", scripted.model], env);
	// Every span is in by the time the runner has exited: it waits for its exports.
	const spans = otlp.spans;
	expect(otlp.requests.every((r) => r.path === "/v1/traces" && r.contentType === "application/x-protobuf")).toBe(true);
	expect(new Set(spans.map((s) => s.traceId))).toEqual(new Set([traceIdOf(runId)]));
	expect(new Set(spans.map((s) => s.spanId)).size, "no span is exported twice").toBe(spans.length);
	expect(spans.every((s) => s.resource["service.name"] === "crew")).toBe(true);

	const { attempts, usage } = read(repo.dir, (r) => ({
		attempts: r.attempts(runId),
		usage: r.changes(runId, 0).usage,
	}));
	const run = one(
		spans.filter((s) => s.parentSpanId === ""),
		"one root span",
	);
	expect(run.name).toBe("invoke_workflow traced");
	expect(run.attributes).toMatchObject({
		"gen_ai.operation.name": "invoke_workflow",
		"crew.run.id": runId,
		"crew.run.status": "completed",
		"crew.run.goal": "trace me",
		"crew.workflow": "traced",
	});
	expectUsage(run, usage);
	expect(run.status.code).toBe(0);

	for (const taskId of ["act", "probe", "tell"]) {
		const task = one(named(spans, `task ${taskId}`), `task ${taskId}`);
		expectWithin(task, run);
		expect(task.attributes).toMatchObject({
			"crew.task.id": taskId,
			"crew.step.id": taskId,
			"crew.task.status": "completed",
			"crew.task.attempts": 1,
		});
		const attempt = one(
			spans.filter((s) => s.name.startsWith("invoke_agent") && s.attributes["crew.task.id"] === taskId),
			`attempt of ${taskId}`,
		);
		expectWithin(attempt, task);
		expect(attempt.kind, "an agent's attempt is a client span").toBe(3);
		const recorded = one(
			attempts.filter((a) => a.taskId === taskId),
			`recorded attempt of ${taskId}`,
		);
		expect(attempt.attributes).toMatchObject({
			"gen_ai.operation.name": "invoke_agent",
			"crew.attempt.number": 1,
			"crew.attempt.status": "completed",
			"crew.runtime": recorded.runtime,
		});
		expectUsage(attempt, recorded.usage);
		expectUsage(task, recorded.usage);
		if (taskId === "probe") {
			expect(attempt.name).toBe("invoke_agent probe");
			expect(resultOf(repo, runId, "probe")).toBe(`00-${run.traceId}-${attempt.spanId}-01`);
		} else {
			expect(attempt.name).toBe("invoke_agent worker");
			expect(recorded.usage.input).toBeGreaterThan(0);
			expect(attempt.attributes["gen_ai.request.model"]).toBe(recorded.model);
			expect(recorded.model).toBe(scripted.model);
		}
	}
	const actAttempt = one(
		spans.filter((s) => s.name.startsWith("invoke_agent") && s.attributes["crew.task.id"] === "act"),
		"act's attempt",
	);
	const tool = one(named(spans, "execute_tool bash"), "the one tool call");
	expectWithin(tool, actAttempt);
	expect(tool.attributes).toMatchObject({ "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "bash" });
	expect(tool.attributes["gen_ai.tool.call.id"]).toEqual(expect.any(String));
	expect(spans).toHaveLength(1 + 3 + 3 + 1);
});

test("a run killed with kill -9 and resumed continues its trace: one run span, the lost attempt's span failed, the new one beside it under the same task span", async () => {
	const otlp = await receiver();
	const repo = new TestRepo();
	repo.commandAgent("quick", "echo quick");
	// The first attempt hangs; the one after the resume answers.
	repo.commandAgent("once", `if [ -f once.mark ]; then echo again; else touch once.mark; exec sleep 60; fi`);
	repo.workflow("relay", [
		{ id: "a", role: "quick" },
		{ id: "b", role: "once", dependsOn: ["a"] },
		{ id: "c", role: "quick", dependsOn: ["b"] },
	]);
	const env = envWith({
		OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${otlp.url}/v1/traces`,
		OTEL_SERVICE_NAME: "nightly-crew",
		OTEL_RESOURCE_ATTRIBUTES: "deployment.environment.name=ci",
	});
	const runner = crewProcess(repo.dir, ["run", "survive", "--workflow", "relay"], env);
	await waitFor("b to start", () => repo.exists("once.mark"));
	await waitFor("a's task span", () => otlp.spans.some((s) => s.name === "task a"));
	runner.kill("SIGKILL");
	await exitOf(runner);
	const runId = read(repo.dir, (r) => r.repo.runs()[0]?.id) as string;
	expect(
		otlp.spans.some((s) => s.parentSpanId === ""),
		"no run span before the run ends",
	).toBe(false);

	const resumed = await crew(repo.dir, ["resume", runId, "--json"], 60_000, env);
	expect(resumed.code, resumed.stderr).toBe(0);
	const spans = otlp.spans;
	expect(new Set(spans.map((s) => s.traceId))).toEqual(new Set([traceIdOf(runId)]));
	expect(new Set(spans.map((s) => s.spanId)).size, "no span is exported twice").toBe(spans.length);
	const run = one(
		spans.filter((s) => s.parentSpanId === ""),
		"one run span",
	);
	for (const span of spans)
		expect(span.resource).toMatchObject({ "service.name": "nightly-crew", "deployment.environment.name": "ci" });
	expect(run.attributes["crew.run.status"]).toBe("completed");
	const b = one(named(spans, "task b"), "one span of task b");
	expectWithin(b, run);
	expect(b.attributes["crew.task.attempts"]).toBe(2);
	const [lost, again] = spans
		.filter((s) => s.name === "invoke_agent once")
		.sort((x, y) => Number(x.attributes["crew.attempt.number"]) - Number(y.attributes["crew.attempt.number"]));
	expect(lost?.attributes).toMatchObject({
		"crew.attempt.number": 1,
		"crew.attempt.status": "lost",
		"error.type": "lost",
	});
	expect(lost?.status.code, "the lost attempt's span failed").toBe(2);
	expect(again?.attributes).toMatchObject({ "crew.attempt.number": 2, "crew.attempt.status": "completed" });
	expect(again?.status.code).toBe(0);
	expectWithin(lost as ReceivedSpan, b);
	expectWithin(again as ReceivedSpan, b);
	for (const task of ["a", "c"]) expectWithin(one(named(spans, `task ${task}`), `task ${task}`), run);
	expect(spans).toHaveLength(1 + 3 + 4);
	expect(resultOf(repo, runId, "b")).toBe("again\n");
});

test("a failed run retried is a second round: a run span and a task span of its own for each, no span sent twice", async () => {
	const otlp = await receiver();
	const repo = new TestRepo();
	repo.commandAgent("quick", "echo quick");
	repo.commandAgent("mended", "if [ -f mended.mark ]; then echo mended; else echo broken >&2; exit 3; fi");
	repo.workflow("mend", [
		{ id: "a", role: "quick" },
		{ id: "b", role: "mended", dependsOn: ["a"] },
	]);
	const env = envWith({ OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url });
	const failed = await crew(repo.dir, ["run", "mend", "--workflow", "mend", "--json"], 60_000, env);
	expect(failed.code).not.toBe(0);
	const runId = read(repo.dir, (r) => r.repo.runs()[0]?.id) as string;
	repo.writeFile("mended.mark", "");
	const retried = await crew(repo.dir, ["retry", runId, "b"], 60_000, env);
	expect(retried.code, retried.stderr).toBe(0);

	const spans = otlp.spans;
	expect(new Set(spans.map((s) => s.spanId)).size, "no span is exported twice").toBe(spans.length);
	const [first, second] = spans.filter((s) => s.parentSpanId === "");
	expect(spans.filter((s) => s.parentSpanId === "")).toHaveLength(2);
	expect(first?.attributes["crew.run.status"]).toBe("failed");
	expect(first?.status.code).toBe(2);
	expect(second?.attributes).toMatchObject({ "crew.run.status": "completed", "crew.run.round": 1 });
	expect(second?.status.code).toBe(0);
	const [brokenB, mendedB] = named(spans, "task b");
	expect(named(spans, "task b")).toHaveLength(2);
	expectWithin(brokenB as ReceivedSpan, first as ReceivedSpan);
	expect(brokenB?.attributes).toMatchObject({ "crew.task.status": "failed", "crew.task.attempts": 1 });
	expect(brokenB?.status.message).toContain("exit code 3: broken");
	expectWithin(mendedB as ReceivedSpan, second as ReceivedSpan);
	expect(mendedB?.attributes).toMatchObject({ "crew.task.status": "completed", "crew.task.round": 1 });
	const attempts = spans.filter((s) => s.name === "invoke_agent mended");
	expect(attempts.map((s) => s.parentSpanId)).toEqual([brokenB?.spanId, mendedB?.spanId]);
	expectWithin(one(named(spans, "task a"), "task a, run once"), first as ReceivedSpan);
});

test("nothing is exported, and no TRACEPARENT given, unless the OTEL_* variables ask for traces crew can send; a collector that does not answer costs one warning, not the run", async () => {
	const otlp = await receiver();
	const repo = new TestRepo().commandAgent("probe", PROBE);
	repo.workflow("probe", [{ id: "p", role: "probe" }]);
	const run = async (extra: Record<string, string>) => {
		const result = await crew(repo.dir, ["run", "probe", "--workflow", "probe", "--json"], 60_000, envWith(extra));
		expect(result.code, result.stderr).toBe(0);
		const { runId } = JSON.parse(result.stdout.trim().split("\n").at(-1) as string) as { runId: string };
		return { stderr: result.stderr, traceparent: resultOf(repo, runId, "p") };
	};

	expect(await run({})).toEqual({ stderr: "", traceparent: "" });
	expect(await run({ OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url, OTEL_SDK_DISABLED: "true" })).toEqual({
		stderr: "",
		traceparent: "",
	});
	expect(await run({ OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url, OTEL_TRACES_EXPORTER: "none" })).toEqual({
		stderr: "",
		traceparent: "",
	});
	const grpc = await run({ OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url, OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" });
	expect(grpc).toEqual({
		stderr:
			"crew: warning: OTEL_EXPORTER_OTLP_PROTOCOL=grpc: crew exports traces as http/protobuf only: traces are not exported\n",
		traceparent: "",
	});
	const bad = await run({ OTEL_EXPORTER_OTLP_ENDPOINT: "collector:4318" });
	expect(bad.stderr).toContain("OTEL_EXPORTER_OTLP_ENDPOINT=collector:4318: expected an http:// or https:// URL");
	expect(otlp.requests).toEqual([]);

	const closed = await new Promise<number>((resolve) => {
		const server = createServer().listen(0, "127.0.0.1", () => {
			const { port } = server.address() as { port: number };
			server.close(() => resolve(port));
		});
	});
	const unanswered = await run({ OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${closed}` });
	expect(unanswered.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
	const warnings = unanswered.stderr.split("\n").filter(Boolean);
	expect(warnings).toHaveLength(1);
	expect(warnings[0]).toMatch(
		new RegExp(`^crew: warning: traces are not all exported: cannot export spans to http://127.0.0.1:${closed}: `),
	);
});
