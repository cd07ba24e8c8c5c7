// SQLite schema migrations of the store, applied in order when it opens, and the SQL of a run's usage totals.

import { reorderedSql } from "./reordered-sql.js";

/**
 * SQL that makes the `usage_totals` rows of the runs `runs` names (a table, or a subquery, with an
 * `id` column) from their tasks and attempts, as the store keeps them: by each role of their tasks,
 * used or not, and by each model (a runtime's name for an attempt without one) that reported.
 */
export function usageTotalsOf(runs: string): readonly [string, string] {
	return [
		`INSERT INTO usage_totals (run_id, by, key, input, output, cache_read, cache_write, cost, partial)
SELECT t.run_id, 'role', t.role, sum(t.tokens_in), sum(t.tokens_out), sum(t.cache_read), sum(t.cache_write), sum(t.cost),
	sum((SELECT count(*) FROM attempts a WHERE a.run_id = t.run_id AND a.task_id = t.id AND a.usage ->> '$.partial'))
FROM tasks t WHERE t.run_id IN (SELECT id FROM ${runs}) GROUP BY t.run_id, t.role`,
		`INSERT INTO usage_totals (run_id, by, key, input, output, cache_read, cache_write, cost, partial)
SELECT a.run_id, 'model', coalesce(a.model, a.runtime), sum(a.usage ->> '$.input'), sum(a.usage ->> '$.output'),
	sum(a.usage ->> '$.cacheRead'), sum(a.usage ->> '$.cacheWrite'), sum(a.usage ->> '$.cost'),
	sum(coalesce(a.usage ->> '$.partial', 0))
FROM attempts a WHERE a.usage IS NOT NULL AND a.run_id IN (SELECT id FROM ${runs})
GROUP BY a.run_id, coalesce(a.model, a.runtime)`,
	];
}

