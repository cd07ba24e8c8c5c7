// SQL that marks a run whose tasks views may list in another order than the one they joined it in.

/**
 * SQL that marks the run `runId` as `reordered` when one of the tasks `tasks` (a JSON array of ids;
 * null for all) waits for a task that joined after it or belongs to a script's phase: then the
 * order the run's tasks joined in may not be the order views list them in (see `taskOrder`), which
 * they otherwise are. Once marked, a run stays so. Both are SQL expressions. (CROSS JOIN keeps
 * SQLite looking each dependency up rather than scanning the later tasks for each task.)
 */
export function reorderedSql(runId: string, tasks: string): string {
	return `UPDATE runs SET reordered = 1 WHERE id = ${runId} AND reordered = 0 AND EXISTS (
	SELECT 1 FROM task_details d JOIN tasks t ON t.run_id = d.run_id AND t.id = d.task_id
	WHERE d.run_id = ${runId} AND (${tasks} IS NULL OR d.task_id IN (SELECT value FROM json_each(${tasks})))
		AND (d.phase IS NOT NULL OR EXISTS (
			SELECT 1 FROM json_each(d.depends_on) j CROSS JOIN tasks u ON u.run_id = d.run_id AND u.id = j.value WHERE u.idx > t.idx)))`;
}
