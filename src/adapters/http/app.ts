// The HTTP server of `crew serve`: API routes, event streams, metrics and dashboard over one project's store.

import { existsSync } from "node:fs";
import { type Context, Hono } from "hono";
import { z } from "zod";
import type { Project } from "../../config/project.js";
import { CrewError, ErrorCode, isCrewError } from "../../core/errors.js";
import { addUsage, ZERO_USAGE } from "../../core/usage.js";
import { compareRuns, comparisonJson } from "../../engine/history/diff.js";
import { eventJson } from "../../engine/views/json.js";
import { RunReader } from "../../engine/views/reader.js";
import { INSIGHT_DAYS, insightWindow, MOST_INSIGHT_DAYS, noInsights } from "../../store/insight-queries.js";
import { listSchedules } from "../shared/schedule-actions.js";
import { TeamActions } from "../shared/team-actions.js";
import { type AccessOptions, guard } from "./access.js";
import { actionRoutes } from "./action-routes.js";
import { runJson, taskJson } from "./api-json.js";
import { dashboardFile } from "./dashboard-files.js";
import { graphLayout, MAX_GRAPH_TASKS } from "./graph-layout.js";
import { parse, pathId } from "./input.js";
import { CrewMetrics } from "./metrics.js";
import { runCost } from "./run-cost.js";
import { RunFeed } from "./run-feed.js";
import { runStream } from "./run-stream.js";
import { timelineJson } from "./run-timeline.js";
import { runsPage } from "./runs-page.js";
import { taskDetail } from "./task-detail.js";

export interface AppOptions extends AccessOptions {
	readonly project: Project;
	/** Time between store reads of the live event streams, in ms. Default 250. */
	readonly pollMs?: number;
}

export interface CrewApp {
	readonly app: Hono;
	/** Closes the app's store connection. */
	close(): void;
}

const HTTP_STATUS: Partial<Record<ErrorCode, 400 | 403 | 404 | 409>> = {
	[ErrorCode.InvalidId]: 400,
	[ErrorCode.InvalidInput]: 400,
	[ErrorCode.InvalidWorkflow]: 400,
	[ErrorCode.InvalidResource]: 400,
	[ErrorCode.Untrusted]: 403,
	[ErrorCode.ArtifactPath]: 400,
	[ErrorCode.NotFound]: 404,
	[ErrorCode.Conflict]: 409,
	[ErrorCode.InvalidTransition]: 409,
	[ErrorCode.LeaseHeld]: 409,
};

const Since = z.object({
	since: z
		.string()
		.regex(/^\d{1,15}$/, "expected an integer >= 0")
		.transform(Number)
		.optional(),
});
const DAYS_EXPECTED = `expected an integer from 1 to ${MOST_INSIGHT_DAYS}`;
const InsightsQuery = z.object({
	days: z
		.string()
		.regex(/^\d{1,3}$/, DAYS_EXPECTED)
		.transform(Number)
		.refine((n) => n >= 1 && n <= MOST_INSIGHT_DAYS, DAYS_EXPECTED)
		.optional(),
});

/**
 * crew's HTTP API and dashboard over one project's store, behind `guard`. Reads go through a
 * read-only connection; changes (see `actionRoutes`) go through the engine, as the CLI's do.
 */
