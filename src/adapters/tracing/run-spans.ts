// OpenTelemetry spans of runs, tasks, attempts and tool calls, made from the store's records.

import { ATTR_ERROR_TYPE } from "@opentelemetry/semantic-conventions";
import {
	ATTR_GEN_AI_AGENT_NAME,
	ATTR_GEN_AI_OPERATION_NAME,
	ATTR_GEN_AI_REQUEST_MODEL,
	ATTR_GEN_AI_TOOL_CALL_ID,
	ATTR_GEN_AI_TOOL_NAME,
	ATTR_GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS,
	ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS,
	ATTR_GEN_AI_USAGE_INPUT_TOKENS,
	ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
	GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL,
	GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT,
	GEN_AI_OPERATION_NAME_VALUE_INVOKE_WORKFLOW,
} from "@opentelemetry/semantic-conventions/incubating";
import type { AttemptRecord, EventRecord } from "../../core/records.js";
import { isTerminalTask, RunStatus, TaskStatus } from "../../core/status.js";
import type { TaskSpec } from "../../core/types.js";
import { addUsage, type Usage, ZERO_USAGE } from "../../core/usage.js";
import { attemptSpanId, spanIdOf, traceIdOf } from "../../engine/run/trace-ids.js";
import type { RunQueries } from "../../store/run-queries.js";

export type SpanAttributes = Readonly<Record<string, string | number | boolean>>;

/** A span to export, as crew's records describe it: ids, times and what it says. */
export interface SpanPlan {
	readonly traceId: string;
	readonly spanId: string;
	/** Its parent's id, in the same trace; absent for a run's span. */
	readonly parentId?: string;
	readonly name: string;
	/** `client` for an agent's attempt (another process, calling a model), else `internal`. */
	readonly kind: "internal" | "client";
	/** ISO times. */
	readonly start: string;
	readonly end: string;
	readonly attributes: SpanAttributes;
	/** Why it failed; absent when it did not. */
	readonly error?: string;
}

/** How a run ended, as its span says: the run's status events that end a round of it. */
const RUN_ENDS = new Set<string>([RunStatus.Completed, RunStatus.Failed, RunStatus.Cancelled]);
/** The statuses a person's resume or retry takes a task or a run out of, starting a new round of it. */
const FINAL = new Set<string>([...RUN_ENDS, TaskStatus.Skipped, TaskStatus.NeedsAttention]);
const TOOL_EVENTS = ["worker.tool-start", "worker.tool-end"];
/** Characters of a run's goal its span carries. */
const GOAL_CHARS = 500;

/**
 * The spans of a run that its events end, read from the store: an attempt's span (with a span per
 * tool call it made) when the attempt ends, a task's when the task ends, the run's when the run
 * ends. A task or run a person's resume or retry opens again after it ended starts a new round,
 * with a span of its own: no span is ever exported twice. Each span's id comes from the records
 * (see `trace-ids`), so spans exported by different runners of a run fit together.
 */
export class RunSpans {
	readonly #queries: RunQueries;

	constructor(queries: RunQueries) {
		this.#queries = queries;
	}