/** Schema versions in order; each runs once, in its own transaction, recorded in `migrations`. */
export const MIGRATIONS: readonly { readonly version: number; readonly name: string; readonly sql: string }[] = [
	{
		version: 1,
		name: "runs, tasks, attempts, events, artifacts",
		sql: `
CREATE TABLE runs (
	id TEXT PRIMARY KEY,
	goal TEXT NOT NULL,
	team TEXT,
	workflow TEXT NOT NULL,
	status TEXT NOT NULL,
	options TEXT NOT NULL,
	created_at TEXT NOT NULL,
	updated_at TEXT NOT NULL,
	finished_at TEXT,
	error TEXT,
	cancel_requested TEXT,
	epoch INTEGER NOT NULL DEFAULT 0,
	lease_pid INTEGER,
	lease_host TEXT,
	lease_start TEXT,
	lease_heartbeat INTEGER,
	last_seq INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE tasks (
	run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
	idx INTEGER NOT NULL,
	id TEXT NOT NULL,
	step_id TEXT NOT NULL,
	role TEXT NOT NULL,
	status TEXT NOT NULL,
	attempts INTEGER NOT NULL DEFAULT 0,
	started_at TEXT,
	finished_at TEXT,
	error TEXT,
	result_chars INTEGER NOT NULL DEFAULT 0,
	tokens_in INTEGER NOT NULL DEFAULT 0,
	tokens_out INTEGER NOT NULL DEFAULT 0,
	cache_read INTEGER NOT NULL DEFAULT 0,
	cache_write INTEGER NOT NULL DEFAULT 0,
	cost REAL NOT NULL DEFAULT 0,
	PRIMARY KEY (run_id, idx)
) WITHOUT ROWID;
CREATE UNIQUE INDEX tasks_by_id ON tasks (run_id, id);
-- What a task needs to run and what dependents read, kept out of the status rows so reading a
-- run's status scans small rows only.
CREATE TABLE task_data (
	run_id TEXT NOT NULL,
	task_id TEXT NOT NULL,
	spec TEXT NOT NULL,
	result_excerpt TEXT,
	PRIMARY KEY (run_id, task_id),
	FOREIGN KEY (run_id, task_id) REFERENCES tasks (run_id, id) ON DELETE CASCADE
) WITHOUT ROWID;
CREATE TABLE attempts (
	id INTEGER PRIMARY KEY,
	run_id TEXT NOT NULL,
	task_id TEXT NOT NULL,
	number INTEGER NOT NULL,
	epoch INTEGER NOT NULL,
	runtime TEXT NOT NULL,
	status TEXT NOT NULL,
	pid INTEGER,
	pgid INTEGER,
	proc_start TEXT,
	started_at TEXT NOT NULL,
	finished_at TEXT,
	exit_code INTEGER,
	error TEXT,
	retryable INTEGER,
	usage TEXT,
	FOREIGN KEY (run_id, task_id) REFERENCES tasks (run_id, id) ON DELETE CASCADE,
	UNIQUE (run_id, task_id, number)
);
CREATE INDEX attempts_by_status ON attempts (run_id, status);
CREATE TABLE events (
	run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
	seq INTEGER NOT NULL,
	time TEXT NOT NULL,
	type TEXT NOT NULL,
	task_id TEXT,
	data TEXT NOT NULL,
	PRIMARY KEY (run_id, seq)
) WITHOUT ROWID;
CREATE TABLE artifacts (
	run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
	path TEXT NOT NULL,
	task_id TEXT,
	kind TEXT NOT NULL,
	size INTEGER NOT NULL,
	sha256 TEXT NOT NULL,
	created_at TEXT NOT NULL,
	PRIMARY KEY (run_id, path)
) WITHOUT ROWID;
`,
	},
	{
		version: 2,
		name: "the model of each attempt",
		sql: "ALTER TABLE attempts ADD COLUMN model TEXT;",
	},
	{
		version: 3,
		name: "approval of gated tasks",
		sql: "ALTER TABLE tasks ADD COLUMN approved_at TEXT;",
	},
	{
		version: 4,
		name: "what a failed check printed, for the task's next attempt",
		sql: "ALTER TABLE task_data ADD COLUMN evidence TEXT;",
	},
	{
		version: 5,
		name: "failed --until checks that a later pass answered are superseded",
		sql: `
UPDATE tasks SET status = 'superseded'
WHERE status = 'failed' AND step_id = 'until' AND EXISTS (
	SELECT 1 FROM task_data mine, task_data later
	WHERE mine.run_id = tasks.run_id AND mine.task_id = tasks.id AND later.run_id = tasks.run_id
		AND json_extract(later.spec, '$.until.iteration') > json_extract(mine.spec, '$.until.iteration')
);`,
	},
	{
		version: 6,
		name: "how a worktree run's branches were integrated",
		sql: "ALTER TABLE runs ADD COLUMN integration TEXT;",
	},
	{
		version: 7,
		name: "whether a task's usage is a lower bound",
		sql: "ALTER TABLE tasks ADD COLUMN usage_partial INTEGER NOT NULL DEFAULT 0;",
	},
	{
		version: 8,
		name: "runs this store did not make here (imported, or in a store copied from elsewhere), and where it was made",
		sql: `
ALTER TABLE runs ADD COLUMN imported_at TEXT;
CREATE TABLE store_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;`,
	},
	{
		version: 9,
		name: "what views read kept per task, and events indexed by task",
		// A task's latest event (changed_seq), its latest worker event other than usage (activity_seq)
		// and that event's line (activity) are kept by every write of an event, and who runs it and
		// what it waits for by every write of its spec (task_details), so views read neither the
		// event log nor specs (see ViewRows). The lines of earlier events are read from their event.
		// Each task counts as changed at the migration: a reader that asks what changed since an
		// older seq reads it again.
		sql: `
CREATE INDEX events_by_task ON events (run_id, task_id, seq);
CREATE INDEX artifacts_by_task ON artifacts (run_id, task_id, path);
ALTER TABLE tasks ADD COLUMN changed_seq INTEGER NOT NULL DEFAULT 0;
ALTER TABLE tasks ADD COLUMN activity_seq INTEGER;
ALTER TABLE tasks ADD COLUMN activity TEXT;
CREATE TABLE task_details (
	run_id TEXT NOT NULL,
	task_id TEXT NOT NULL,
	agent TEXT,
	runtime TEXT,
	model TEXT,
	depends_on TEXT,
	phase TEXT,
	PRIMARY KEY (run_id, task_id),
	FOREIGN KEY (run_id, task_id) REFERENCES tasks (run_id, id) ON DELETE CASCADE
) WITHOUT ROWID;
INSERT INTO task_details SELECT run_id, task_id, spec ->> '$.agent.name', spec ->> '$.agent.runtime',
	spec ->> '$.agent.model', coalesce(spec -> '$.call.after', spec -> '$.dependsOn'), spec ->> '$.call.phase'
FROM task_data;
UPDATE tasks SET
	changed_seq = (SELECT last_seq FROM runs WHERE runs.id = tasks.run_id),
	activity_seq = (
		SELECT max(seq) FROM events e INDEXED BY events_by_task
		WHERE e.run_id = tasks.run_id AND e.task_id = tasks.id AND e.type LIKE 'worker.%' AND e.type <> 'worker.usage'
	);`,
	},
	{
		version: 10,
		name: "each run's usage summed by role and by model, and whether its tasks joined in the order views list them",
		// partial counts the attempts summed whose usage is a lower bound. See UsageRecords.
		sql: `
CREATE TABLE usage_totals (
	run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
	by TEXT NOT NULL,
	key TEXT NOT NULL,
	input INTEGER NOT NULL DEFAULT 0,
	output INTEGER NOT NULL DEFAULT 0,
	cache_read INTEGER NOT NULL DEFAULT 0,
	cache_write INTEGER NOT NULL DEFAULT 0,
	cost REAL NOT NULL DEFAULT 0,
	partial INTEGER NOT NULL DEFAULT 0,
	PRIMARY KEY (run_id, by, key)
) WITHOUT ROWID;
${usageTotalsOf("runs").join(";\n")};
ALTER TABLE runs ADD COLUMN reordered INTEGER NOT NULL DEFAULT 0;
${reorderedSql("runs.id", "NULL")};`,
	},
	{
		version: 11,
		name: "how each attempt's processes were confined",
		// JSON {level, readOnly}; NULL for an attempt recorded by an older crew, which confined none.
		// A task's is its latest attempt's, so views need not look for that attempt.
		sql: "ALTER TABLE attempts ADD COLUMN sandbox TEXT; ALTER TABLE tasks ADD COLUMN sandbox TEXT;",
	},
	{
		version: 12,
		name: "messages for running agents, and how each was delivered",
		// kind 'steer': state queued | delivered | refused, detail the refusal's reason.
		sql: `
CREATE TABLE messages (
	id INTEGER PRIMARY KEY,
	run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
	task_id TEXT NOT NULL,
	kind TEXT NOT NULL,
	text TEXT NOT NULL,
	state TEXT NOT NULL,
	detail TEXT,
	attempt_id INTEGER,
	created_at TEXT NOT NULL,
	settled_at TEXT
);
CREATE INDEX messages_by_state ON messages (run_id, state);`,
	},
	{
		version: 13,
		name: "notifications sent of runs' events, each once per target",
		// state: sending | sent | failed; a row is claimed before its first try, so none is sent twice.
		sql: `
CREATE TABLE notifications (
	run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
	seq INTEGER NOT NULL,
	target TEXT NOT NULL,
	event TEXT NOT NULL,
	state TEXT NOT NULL,
	tries INTEGER NOT NULL DEFAULT 0,
	error TEXT,
	created_at TEXT NOT NULL,
	sent_at TEXT,
	PRIMARY KEY (run_id, seq, target)
) WITHOUT ROWID;
CREATE INDEX notifications_by_state ON notifications (state);`,
	},
	{
		version: 14,
		name: "questions a running agent asks a person, and their answers",
		// kind 'question': state asked | answered | delivered | withdrawn; text the question.
		sql: `
ALTER TABLE messages ADD COLUMN answer TEXT;
ALTER TABLE messages ADD COLUMN answered_at TEXT;
CREATE INDEX messages_by_task ON messages (run_id, task_id, kind);`,
	},
	{
		version: 15,
		name: "mail a workflow script sends, and the replies it gathers",
		// kind 'mail': name the mail's id in its run (its place in the script), task_id the task it
		// was given to or '' (a person), state sent | replied, answer the reply.
		sql: `
ALTER TABLE messages ADD COLUMN name TEXT;
CREATE UNIQUE INDEX messages_by_name ON messages (run_id, name) WHERE name IS NOT NULL;`,
	},
	{
		version: 16,
		name: "runs forked from another run, and the tasks they took from it",
		// inherited: JSON {runId, taskId, usage}: the task's outcome is that task's, its usage spent there.
		sql: "ALTER TABLE runs ADD COLUMN forked_from TEXT; ALTER TABLE tasks ADD COLUMN inherited TEXT;",
	},
	{
		version: 17,
		name: "each attempt's agent session, whether it continued an earlier one, and the workspace it left",
		// session: JSON AgentSession; origin: JSON SessionOrigin; workspace_left: a workspace fingerprint;
		// evidence: 1 when its failure carried a check's output (task_data.evidence), which the next attempt is told.
		sql: `
ALTER TABLE attempts ADD COLUMN evidence INTEGER NOT NULL DEFAULT 0;
ALTER TABLE attempts ADD COLUMN session TEXT;
ALTER TABLE attempts ADD COLUMN origin TEXT;
ALTER TABLE attempts ADD COLUMN workspace_left TEXT;`,
	},
	{
		version: 18,
		name: "schedules of runs, and what became of each of their slots",
		// spec: JSON ScheduleSpec; ask: JSON of the run asked for (goal and crew run's options);
		// overlap: skip | allow | queue; created_at and the slots: ms since 1970. A slot is claimed
		// once, by inserting its row: outcome started (run_id its run), skipped (reason why) or now
		// (run_id a run started outside the slots); missed counts the slots it stands in for.
		sql: `
CREATE TABLE schedules (
  name TEXT PRIMARY KEY,
  spec TEXT NOT NULL,
  ask TEXT NOT NULL,
  overlap TEXT NOT NULL,
  paused INTEGER NOT NULL DEFAULT 0,
  created_at INTEGER NOT NULL,
  last_slot INTEGER
);
CREATE TABLE schedule_slots (
  schedule TEXT NOT NULL,
  slot INTEGER NOT NULL,
  outcome TEXT NOT NULL,
  run_id TEXT,
  missed INTEGER NOT NULL DEFAULT 0,
  reason TEXT,
  at INTEGER NOT NULL,
  PRIMARY KEY (schedule, slot)
);`,
	},
	{
		version: 19,
		name: "collisions between a run's tasks' changes foreseen while they worked",
		// foreseen: JSON array of ForeseenCollision, oldest first; null until one is foreseen.
		sql: "ALTER TABLE runs ADD COLUMN foreseen TEXT;",
	},
	{
		version: 20,
		name: "the git folders each task's attempts left in their workspace, which crew moved out of it",
		// set_aside: JSON array of {attempt, path, kind, movedTo?, shared}, in the order found; null while none.
		sql: "ALTER TABLE tasks ADD COLUMN set_aside TEXT;",
	},
	{
		version: 21,
		name: "runs an agent inside another run delegated, and the attempt that delegated each",
		// parent_*: the delegating task's run, task and attempt; delegation_key: what makes a later
		// attempt's delegation the same work (see delegationKey), so a completed one is not run again.
		sql: `
ALTER TABLE runs ADD COLUMN parent_run TEXT;
ALTER TABLE runs ADD COLUMN parent_task TEXT;
ALTER TABLE runs ADD COLUMN parent_attempt INTEGER;
ALTER TABLE runs ADD COLUMN delegation_key TEXT;
CREATE INDEX runs_by_parent ON runs (parent_run, parent_task) WHERE parent_run IS NOT NULL;`,
	},
];