export function createApp(options: AppOptions): CrewApp {
	const { project } = options;
	const pollMs = options.pollMs ?? 250;
	let opened: RunReader | undefined;
	/** The store's reader, once the store exists: a server may start before the first run. */
	const reader = (): RunReader | undefined => {
		if (!opened && existsSync(project.dbFile)) opened = new RunReader(project);
		return opened;
	};
	const needReader = (): RunReader => {
		const r = reader();
		if (!r) throw new CrewError(ErrorCode.NotFound, `no runs yet in ${project.root}`);
		return r;
	};
	const metrics = new CrewMetrics(() => reader()?.repo);
	const feed = new RunFeed(needReader, pollMs);
	const actions = new TeamActions(project, "person");
	const runId = (c: Context) => pathId(c, "run", "runId");

	const app = new Hono();
	app.onError((error, c) => {
		if (isCrewError(error)) return c.json({ error: error.message, code: error.code }, HTTP_STATUS[error.code] ?? 500);
		return c.json({ error: error.message }, 500);
	});
	app.notFound((c) => c.json({ error: `no route ${c.req.method} ${c.req.path}` }, 404));
	guard(app, options);

	app.get("/api/inbox", (c) => c.json(actions.inbox()));
	app.get("/api/resources", (c) => c.json({ resources: actions.list(c.req.query("kind")) }));
	app.get("/api/runs", (c) => c.json(runsPage(reader()?.repo, c.req.query())));
	app.get("/api/insights", (c) => {
		const { days = INSIGHT_DAYS } = parse(InsightsQuery, c.req.query(), "query parameter");
		return c.json(reader()?.repo.insights(days) ?? noInsights(insightWindow(Date.now(), days)));
	});
	app.get("/api/schedules", (c) => {
		const read = reader();
		const schedules = read?.repo.schedules();
		return c.json({ schedules: read && schedules ? listSchedules({ schedules, run: (id) => read.run(id) }) : [] });
	});
	app.get("/api/runs/:runId", (c) => {
		const { since } = parse(Since, c.req.query(), "query parameter");
		const read = needReader();
		const id = runId(c);
		if (since !== undefined) {
			const changes = read.changes(id, since);
			const run = runJson(changes.run, changes.usage, read.children(id));
			return c.json({ run, tasks: changes.tasks.map(taskJson), seq: changes.seq });
		}
		const view = read.view(id);
		const own = view.tasks.reduce((sum, t) => addUsage(sum, t.usage), ZERO_USAGE);
		const run = runJson(view.run, own, read.children(id));
		return c.json({ run, tasks: view.tasks.map(taskJson), seq: view.seq });
	});
	app.get("/api/runs/:runId/compare/:other", (c) => {
		const other = pathId(c, "run", "other");
		return c.json(comparisonJson(compareRuns(needReader(), runId(c), other)));
	});
	app.get("/api/runs/:runId/cost", (c) => c.json(runCost(needReader(), runId(c))));
	app.get("/api/runs/:runId/requirements", (c) => c.json({ requirements: needReader().requirements(runId(c)) }));
	app.get("/api/runs/:runId/timeline", (c) => c.json(timelineJson(needReader().timeline(runId(c)))));
	app.get("/api/runs/:runId/graph", (c) => {
		const { tasks } = needReader().view(runId(c));
		if (tasks.length > MAX_GRAPH_TASKS) return c.json({ tooLarge: true, tasks: tasks.length, limit: MAX_GRAPH_TASKS });
		return c.json(graphLayout(tasks));
	});
	app.get("/api/runs/:runId/events", (c) => {
		const { since } = parse(Since, c.req.query(), "query parameter");
		return c.json({
			events: needReader()
				.events(runId(c), since ?? 0, 1000)
				.map(eventJson),
		});
	});
	app.get("/api/runs/:runId/stream", (c) => {
		const id = runId(c);
		const lastId = c.req.header("last-event-id");
		const { since } = parse(Since, lastId === undefined ? c.req.query() : { since: lastId }, "event id");
		needReader().lastEventSeq(id);
		return runStream(feed, id, since ?? 0);
	});
	app.get("/api/runs/:runId/tasks/:task", (c) => c.json(taskDetail(needReader(), runId(c), c.req.param("task"))));
	app.get("/api/runs/:runId/artifacts", (c) => c.json({ artifacts: needReader().artifacts(runId(c)) }));
	app.get("/api/runs/:runId/artifacts/*", (c) => {
		const id = runId(c);
		const name = decodeURIComponent(c.req.path.slice(`/api/runs/${id}/artifacts/`.length));
		const r = needReader();
		if (!r.artifact(id, name)) {
			throw new CrewError(ErrorCode.NotFound, `run ${id} has no artifact ${JSON.stringify(name)}`);
		}
		return c.text(r.files.read(id, name));
	});

	actionRoutes(app, actions);

	app.get("/metrics", async (c) => {
		const text = await metrics.text();
		return c.body(text, 200, { "content-type": metrics.contentType });
	});

	app.get("/", (c) => dashboardFile(c, "index.html"));
	app.get("/runs/:runId", (c) => dashboardFile(c, "index.html"));
	app.get("/runs/:runId/compare/:other", (c) => dashboardFile(c, "index.html"));
	app.get("/inbox", (c) => dashboardFile(c, "index.html"));
	app.get("/insights", (c) => dashboardFile(c, "index.html"));
	app.get("/schedules", (c) => dashboardFile(c, "index.html"));
	app.get("/assets/:name", (c) => dashboardFile(c, c.req.param("name")));
	// Browsers ask for it whatever the page names.
	app.get("/favicon.ico", (c) => dashboardFile(c, "favicon.svg"));

	return {
		app,
		close: () => {
			feed.close();
			opened?.close();
		},
	};
}
