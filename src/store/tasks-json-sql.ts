// The SQL that builds a run's tasks as `crew status --json` lists them, in SQLite rather than per row in JS.

import { TASK_JSON_FIELDS, type TaskJsonField } from "../core/status-selection.js";

/** The error a task shows while its run's runner is gone and nobody has resumed it. */
export const RUNNER_GONE = "its runner is gone";

/** The parameters of a query `tasksJsonSql` builds. */
export interface TasksJsonParams {
	readonly runId: string;
	readonly gone: number;
	/** The ids of the tasks to list, in order, as a JSON array. */
	readonly order?: string;
	/** The statuses of the tasks to list, as a JSON array. */
	readonly statuses?: string;
}

/** A task's status and error as people see them: a running task of a gone runner is interrupted. */
const SEEN_STATUS = "CASE WHEN @gone AND t.status = 'running' THEN 'interrupted' ELSE t.status END";
const SEEN_ERROR = `CASE WHEN @gone AND t.status = 'running' THEN '${RUNNER_GONE}' ELSE t.error END`;
const USAGE_JSON =
	"'inputTokens', t.tokens_in, 'outputTokens', t.tokens_out, 'cacheReadTokens', t.cache_read, 'cacheWriteTokens', t.cache_write, 'costUsd', t.cost";

const INHERITED_USAGE_JSON = `'inputTokens', t.inherited ->> '$.usage.input', 'outputTokens', t.inherited ->> '$.usage.output',
	'cacheReadTokens', t.inherited ->> '$.usage.cacheRead', 'cacheWriteTokens', t.inherited ->> '$.usage.cacheWrite',
	'costUsd', t.inherited ->> '$.usage.cost'`;

/** Each field of a task in `crew status --json` as SQL over a `tasks` row `t`. */
const TASK_JSON_SQL: Record<TaskJsonField, string> = {
	id: "t.id",
	stepId: "t.step_id",
	role: "t.role",
	status: SEEN_STATUS,
	attempts: "t.attempts",
	startedAt: "t.started_at",
	finishedAt: "t.finished_at",
	error: SEEN_ERROR,
	usage: `CASE WHEN t.usage_partial THEN json_object(${USAGE_JSON}, 'partial', json('true')) ELSE json_object(${USAGE_JSON}) END`,
	sandbox: "json(t.sandbox)",
	// Its latest attempt's: whether it continued the session of the attempt before, or started over and why.
	session: `(SELECT json(a.origin) FROM attempts a WHERE a.run_id = t.run_id AND a.task_id = t.id AND a.number = t.attempts)`,
	// The git folders its attempts left in their workspace, which crew moved out of it.
	setAside: "CASE WHEN t.set_aside IS NULL THEN json('[]') ELSE json(t.set_aside) END",
	// A forked run's reused task: the run and task whose outcome it took, and the usage spent there.
	inherited: `CASE WHEN t.inherited IS NULL THEN NULL ELSE json_object('runId', t.inherited ->> '$.runId',
		'taskId', t.inherited ->> '$.taskId', 'usage', json_object(${INHERITED_USAGE_JSON})) END`,
};

/**
 * The query of `RunQueries.tasksJson` for the `fields` given (only names of TASK_JSON_FIELDS reach
 * it), listing tasks in the order of `@order` or else as they joined, only those whose status is in
 * `@statuses` when `byStatus`. The subquery hands rows to the aggregate in the order it sorts them;
 * an ORDER BY inside the aggregate would sort the built objects again.
 */
export function tasksJsonSql(fields: readonly TaskJsonField[], inOrder: boolean, byStatus: boolean): string {
	const object = TASK_JSON_FIELDS.filter((field) => fields.includes(field))
		.map((field) => `'${field}', ${TASK_JSON_SQL[field]}`)
		.join(", ");
	const filter = byStatus ? ` AND ${SEEN_STATUS} IN (SELECT value FROM json_each(@statuses))` : "";
	const rows = inOrder
		? `SELECT t.* FROM json_each(@order) o CROSS JOIN tasks t ON t.run_id = @runId AND t.id = o.value WHERE 1${filter} ORDER BY o.key`
		: `SELECT t.* FROM tasks t WHERE t.run_id = @runId${filter} ORDER BY t.idx`;
	return `SELECT json_group_array(json_object(${object})) FROM (${rows}) t`;
}
