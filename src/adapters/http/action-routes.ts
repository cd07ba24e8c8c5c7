// The API's changes: runs started, retried, forked, replayed, cancelled, steered; schedules added, paused, removed.

import type { Context, Hono } from "hono";
import { z } from "zod";
import { CrewError, ErrorCode } from "../../core/errors.js";
import type { Crew } from "../../engine/crew.js";
import { agentWorkflowName } from "../../engine/planning/agent-workflow.js";
import { runParameters } from "../shared/run-parameters.js";
import { addSchedule, OVERLAPS, onSchedules, pauseSchedule, removeSchedule } from "../shared/schedule-actions.js";
import type { RunRequest, TeamActions } from "../shared/team-actions.js";
import { parse, pathId } from "./input.js";

const name = z.string().trim().min(1, "expected a name");
const goal = z.string().trim().min(1, "expected a non-empty goal");
/** A run as `crew run` takes it: the goal, what runs it (a team, a workflow or one agent) and its options. */
const RunBody = z.strictObject({
	goal,
	team: name.optional(),
	workflow: name.optional(),
	agent: name.optional(),
	...runParameters,
});
const ForkBody = z.strictObject({
	from: z.union([z.string().min(1), z.array(z.string().min(1)).min(1, "expected a task or step at least")]).optional(),
});
const ReplayBody = z.strictObject({ liveOnDivergence: z.boolean().optional() });
const when = z.union([z.string().min(1), z.number()]).optional();
/** A schedule as `crew schedule add` takes it: its name, when (cron and tz, every, or at), the overlap rule and the run. */
const ScheduleBody = z.strictObject({
	name,
	cron: z.string().min(1).optional(),
	tz: z.string().min(1).optional(),
	every: when,
	at: when,
	overlap: z.enum(OVERLAPS).optional(),
	goal,
	team: name.optional(),
	workflow: name.optional(),
	...runParameters,
});
/** The body of a change that takes none: nothing, or `{}`. */
const NoBody = z.strictObject({});
const Rejection = z.strictObject({ reason: z.string().trim().min(1, "expected a non-empty reason") });
const SteerBody = z.strictObject({ message: z.string().trim().min(1, "expected a non-empty message") });
const AnswerBody = z.strictObject({
	answer: z.string().trim().min(1, "expected a non-empty answer"),
	question: z.number().int().min(1).optional(),
});

/**
 * A request's JSON body checked against `schema`: an empty body is `{}`; one that is not JSON is
 * refused, as is a field the schema does not name.
 */
async function body<T>(c: Context, schema: z.ZodType<T>): Promise<T> {
	const text = await c.req.text();
	let given: unknown = {};
	if (text.trim() !== "") {
		try {
			given = JSON.parse(text);
		} catch {
			throw new CrewError(ErrorCode.InvalidInput, "the body is not JSON: expected a JSON object");
		}
	}
	return parse(schema, given, "body field");
}

/** The run a body asks for; `agent` is the one-task run of that agent, as `crew agent` makes. */
function runRequest(given: z.infer<typeof RunBody>): RunRequest {
	const { agent, ...ask } = given;
	if (agent === undefined) return ask;
	for (const field of ["workflow", "team"] as const) {
		if (ask[field] === undefined) continue;
		throw new CrewError(
			ErrorCode.InvalidInput,
			`invalid body field ${field} ${JSON.stringify(ask[field])}: an agent's run takes no ${field}`,
		);
	}
	return { ...ask, workflow: agentWorkflowName(agent) };
}

/**
 * The API's changes, each through `actions` as its CLI command's: whatever the CLI refuses, they
 * refuse in the same words. The guard in front of them asks each for the token as a header.
 */
export function actionRoutes(app: Hono, actions: TeamActions): void {
	const runId = (c: Context) => pathId(c, "run", "runId");
	const scheduleName = (c: Context) => pathId(c, "schedule", "name");

	app.post("/api/plan", async (c) => c.json(await actions.plan(runRequest(await body(c, RunBody)))));
	app.post("/api/runs", async (c) => c.json(await actions.run(runRequest(await body(c, RunBody))), 201));

	/** A change of run `runId` that takes no body. */
	const onRun = (path: string, act: (id: string, task: string) => Promise<object>) =>
		app.post(`/api/runs/:runId${path}`, async (c) => {
			const id = runId(c);
			await body(c, NoBody);
			return c.json(await act(id, c.req.param("task") ?? ""));
		});
	onRun("/cancel", (id) => actions.cancel(id, "cancelled from the dashboard"));
	onRun("/resume", (id) => actions.resume(id));
	onRun("/approve", (id) => actions.approve(id));
	onRun("/tasks/:task/retry", (id, task) => actions.retry(id, task));
	app.post("/api/runs/:runId/reject", async (c) => {
		const id = runId(c);
		const { reason } = await body(c, Rejection);
		return c.json(await actions.reject(id, reason));
	});
	app.post("/api/runs/:runId/fork", async (c) => {
		const id = runId(c);
		const { from } = await body(c, ForkBody);
		return c.json(await actions.fork(id, { from: typeof from === "string" ? [from] : from }), 201);
	});
	app.post("/api/runs/:runId/replay", async (c) => {
		const id = runId(c);
		const { liveOnDivergence } = await body(c, ReplayBody);
		return c.json(await actions.replay(id, { liveOnDivergence }), 201);
	});

	app.post("/api/runs/:runId/tasks/:task/steer", async (c) => {
		const id = runId(c);
		const { message } = await body(c, SteerBody);
		return c.json(await actions.steer(id, c.req.param("task"), message));
	});
	app.post("/api/runs/:runId/tasks/:task/answer", async (c) => {
		const id = runId(c);
		const { answer, question } = await body(c, AnswerBody);
		return c.json(await actions.answer(id, c.req.param("task"), answer, question));
	});

	app.post("/api/schedules", async (c) => {
		const { name, cron, tz, every, at, overlap, ...run } = await body(c, ScheduleBody);
		const ask = { name, cron, tz, every, at, overlap, run, asker: "api" as const };
		return c.json(await onSchedules(actions.project, (crew, settings) => addSchedule(crew, settings, ask)), 201);
	});
	/** A change of schedule `name` that takes no body. */
	const onSchedule = (method: "post" | "delete", path: string, act: (crew: Crew, name: string) => object) =>
		app[method](`/api/schedules/:name${path}`, async (c) => {
			const name = scheduleName(c);
			await body(c, NoBody);
			return c.json(await onSchedules(actions.project, (crew) => act(crew, name)));
		});
	onSchedule("delete", "", removeSchedule);
	onSchedule("post", "/pause", (crew, name) => pauseSchedule(crew, name, true));
	onSchedule("post", "/resume", (crew, name) => pauseSchedule(crew, name, false));
}
