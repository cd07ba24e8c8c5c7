// Row shapes of the store's tables and their conversion to the records the rest of crew reads.

import type {
	ArtifactRecord,
	AttemptRecord,
	EventRecord,
	ForeseenCollision,
	InheritedOutcome,
	RunRecord,
	SetAsideRecord,
	TaskRecord,
} from "../core/records.js";
import type { AgentSession, SessionOrigin } from "../core/session.js";
import type { RunStatus, TaskStatus } from "../core/status.js";
import type { IntegrationRecord, RunOptions } from "../core/types.js";
import type { Usage } from "../core/usage.js";
import { ZERO_USAGE } from "../core/usage.js";

export interface RunRow {
	id: string;
	goal: string;
	team: string | null;
	workflow: string;
	status: string;
	options: string;
	created_at: string;
	updated_at: string;
	finished_at: string | null;
	error: string | null;
	cancel_requested: string | null;
	epoch: number;
	lease_pid: number | null;
	lease_host: string | null;
	lease_start: string | null;
	lease_heartbeat: number | null;
	integration: string | null;
	imported_at: string | null;
	forked_from: string | null;
	foreseen: string | null;
	parent_run: string | null;
	parent_task: string | null;
	parent_attempt: number | null;
}

export interface TaskRow {
	id: string;
	idx: number;
	step_id: string;
	role: string;
	status: string;
	attempts: number;
	started_at: string | null;
	finished_at: string | null;
	error: string | null;
	result_chars: number;
	tokens_in: number;
	tokens_out: number;
	cache_read: number;
	cache_write: number;
	cost: number;
	usage_partial: number;
	sandbox: string | null;
	inherited: string | null;
	set_aside: string | null;
}

export interface AttemptRow {
	id: number;
	task_id: string;
	number: number;
	epoch: number;
	runtime: string;
	status: string;
	pid: number | null;
	pgid: number | null;
	proc_start: string | null;
	started_at: string;
	finished_at: string | null;
	exit_code: number | null;
	error: string | null;
	retryable: number | null;
	usage: string | null;
	sandbox: string | null;
	model: string | null;
	evidence: number;
	session: string | null;
	origin: string | null;
	workspace_left: string | null;
}

export interface EventRow {
	seq: number;
	time: string;
	type: string;
	task_id: string | null;
	data: string;
}

export function toRun(row: RunRow): RunRecord {
	return {
		id: row.id,
		status: row.status as RunStatus,
		goal: row.goal,
		team: row.team,
		workflow: row.workflow,
		options: JSON.parse(row.options) as RunOptions,
		createdAt: row.created_at,
		updatedAt: row.updated_at,
		finishedAt: row.finished_at,
		error: row.error,
		cancelRequested: row.cancel_requested,
		epoch: row.epoch,
		lease:
			row.lease_pid === null
				? null
				: {
						epoch: row.epoch,
						pid: row.lease_pid,
						host: row.lease_host ?? "",
						processStart: row.lease_start,
						heartbeatAt: row.lease_heartbeat ?? 0,
					},
		integration: row.integration ? (JSON.parse(row.integration) as IntegrationRecord) : null,
		importedAt: row.imported_at ?? null,
		forkedFrom: row.forked_from ?? null,
		parent:
			row.parent_run && row.parent_task
				? { runId: row.parent_run, taskId: row.parent_task, attempt: row.parent_attempt ?? 0 }
				: null,
		foreseen: row.foreseen ? (JSON.parse(row.foreseen) as ForeseenCollision[]) : [],
	};
}

export function toTask(row: TaskRow): TaskRecord {
	return {
		id: row.id,
		index: row.idx,
		stepId: row.step_id,
		role: row.role,
		status: row.status as TaskStatus,
		attempts: row.attempts,
		startedAt: row.started_at,
		finishedAt: row.finished_at,
		error: row.error,
		resultChars: row.result_chars,
		usage: {
			input: row.tokens_in,
			output: row.tokens_out,
			cacheRead: row.cache_read,
			cacheWrite: row.cache_write,
			cost: row.cost,
			...(row.usage_partial ? { partial: true } : {}),
		},
		sandbox: sandboxOf(row.sandbox),
		inherited: inheritedOf(row.inherited),
		setAside: setAsideOf(row.set_aside),
	};
}

