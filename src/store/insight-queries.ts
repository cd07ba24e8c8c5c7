// What the repository's runs spent by day, and how each workflow, agent, model and step did, summed in SQL.

import type { Statement } from "better-sqlite3";
import { SPEC_CHECK_FAILURE } from "../core/spec-contract.js";
import type { Db } from "./database.js";
import { historyScope } from "./history-queries.js";

/** Steps each ranking lists: the slowest, the costliest. */
export const STEPS_RANKED = 10;
/** Days insights cover unless asked otherwise, and at most. */
export const INSIGHT_DAYS = 30;
export const MOST_INSIGHT_DAYS = 365;

const DAY_MS = 86_400_000;

/** The UTC days insights cover: `days` of them, `from` the first and `to` today's, as YYYY-MM-DD. */
export interface InsightWindow {
	readonly days: number;
	readonly from: string;
	readonly to: string;
}

/** What the runs made here spent on one UTC day: runs created that day, and the tokens and cost of attempts started that day. */
export interface InsightDay {
	readonly day: string;
	readonly runs: number;
	readonly tokens: number;
	readonly costUsd: number;
}

/** How a group of tasks (of runs, for a workflow) did: see `ENDED_TASK` and `ENDED_RUN` for what counts as ended. */
export interface Outcomes {
	readonly ended: number;
	/** Of those ended, the completed: success. */
	readonly completed: number;
	/** `completed / ended`; null when none ended. */
	readonly successRate: number | null;
	/** The median wall time of the completed ones, in ms: a task's last attempt's, a run's from its creation to its end. */
	readonly medianMs: number | null;
	/** All tokens (input, output and cache) and the cost, in US dollars, of the group's tasks, however they ended. */
	readonly tokens: number;
	readonly costUsd: number;
	/** `tokens` and `costUsd` per completed one: what a success costs, the failed tries counted; null when none completed. */
	readonly tokensPerCompleted: number | null;
	readonly costPerCompleted: number | null;
	/** The attempts of the group's tasks that failed their strict step's spec checks. */
	readonly specCheckFailures: number;
}

export interface Insights {
	readonly window: InsightWindow;
	/** Every day of the window, oldest first. */
	readonly daily: readonly InsightDay[];
	readonly workflows: readonly ({ readonly workflow: string } & Outcomes)[];
	readonly agents: readonly ({ readonly agent: string } & Outcomes)[];
	/** `model` null: the agent's default, its runtime choosing. */
	readonly models: readonly ({ readonly model: string | null } & Outcomes)[];
	/** Steps (by workflow and step id) that completed at least once, by median time, longest first. */
	readonly slowestSteps: readonly ({ readonly workflow: string; readonly step: string } & Outcomes)[];
	/** Those steps by cost per completed task, highest first. */
	readonly costliestSteps: readonly ({ readonly workflow: string; readonly step: string } & Outcomes)[];
}

/**
 * A task has ended once it ran (an attempt at least) and is completed (success), failed,
 * cancelled or needs_attention (its agent gave no usable answer). Not ended, so in no rate: a
 * task queued, running or waiting; interrupted (its runner was lost, and a resume runs it again);
 * skipped or superseded (the outcome of a dependency, or of a later pass of an `--until` check,
 * not of its agent); cancelled before it ran.
 */
const ENDED_TASK = "t.attempts > 0 AND t.status IN ('completed', 'failed', 'cancelled', 'needs_attention')";
/** A run has ended completed (success), failed or cancelled; an interrupted one may be resumed. */
const ENDED_RUN = "s.status IN ('completed', 'failed', 'cancelled')";

const msBetween = (from: string, to: string) =>
	`CAST(round((julianday(${to}) - julianday(${from})) * 86400000) AS INTEGER)`;

/**
 * The runs of the window, made here (see `historyScope`). Runs have no index by time: this reads
 * each run's row once, and what follows reads only the window's runs' tasks and attempts, each
 * through its key.
 */
const SCOPE = `scope AS MATERIALIZED (
	SELECT r.id, r.workflow, r.status, r.created_at, r.finished_at FROM runs r
	WHERE r.created_at >= @from AND r.created_at < @until AND ${historyScope.runs("r")})`;

