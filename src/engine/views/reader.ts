// `RunReader`: read-only access to a project's runs one at a time (tasks, events, files, results), as people see them.

import type { Project } from "../../config/project.js";
import { CrewError, ErrorCode } from "../../core/errors.js";
import { checkId } from "../../core/ids.js";
import { logEntry } from "../../core/log-line.js";
import type {
	ArtifactRecord,
	AttemptRecord,
	EventRecord,
	ListedTask,
	RunRecord,
	TaskRecord,
	TaskView,
} from "../../core/records.js";
import type { RequirementRow } from "../../core/spec-coverage.js";
import type { RunStatus } from "../../core/status.js";
import type { StatusSelection } from "../../core/status-selection.js";
import { taskOrder } from "../../core/task-order.js";
import type { TaskSpec } from "../../core/types.js";
import type { Usage } from "../../core/usage.js";
import { ArtifactFiles } from "../../store/artifact-files.js";
import type { ChildRun } from "../../store/run-delegations.js";
import type { RunQueries } from "../../store/run-queries.js";
import { type TaskLinks, ViewQueries } from "../../store/view-queries.js";
import { runSummary, spentJson, usageWithNested } from "./json.js";
import { ReadConnection } from "./read-connection.js";
import { RepoReader } from "./repo-reader.js";
import { presentRun, type RunChanges, type RunListing, type RunView } from "./run-view.js";
import { TIMELINE_EVENTS, type Timeline, timeline } from "./timeline.js";

const NO_LINKS: TaskLinks = { dependsOn: [], phase: null };

/**
 * Read-only access to the runs of a project, one run at a time, through a read-only connection
 * (see `ReadConnection`), so readers never block a runner and always see a committed state;
 * `repo` reads across the runs through the same connection.
 */
export class RunReader {
	readonly project: Project;
	readonly files: ArtifactFiles;
	/** The reads across the project's runs, through this reader's connection: `close` closes both. */
	readonly repo: RepoReader;
	readonly #connection: ReadConnection;
	readonly #views: ViewQueries | null;
	readonly #now: () => number;

	constructor(project: Project, options: { now?: () => number } = {}) {
		this.project = project;
		this.files = new ArtifactFiles(project.runsDir);
		this.#connection = new ReadConnection(project);
		const db = this.#connection.db;
		this.#views = db ? new ViewQueries(db) : null;
		this.#now = options.now ?? Date.now;
		this.repo = new RepoReader(this.#connection, this.#now);
	}

	close(): void {
		this.#connection.close();
	}

	/**
	 * What `read` gives, read again when it found the run's runner gone: a runner records its run's
	 * end before it exits, so a read that saw the run going on, then its runner gone, may have come
	 * just before that end, which a second read sees.
	 */
	#settled<T>(read: () => { readonly value: T; readonly gone: boolean }): T {
		const first = read();
		return first.gone ? read().value : first.value;
	}