	/** The spans `event` of run `runId` ends; none for most events. */
	ended(runId: string, event: EventRecord): SpanPlan[] {
		const [scope, status] = event.type.split(".", 2) as [string, string];
		if (scope === "run" && RUN_ENDS.has(status)) return [this.#run(runId, event)];
		if (scope !== "task" || event.taskId === null) return [];
		// A task leaves `running` once per attempt, in the one process that saw the attempt end.
		const spans = event.data.from === TaskStatus.Running ? this.#attempt(runId, event.taskId, event) : [];
		if (isTerminalTask(status as TaskStatus) && status !== TaskStatus.Interrupted)
			spans.push(this.#task(runId, event.taskId, event));
		return spans;
	}

	#run(runId: string, event: EventRecord): SpanPlan {
		const run = this.#queries.getRun(runId);
		const reopened = this.#queries
			.eventsOfTypes(runId, ["run.running"])
			.filter((e) => e.seq < event.seq && FINAL.has(String(e.data.from)));
		const status = event.type.slice("run.".length);
		const usage = this.#queries.usage(runId);
		return {
			traceId: traceIdOf(runId),
			spanId: spanIdOf(runId, "run", reopened.length),
			name: `${GEN_AI_OPERATION_NAME_VALUE_INVOKE_WORKFLOW} ${run.workflow}`,
			kind: "internal",
			start: reopened.at(-1)?.time ?? run.createdAt,
			end: event.time,
			attributes: {
				[ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION_NAME_VALUE_INVOKE_WORKFLOW,
				"crew.run.id": runId,
				"crew.run.status": status,
				"crew.run.goal": run.goal.slice(0, GOAL_CHARS),
				"crew.workflow": run.workflow,
				...(run.team ? { "crew.team": run.team } : {}),
				...(run.forkedFrom ? { "crew.run.forked_from": run.forkedFrom } : {}),
				...(reopened.length > 0 ? { "crew.run.round": reopened.length } : {}),
				...usageAttributes(usage),
			},
			...(status === RunStatus.Failed ? { error: run.error ?? "the run failed" } : {}),
		};
	}

	#task(runId: string, taskId: string, event: EventRecord): SpanPlan {
		const round = this.#round(runId, taskId, event.seq);
		const task = this.#queries.findTask(runId, taskId);
		const spec = this.#spec(runId, taskId);
		const attempts = this.#queries.attempts(runId).filter((a) => a.taskId === taskId && round.has(a.number));
		const status = event.type.slice("task.".length);
		const error = typeof event.data.error === "string" ? event.data.error : undefined;
		return {
			traceId: traceIdOf(runId),
			spanId: spanIdOf(runId, "task", taskId, round.number),
			parentId: spanIdOf(runId, "run", this.#runRound(runId, event.seq)),
			name: `task ${taskId}`,
			kind: "internal",
			start: attempts[0]?.startedAt ?? event.time,
			end: event.time,
			attributes: {
				"crew.task.id": taskId,
				"crew.step.id": task.stepId,
				"crew.task.role": task.role,
				"crew.task.status": status,
				"crew.task.attempts": attempts.length,
				...(spec ? { [ATTR_GEN_AI_AGENT_NAME]: spec.agent.name } : {}),
				...(task.inherited ? { "crew.task.inherited_from": `${task.inherited.runId}/${task.inherited.taskId}` } : {}),
				...(round.number > 0 ? { "crew.task.round": round.number } : {}),
				...usageAttributes(attempts.reduce((sum, a) => addUsage(sum, a.usage), ZERO_USAGE)),
			},
			...(status === TaskStatus.Failed ? { error: error ?? "the task failed" } : {}),
		};
	}

	/** The span of the task's attempt that `event`, taking the task out of `running`, ends, with its tool calls'. */
	#attempt(runId: string, taskId: string, event: EventRecord): SpanPlan[] {
		const started = this.#queries
			.taskEventsOfTypes(runId, taskId, ["task.running"])
			.filter((e) => e.seq < event.seq)
			.at(-1);
		const attempt = this.#queries
			.attempts(runId)
			.find((a) => a.taskId === taskId && a.number === started?.data.attempt);
		if (!started || !attempt) return [];
		const end = attempt.finishedAt ?? event.time;
		const round = this.#round(runId, taskId, started.seq);
		const spanId = attemptSpanId(runId, taskId, attempt.number);
		const agent = this.#spec(runId, taskId)?.agent.name;
		const span: SpanPlan = {
			traceId: traceIdOf(runId),
			spanId,
			parentId: spanIdOf(runId, "task", taskId, round.number),
			name: `${GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT}${agent ? ` ${agent}` : ""}`,
			kind: "client",
			start: attempt.startedAt,
			end,
			attributes: {
				[ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT,
				...(agent ? { [ATTR_GEN_AI_AGENT_NAME]: agent } : {}),
				...(attempt.model ? { [ATTR_GEN_AI_REQUEST_MODEL]: attempt.model } : {}),
				"crew.task.id": taskId,
				"crew.attempt.number": attempt.number,
				"crew.attempt.status": attempt.status,
				"crew.runtime": attempt.runtime,
				...(attempt.exitCode !== null ? { "process.exit.code": attempt.exitCode } : {}),
				...usageAttributes(attempt.usage),
				...(attempt.status === "completed" ? {} : { [ATTR_ERROR_TYPE]: attempt.status }),
			},
			...(attempt.status === "completed" ? {} : { error: attempt.error ?? `the attempt ended ${attempt.status}` }),
		};
		return [span, ...this.#tools(runId, attempt, started.seq, spanId, end)];
	}

	/** A span per tool call of `attempt`, from its worker's events after `afterSeq`; a call it never ended ends with it. */
	#tools(runId: string, attempt: AttemptRecord, afterSeq: number, parentId: string, ended: string): SpanPlan[] {
		const events = this.#queries.taskEventsOfTypes(runId, attempt.taskId, [...TOOL_EVENTS, "task.running"]);
		const next = events.find((e) => e.type === "task.running" && e.seq > afterSeq)?.seq ?? Number.MAX_SAFE_INTEGER;
		const calls = new Map<string, { start: EventRecord; end?: EventRecord }>();
		for (const e of events) {
			if (e.seq <= afterSeq || e.seq >= next || e.type === "task.running") continue;
			const id = String(e.data.id ?? "");
			if (e.type === "worker.tool-start") calls.set(id, { start: e });
			else {
				const call = calls.get(id);
				if (call && !call.end) call.end = e;
			}
		}
		return [...calls.entries()].map(([id, { start, end }], i) => {
			const name = String(start.data.name ?? "tool");
			const failed = end ? end.data.isError === true : true;
			const said = typeof end?.data.output === "string" ? end.data.output.split("\n", 1)[0] : undefined;
			return {
				traceId: traceIdOf(runId),
				spanId: spanIdOf(runId, "tool", attempt.taskId, attempt.number, i, id),
				parentId,
				name: `${GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL} ${name}`,
				kind: "internal",
				start: start.time,
				end: end?.time ?? ended,
				attributes: {
					[ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL,
					[ATTR_GEN_AI_TOOL_NAME]: name,
					...(id ? { [ATTR_GEN_AI_TOOL_CALL_ID]: id } : {}),
				},
				...(failed
					? { error: end ? said || "the tool reported an error" : "the attempt ended before the tool did" }
					: {}),
			};
		});
	}

	/**
	 * The round of a task as of event `seq`: how many times a resume or retry had opened it again
	 * after it ended, and the numbers of its attempts started in that round.
	 */
	#round(runId: string, taskId: string, seq: number): { readonly number: number; has(attempt: number): boolean } {
		const events = this.#queries.taskEventsOfTypes(runId, taskId, ["task.queued", "task.running"]);
		const opened = events.filter((e) => e.type === "task.queued" && e.seq < seq && FINAL.has(String(e.data.from)));
		const from = opened.at(-1)?.seq ?? 0;
		const attempts = new Set(
			events
				.filter((e) => e.type === "task.running" && e.seq > from && e.seq <= seq)
				.map((e) => Number(e.data.attempt)),
		);
		return { number: opened.length, has: (attempt) => attempts.has(attempt) };
	}

	#runRound(runId: string, seq: number): number {
		return this.#queries
			.eventsOfTypes(runId, ["run.running"])
			.filter((e) => e.seq < seq && FINAL.has(String(e.data.from))).length;
	}

	#spec(runId: string, taskId: string): TaskSpec | undefined {
		return this.#queries.taskSpecs(runId).find((s) => s.id === taskId);
	}
}

/** GenAI token counts of `usage`, and its cost in US dollars when it has one. */
function usageAttributes(usage: Usage): SpanAttributes {
	return {
		[ATTR_GEN_AI_USAGE_INPUT_TOKENS]: usage.input,
		[ATTR_GEN_AI_USAGE_OUTPUT_TOKENS]: usage.output,
		...(usage.cacheRead > 0 ? { [ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS]: usage.cacheRead } : {}),
		...(usage.cacheWrite > 0 ? { [ATTR_GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS]: usage.cacheWrite } : {}),
		...(usage.cost > 0 ? { "crew.usage.cost_usd": usage.cost } : {}),
		...(usage.partial ? { "crew.usage.partial": true } : {}),
	};
}