/**
 * Each task of the window's runs that ran in them, with the agent and model its spec names
 * (`spec ->> '$.agent.name'`, `'$.agent.model'`), as task_details keeps them at every write of a
 * spec: read from there, no spec is parsed.
 */
const OWN_TASKS = `own AS MATERIALIZED (
	SELECT s.workflow, t.step_id AS step, d.agent, d.model,
		${ENDED_TASK} AS ended, t.attempts > 0 AND t.status = 'completed' AS completed,
		${msBetween("t.started_at", "t.finished_at")} AS ms,
		t.tokens_in + t.tokens_out + t.cache_read + t.cache_write AS tokens, t.cost,
		(SELECT count(*) FROM attempts a WHERE a.run_id = t.run_id AND a.task_id = t.id
			AND a.error LIKE '${SPEC_CHECK_FAILURE}%') AS specFailed
	FROM scope s
	CROSS JOIN tasks t ON t.run_id = s.id
	CROSS JOIN task_details d ON d.run_id = t.run_id AND d.task_id = t.id
	WHERE ${historyScope.tasks("t")})`;

const FIGURES =
	"sum(ended) AS ended, sum(completed) AS completed, median(ms) FILTER (WHERE completed) AS medianMs, sum(tokens) AS tokens, sum(cost) AS cost, sum(specFailed) AS specFailed";

type Params = { from: string; until: string };
type GroupRow = {
	by: "workflow" | "agent" | "model" | "step";
	a: string | null;
	b: string | null;
	ended: number;
	completed: number;
	medianMs: number | null;
	tokens: number;
	cost: number;
	specFailed: number;
};
type DayRow = { day: string; runs: number; tokens: number; cost: number };

/**
 * The insights page's reads: what the runs made here in a window of days spent by day, and how
 * each workflow, agent, model and step did. The grouping, sums and medians are SQLite's; a read
 * costs what the window's runs hold, whatever else the store holds.
 */
export class InsightQueries {
	readonly #db: Db;
	readonly #groups: Statement<[Params], GroupRow>;
	readonly #days: Statement<[Params], DayRow>;