	#q(): RunQueries {
		return this.#connection.runQueries();
	}

	#v(): ViewQueries {
		this.#q();
		return this.#views as ViewQueries;
	}

	#runId(runId: string | undefined): string {
		if (runId !== undefined) checkId("run", runId);
		const id = runId ?? this.#q().latestRunId();
		if (id === undefined) throw new CrewError(ErrorCode.NotFound, `no runs yet in ${this.project.root}`);
		return id;
	}

	/**
	 * A run (default: the most recently created) with its tasks in the order every view lists them
	 * (see `taskOrder`), as of one committed state.
	 */
	status(runId?: string): RunListing {
		const id = this.#runId(runId);
		const q = this.#q();
		return this.#settled(() =>
			q.consistent(() => {
				const snapshot = q.snapshot(id);
				const { run, tasks } = presentRun(snapshot, this.#now());
				const links = (this.#views as ViewQueries).links(id);
				const listed = taskOrder(tasks.map((t): ListedTask => ({ ...t, ...(links.get(t.id) ?? NO_LINKS) })));
				return { value: { run, tasks: listed }, gone: run.status !== snapshot.run.status };
			}),
		);
	}

	/**
	 * A run with its tasks as live views show them, in the order every view lists them (see
	 * `taskOrder`), as of one committed state.
	 */
	view(runId?: string): RunView {
		const { run, tasks, seq } = this.#changed(this.#runId(runId), -1);
		return { run, tasks: taskOrder(tasks), seq };
	}

	/**
	 * What changed in a run after event `afterSeq` (a `seq` of an earlier view), as of one
	 * committed state: the run, its tasks whose latest event came after it and its running ones
	 * (whose runner may be found gone without an event), in the order they joined; merge them into
	 * the earlier view with `mergeView`. After 0 it gives every task.
	 */
	changes(runId: string, afterSeq: number): RunChanges {
		checkId("run", runId);
		if (!Number.isSafeInteger(afterSeq) || afterSeq < 0) {
			throw new CrewError(ErrorCode.InvalidInput, `invalid seq ${afterSeq}: expected an integer >= 0`);
		}
		return this.#changed(runId, afterSeq);
	}

	#changed(id: string, since: number): RunChanges {
		const q = this.#q();
		const views = this.#v();
		return this.#settled(() =>
			q.consistent(() => {
				const stored = q.getRun(id);
				const { run, tasks } = presentRun({ run: stored, tasks: views.changedTasks(id, since) }, this.#now());
				return {
					value: { run, tasks, seq: views.lastSeq(id), usage: q.usage(id) },
					gone: run.status !== stored.status,
				};
			}),
		);
	}

	/** One task (by task id, or a step id naming one task) as the run's view shows it, with its run. */
	taskView(runId: string, ref: string): { run: RunRecord; task: TaskView } {
		checkId("run", runId);
		const q = this.#q();
		const views = this.#v();
		return this.#settled(() =>
			q.consistent(() => {
				const stored = q.getRun(runId);
				const found = views.task(runId, q.findTask(runId, ref).id) as TaskView;
				const { run, tasks } = presentRun({ run: stored, tasks: [found] }, this.#now());
				return { value: { run, task: tasks[0] as TaskView }, gone: run.status !== stored.status };
			}),
		);
	}

	/** A task's events after `afterSeq`, with the task as it is now. */
	taskEvents(runId: string, ref: string, afterSeq = 0): { task: TaskRecord; events: EventRecord[] } {
		checkId("run", runId);
		const q = this.#q();
		return q.consistent(() => {
			q.getRun(runId);
			const task = q.findTask(runId, ref);
			return { task, events: this.#v().taskEvents(runId, task.id, afterSeq) };
		});
	}

	/**
	 * The latest `limit` events of a task that make a line of its log (see `logEntry`), oldest
	 * first, read from its newest event back.
	 */
	taskLog(runId: string, taskId: string, limit: number): EventRecord[] {
		checkId("run", runId);
		const q = this.#q();
		const views = this.#v();
		if (limit <= 0) return [];
		return q.consistent(() => {
			const kept: EventRecord[] = [];
			let before = Number.MAX_SAFE_INTEGER;
			for (;;) {
				const page = views.taskEventsBefore(runId, taskId, before, Math.max(100, limit));
				for (const event of page) {
					if (logEntry(event)) kept.push(event);
					if (kept.length === limit) return kept.reverse();
				}
				const last = page.at(-1);
				if (!last || page.length < Math.max(100, limit)) return kept.reverse();
				before = last.seq;
			}
		});
	}

	/** The requirements of a run's specs as they stand (see `RunQueries.requirements`). */
	requirements(runId?: string): RequirementRow[] {
		return this.#q().requirements(this.#runId(runId));
	}

	/** Run `runId`'s tasks as planned: each with its agent as resolved then. */
	taskSpecs(runId: string): TaskSpec[] {
		return this.#q().taskSpecs(this.#runId(runId));
	}

	/** A task's attempts, oldest first. */
	taskAttempts(runId: string, taskId: string): AttemptRecord[] {
		checkId("run", runId);
		return this.#v().taskAttempts(runId, taskId);
	}

	/** The files a task produced, by path. */
	taskArtifacts(runId: string, taskId: string): ArtifactRecord[] {
		checkId("run", runId);
		return this.#v().taskArtifacts(runId, taskId);
	}

	/** The run's artifact at `path`, if it has one. */
	artifact(runId: string, path: string): ArtifactRecord | undefined {
		checkId("run", runId);
		return this.#q().artifact(runId, path);
	}

	/** A run without its tasks, as people see it. */
	run(runId: string): RunRecord {
		const id = this.#runId(runId);
		return this.#settled(() => {
			const stored = this.#q().getRun(id);
			const { run } = presentRun({ run: stored, tasks: [] }, this.#now());
			return { value: run, gone: run.status !== stored.status };
		});
	}

	/**
	 * `crew status --json` of a run (default: the latest): `{"run": {id, status, goal, team,
	 * workflow, createdAt, updatedAt, usage, usageByRole, usageByModel}, "tasks": [{id, stepId,
	 * role, status, attempts, startedAt, finishedAt, error, usage}]}` with each usage as
	 * {inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens, costUsd, partial?} (by role and
	 * by model: an object of those by name; `partial: true` when a lower bound), counting every
	 * attempt however it ended, as of one committed state; tasks in the order every view lists them
	 * (see `taskOrder`); and, for a run whose tasks were held to specs, `"requirements"`: a row per
	 * check (see `RequirementRow`). Scripts and the MCP server rely on it. `select` narrows the
	 * tasks listed, and the fields each has; the run part stays whole.
	 */
	statusJson(runId?: string, select: StatusSelection = {}): string {
		const id = this.#runId(runId);
		const q = this.#q();
		return this.#settled(() =>
			q.consistent(() => {
				const stored = q.getRun(id);
				const run = presentRun({ run: stored, tasks: [] }, this.#now()).run;
				// A run whose tasks joined in the order views list them (most runs) is listed as it joined, which SQLite does fastest.
				const order = (this.#views as ViewQueries).reordered(id) ? this.#order(id) : undefined;
				const tasks = q.tasksJson(id, run.status !== stored.status, order, select);
				const spent = spentJson(q, id);
				const required = this.requirements(id);
				const listed = required.length > 0 ? `,"requirements":${JSON.stringify(required)}` : "";
				const value = `{"run":${JSON.stringify({ ...runSummary(run), ...spent })},"tasks":${tasks}${listed}}`;
				return { value, gone: run.status !== stored.status };
			}),
		);
	}

	/** The ids of the run's tasks in the order views list them, or undefined when that is the order they joined in. */
	#order(runId: string): string[] | undefined {
		const joined = [...(this.#views as ViewQueries).links(runId)].map(([task, link]) => ({ id: task, ...link }));
		const ordered = taskOrder(joined);
		return ordered.every((t, i) => t === joined[i]) ? undefined : ordered.map((t) => t.id);
	}

	/** A run's usage summed per role and per model, the runs its agents delegated counted too. */
	usageBy(runId?: string): { role: Record<string, Usage>; model: Record<string, Usage> } {
		return usageWithNested(this.#q(), this.#runId(runId));
	}

	/** The runs the run's tasks delegated, oldest first, each with what it and the runs below it spent. */
	children(runId?: string): ChildRun[] {
		return this.#q().delegations.children(this.#runId(runId));
	}

	events(runId: string, afterSeq = 0, limit?: number): EventRecord[] {
		checkId("run", runId);
		const q = this.#q();
		q.getRun(runId);
		return q.eventsAfter(runId, afterSeq, limit);
	}

	/** The seq of a run's latest event. */
	lastEventSeq(runId: string): number {
		checkId("run", runId);
		const seq = this.#q().lastSeq(runId);
		if (seq === undefined) throw new CrewError(ErrorCode.NotFound, `no run '${runId}' in this repository`);
		return seq;
	}

	/** Whether the run's latest runner stopped it for its budget (a resume with a larger one may not). */
	budgetStopped(runId: string): boolean {
		checkId("run", runId);
		return this.#q().budgetStopped(runId);
	}

	/** The files a run produced, by path. */
	artifacts(runId: string): ArtifactRecord[] {
		checkId("run", runId);
		return this.#q().artifacts(runId);
	}

	/** Every attempt of a run, oldest first. */
	attempts(runId: string): AttemptRecord[] {
		checkId("run", runId);
		return this.#q().attempts(runId);
	}

	/** A run's timeline (see `timeline`), as of one committed state. */
	timeline(runId: string): Timeline {
		const id = this.#runId(runId);
		const q = this.#q();
		return q.consistent(() => {
			const { run, tasks } = this.status(id);
			const events = q.eventsOfTypes(id, TIMELINE_EVENTS);
			return timeline({ run, tasks, attempts: q.attempts(id), events, now: this.#now() });
		});
	}

	/**
	 * What a workflow script returned, as JSON text (empty until it has returned). A run of a
	 * markdown workflow has no such result: its tasks each have theirs.
	 */
	scriptResult(runId: string): { status: RunStatus; error: string | null; text: string } {
		checkId("run", runId);
		const q = this.#q();
		const run = q.getRun(runId);
		if (!run.options.script) {
			throw new CrewError(
				ErrorCode.InvalidInput,
				`run ${runId} ran workflow ${run.workflow}, not a workflow script, so its results are its tasks': name one, e.g. crew result ${runId} <task>`,
			);
		}
		const has = q.artifact(runId, "result.json") !== undefined;
		return { status: run.status, error: run.error, text: has ? this.files.read(runId, "result.json") : "" };
	}

	/**
	 * The id of the only task of a run that has exactly one and is no workflow script (a one-agent
	 * run), whose result is then the run's; undefined for any other run.
	 */
	soleTask(runId: string): string | undefined {
		checkId("run", runId);
		const q = this.#q();
		return q.consistent(() => {
			const { run, tasks } = q.snapshot(runId);
			return !run.options.script && tasks.length === 1 ? tasks[0]?.id : undefined;
		});
	}

	/** A task's full result text (empty when it has none yet). */
	result(runId: string, ref: string): { task: TaskRecord; text: string } {
		checkId("run", runId);
		const q = this.#q();
		q.getRun(runId);
		const task = q.findTask(runId, ref);
		const name = `tasks/${task.id}/result.md`;
		const has = q.artifact(runId, name) !== undefined;
		return { task, text: has ? this.files.read(runId, name) : "" };
	}
}
