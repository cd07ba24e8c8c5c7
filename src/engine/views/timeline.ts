// A run's timeline: every attempt of every task and every wait between them, on the run's wall clock.

import type { AttemptRecord, EventRecord, ListedTask } from "../../core/records.js";
import type { Usage } from "../../core/usage.js";

/** What a bar of the timeline stands for: an attempt running, or one of the waits a task meets. */
export type BarKind = "running" | "approval" | "question" | "backoff";

export interface TimelineBar {
	readonly kind: BarKind;
	/** ms from the run's start. */
	readonly start: number;
	/** ms from the run's start; null while it lasts. */
	readonly end: number | null;
	/** The attempt it belongs to: the one running, asking, or backing off before the next. */
	readonly attempt: number | null;
	/** For a running bar: how the attempt ended (null while it runs), its error and its usage. */
	readonly status: string | null;
	/** Why it waits, or why its attempt failed: the recorded words, as the task's events give them. */
	readonly reason: string | null;
	readonly usage: Usage | null;
}

export interface TimelineTask {
	readonly id: string;
	readonly stepId: string;
	readonly role: string;
	readonly status: string;
	/** Whether it lies on the critical path: the chain of tasks, each waiting for the one before, that ended last. */
	readonly critical: boolean;
	readonly bars: readonly TimelineBar[];
}

export interface Timeline {
	/** The run's start and end (null while it runs), and the moment this was read, as ISO times. */
	readonly start: string;
	readonly end: string | null;
	readonly now: string;
	/** ms from the start to the end, or to now while the run runs. */
	readonly span: number;
	readonly tasks: readonly TimelineTask[];
}

/** The task events that change what a task does: each one ends its bar, if it has one, and may begin the next. */
export const TIMELINE_EVENTS = [
	"task.queued",
	"task.running",
	"task.waiting",
	"task.completed",
	"task.failed",
	"task.cancelled",
	"task.skipped",
	"task.interrupted",
	"task.superseded",
	"task.needs_attention",
] as const;

interface TimelineInput {
	readonly run: { readonly createdAt: string; readonly finishedAt: string | null };
	/** In DAG order. */
	readonly tasks: readonly ListedTask[];
	readonly attempts: readonly AttemptRecord[];
	/** The run's events of `TIMELINE_EVENTS`, in order. */
	readonly events: readonly EventRecord[];
	readonly now: number;
}

/**
 * The timeline of a run from its records: a task's bars follow its status events (an attempt runs
 * from `task.running` until the task leaves `running`; a wait lasts from the event that began it
 * to the next), each running bar carrying its attempt's outcome and usage.
 */
export function timeline({ run, tasks, attempts, events, now }: TimelineInput): Timeline {
	const start = Date.parse(run.createdAt);
	const at = (iso: string) => Math.max(0, Date.parse(iso) - start);
	const attemptOf = new Map(attempts.map((a) => [`${a.taskId}\0${a.number}`, a]));
	const eventsOf = new Map<string, EventRecord[]>();
	for (const e of events) {
		if (e.taskId === null) continue;
		const list = eventsOf.get(e.taskId) ?? [];
		list.push(e);
		eventsOf.set(e.taskId, list);
	}
	const barsOf = new Map(
		tasks.map((t) => [t.id, bars(eventsOf.get(t.id) ?? [], (n) => attemptOf.get(`${t.id}\0${n}`), at)]),
	);
	const end = run.finishedAt === null ? null : at(run.finishedAt);
	const critical = criticalPath(tasks, barsOf);
	return {
		start: run.createdAt,
		end: run.finishedAt,
		now: new Date(now).toISOString(),
		span: end ?? Math.max(0, now - start),
		tasks: tasks.map((t) => ({
			id: t.id,
			stepId: t.stepId,
			role: t.role,
			status: t.status,
			critical: critical.has(t.id),
			bars: barsOf.get(t.id) ?? [],
		})),
	};
}

/** A task's bars from its status events, in order. */
function bars(
	events: readonly EventRecord[],
	attemptOf: (n: number) => AttemptRecord | undefined,
	at: (iso: string) => number,
): TimelineBar[] {
	const out: TimelineBar[] = [];
	let open: Omit<TimelineBar, "end"> | null = null;
	let attempt: number | null = null;
	for (const e of events) {
		const time = at(e.time);
		const to = e.type.slice("task.".length);
		const error = typeof e.data.error === "string" ? e.data.error : null;
		// An attempt that asks goes on after the answer: its outcome and usage belong to its last bar.
		if (open?.kind === "running" && e.data.cause === "ask") out.push({ ...open, end: time, status: "asked" });
		else if (open) out.push({ ...open, end: time, ...figures(open, attemptOf) });
		open = null;
		if (to === "running") {
			// An answered question takes the task back to running in the same attempt, whose number the event does not repeat.
			if (typeof e.data.attempt === "number") attempt = e.data.attempt;
			open = { kind: "running", start: time, attempt, status: null, reason: null, usage: null };
		} else if (to === "waiting") {
			const kind = e.data.cause === "ask" ? "question" : "approval";
			open = {
				kind,
				start: time,
				attempt: kind === "question" ? attempt : null,
				status: null,
				reason: error,
				usage: null,
			};
		} else if (to === "queued" && e.data.cause === "backoff") {
			open = { kind: "backoff", start: time, attempt, status: null, reason: error, usage: null };
		}
	}
	if (open) out.push({ ...open, end: null, ...figures(open, attemptOf) });
	return out;
}

/** A running bar's attempt outcome and usage, from its attempt's record. */
function figures(
	bar: Omit<TimelineBar, "end">,
	attemptOf: (n: number) => AttemptRecord | undefined,
): Partial<TimelineBar> {
	if (bar.kind !== "running" || bar.attempt === null) return {};
	const a = attemptOf(bar.attempt);
	if (!a) return {};
	return { status: a.finishedAt === null ? null : a.status, reason: a.error, usage: a.usage };
}

/**
 * The tasks of the critical path: from the task whose last bar ended last, back through the
 * dependency whose last bar ended last, and so on to a task that waited for none that ran.
 */
function criticalPath(tasks: readonly ListedTask[], barsOf: ReadonlyMap<string, readonly TimelineBar[]>): Set<string> {
	const endOf = (id: string): number | undefined => {
		const last = barsOf.get(id)?.at(-1);
		return last === undefined ? undefined : (last.end ?? Number.POSITIVE_INFINITY);
	};
	const byId = new Map(tasks.map((t) => [t.id, t]));
	const latest = (ids: readonly string[]) => {
		let best: string | undefined;
		for (const id of ids) {
			const end = endOf(id);
			if (end !== undefined && (best === undefined || end > (endOf(best) as number))) best = id;
		}
		return best;
	};
	const path = new Set<string>();
	for (let id = latest(tasks.map((t) => t.id)); id !== undefined && !path.has(id); ) {
		path.add(id);
		id = latest(byId.get(id)?.dependsOn ?? []);
	}
	return path;
}