	constructor(db: Db) {
		this.#db = db;
		this.#groups = db.prepare(`WITH ${SCOPE}, ${OWN_TASKS},
			runs_of AS (
				SELECT s.workflow, sum(${ENDED_RUN}) AS ended, sum(s.status = 'completed') AS completed,
					median(CASE WHEN s.status = 'completed' THEN ${msBetween("s.created_at", "s.finished_at")} END) AS medianMs
				FROM scope s GROUP BY s.workflow),
			spent_of AS (
				SELECT workflow, sum(tokens) AS tokens, sum(cost) AS cost, sum(specFailed) AS specFailed
				FROM own GROUP BY workflow)
			SELECT 'workflow' AS by, r.workflow AS a, NULL AS b, r.ended, r.completed, r.medianMs,
				coalesce(p.tokens, 0) AS tokens, coalesce(p.cost, 0) AS cost, coalesce(p.specFailed, 0) AS specFailed
			FROM runs_of r LEFT JOIN spent_of p ON p.workflow = r.workflow
			UNION ALL SELECT 'agent', agent, NULL, ${FIGURES} FROM own GROUP BY agent
			UNION ALL SELECT 'model', model, NULL, ${FIGURES} FROM own GROUP BY model
			UNION ALL SELECT 'step', workflow, step, ${FIGURES} FROM own GROUP BY workflow, step`);
		this.#days = db.prepare(`WITH ${SCOPE}
			SELECT day, sum(runs) AS runs, sum(tokens) AS tokens, sum(cost) AS cost FROM (
				SELECT substr(s.created_at, 1, 10) AS day, 1 AS runs, 0 AS tokens, 0 AS cost FROM scope s
				UNION ALL
				SELECT substr(a.started_at, 1, 10), 0,
					coalesce(a.usage ->> '$.input', 0) + coalesce(a.usage ->> '$.output', 0)
						+ coalesce(a.usage ->> '$.cacheRead', 0) + coalesce(a.usage ->> '$.cacheWrite', 0),
					coalesce(a.usage ->> '$.cost', 0)
				FROM scope s
				CROSS JOIN attempts a ON a.run_id = s.id
				CROSS JOIN tasks t ON t.run_id = a.run_id AND t.id = a.task_id
				WHERE a.usage IS NOT NULL AND ${historyScope.tasks("t")})
			GROUP BY day`);
	}

	/** The insights of `window`, as of one committed state. */
	read(window: InsightWindow): Insights {
		const params = { from: window.from, until: dayAfter(window.to) };
		const { groups, days } = this.#db.transaction(() => ({
			groups: this.#groups.all(params),
			days: this.#days.all(params),
		}))();
		const byDay = new Map(days.map((d) => [d.day, d]));
		const daily = windowDays(window).map((day) => {
			const d = byDay.get(day);
			return { day, runs: d?.runs ?? 0, tokens: d?.tokens ?? 0, costUsd: d?.cost ?? 0 };
		});
		const of = (by: GroupRow["by"]) => groups.filter((g) => g.by === by).map((g) => ({ g, outcomes: outcomes(g) }));
		const steps = of("step")
			.filter(({ outcomes }) => outcomes.completed > 0)
			.map(({ g, outcomes }) => ({ workflow: g.a ?? "", step: g.b ?? "", ...outcomes }));
		const byStep = (a: (typeof steps)[number], b: (typeof steps)[number]) =>
			a.workflow.localeCompare(b.workflow) || a.step.localeCompare(b.step);
		return {
			window,
			daily,
			workflows: byCost(
				of("workflow").map(({ g, outcomes }) => ({ workflow: g.a ?? "", ...outcomes })),
				(r) => r.workflow,
			),
			agents: byCost(
				of("agent").map(({ g, outcomes }) => ({ agent: g.a ?? "", ...outcomes })),
				(r) => r.agent,
			),
			models: byCost(
				of("model").map(({ g, outcomes }) => ({ model: g.a, ...outcomes })),
				(r) => r.model ?? "\uffff",
			),
			slowestSteps: [...steps]
				.sort((a, b) => (b.medianMs ?? 0) - (a.medianMs ?? 0) || byStep(a, b))
				.slice(0, STEPS_RANKED),
			costliestSteps: [...steps]
				.sort((a, b) => (b.costPerCompleted ?? 0) - (a.costPerCompleted ?? 0) || byStep(a, b))
				.slice(0, STEPS_RANKED),
		};
	}
}

/** The window of the `days` UTC days that end with the day of `now` (ms since 1970). */
export function insightWindow(now: number, days: number): InsightWindow {
	const today = Math.floor(now / DAY_MS) * DAY_MS;
	return { days, from: dayOf(today - (days - 1) * DAY_MS), to: dayOf(today) };
}

/** The insights of a window before the store exists: every day at zero, no rows. */
export function noInsights(window: InsightWindow): Insights {
	const daily = windowDays(window).map((day) => ({ day, runs: 0, tokens: 0, costUsd: 0 }));
	return { window, daily, workflows: [], agents: [], models: [], slowestSteps: [], costliestSteps: [] };
}

function outcomes(g: GroupRow): Outcomes {
	return {
		ended: g.ended,
		completed: g.completed,
		successRate: g.ended === 0 ? null : g.completed / g.ended,
		medianMs: g.medianMs,
		tokens: g.tokens,
		costUsd: g.cost,
		tokensPerCompleted: g.completed === 0 ? null : g.tokens / g.completed,
		costPerCompleted: g.completed === 0 ? null : g.cost / g.completed,
		specCheckFailures: g.specFailed,
	};
}

/** Most spent first, then by `name`. */
function byCost<T extends Outcomes>(rows: T[], name: (row: T) => string): T[] {
	return rows.sort((a, b) => b.costUsd - a.costUsd || b.tokens - a.tokens || name(a).localeCompare(name(b)));
}

function windowDays(window: InsightWindow): string[] {
	const first = Date.parse(`${window.from}T00:00:00.000Z`);
	return Array.from({ length: window.days }, (_, n) => dayOf(first + n * DAY_MS));
}

function dayAfter(day: string): string {
	return dayOf(Date.parse(`${day}T00:00:00.000Z`) + DAY_MS);
}

function dayOf(ms: number): string {
	return new Date(ms).toISOString().slice(0, 10);
}