export function toAttempt(row: AttemptRow): AttemptRecord {
	return {
		id: row.id,
		taskId: row.task_id,
		number: row.number,
		epoch: row.epoch,
		runtime: row.runtime,
		status: row.status,
		process: row.pid === null ? null : { pid: row.pid, pgid: row.pgid ?? row.pid, startTime: row.proc_start },
		startedAt: row.started_at,
		finishedAt: row.finished_at,
		exitCode: row.exit_code,
		error: row.error,
		retryable: row.retryable === null ? null : row.retryable === 1,
		usage: usageOf(row.usage),
		sandbox: sandboxOf(row.sandbox),
		model: row.model,
		evidence: row.evidence === 1,
		session: row.session === null ? null : (JSON.parse(row.session) as AgentSession),
		origin: row.origin === null ? null : (JSON.parse(row.origin) as SessionOrigin),
		workspaceLeft: row.workspace_left,
	};
}

/** An attempt's stored usage: nothing before its first report. */
export function usageOf(json: string | null): Usage {
	return json === null ? ZERO_USAGE : { ...ZERO_USAGE, ...(JSON.parse(json) as Partial<Usage>) };
}

export function toEvent(row: EventRow): EventRecord {
	return {
		seq: row.seq,
		time: row.time,
		type: row.type,
		taskId: row.task_id,
		data: JSON.parse(row.data) as Record<string, unknown>,
	};
}

/** A task from a raw row in the column order of `TaskRow`. */
export function taskFromArray(r: unknown[]): TaskRecord {
	return {
		id: r[0] as string,
		index: r[1] as number,
		stepId: r[2] as string,
		role: r[3] as string,
		status: r[4] as TaskStatus,
		attempts: r[5] as number,
		startedAt: r[6] as string | null,
		finishedAt: r[7] as string | null,
		error: r[8] as string | null,
		resultChars: r[9] as number,
		usage: usageFromArray(r),
		sandbox: sandboxOf(r[16] as string | null),
		inherited: inheritedOf(r[17] as string | null),
		origin: r[18] === null || r[18] === undefined ? null : (JSON.parse(r[18] as string) as SessionOrigin),
		setAside: setAsideOf((r[19] as string | null | undefined) ?? null),
	};
}

/** The git folders a task's attempts left, as stored: none when null. */
export function setAsideOf(text: string | null): SetAsideRecord[] {
	return text === null ? [] : (JSON.parse(text) as SetAsideRecord[]);
}

/** A forked task's inherited outcome, as stored; null for any other task. */
export function inheritedOf(text: string | null): InheritedOutcome | null {
	return text === null ? null : (JSON.parse(text) as InheritedOutcome);
}

/** A stored sandbox: null for a task or attempt recorded by an older crew, or not yet started. */
export function sandboxOf(text: string | null): AttemptRecord["sandbox"] {
	return text === null ? null : (JSON.parse(text) as AttemptRecord["sandbox"]);
}

/** A task's usage from a raw row in the column order of `TaskRow`. */
export function usageFromArray(r: unknown[]): Usage {
	const usage = {
		input: r[10] as number,
		output: r[11] as number,
		cacheRead: r[12] as number,
		cacheWrite: r[13] as number,
		cost: r[14] as number,
	};
	return r[15] ? { ...usage, partial: true } : usage;
}

export interface ArtifactRow {
	path: string;
	task_id: string | null;
	kind: string;
	size: number;
	sha256: string;
	created_at: string;
}

export function toArtifact(row: ArtifactRow): ArtifactRecord {
	return {
		path: row.path,
		taskId: row.task_id,
		kind: row.kind,
		size: row.size,
		sha256: row.sha256,
		createdAt: row.created_at,
	};
}
