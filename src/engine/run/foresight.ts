// Conflict foresight: tasks' changes trial-merged while they work, a collision recorded and told to the agents.

import { errorMessage } from "../../core/errors.js";
import type { RunRecord } from "../../core/records.js";
import { TaskStatus } from "../../core/status.js";
import type { TaskSpec } from "../../core/types.js";
import type { Lease } from "../../store/lease.js";
import type { RunStore } from "../../store/run-store.js";
import { type Changes, type Collision, mayConflict, type Region } from "../../workspace/collisions.js";
import type { Worktrees } from "../../workspace/worktrees.js";
import type { RunTasks } from "./tasks.js";
import type { RunWrites } from "./writes.js";

/** Least time between two looks at one task's work, in ms: an agent's burst of edits is one look. */
const LOOK_EVERY_MS = 1000;
/** Most trial merges one look makes, so a wide run's looks stay cheap: the rest wait for the next. */
const MERGES_PER_LOOK = 8;
/** Characters of the other task's step text a message quotes. */
const STEP_CHARS = 160;

export interface ForesightDeps {
	readonly store: RunStore;
	readonly writes: RunWrites;
	readonly lease: Lease;
	readonly tasks: RunTasks;
	readonly worktrees: Worktrees;
	/** The commit the run's worktrees start from. */
	readonly base: string;
	/** Heard when a look fails: foresight only advises, so the run goes on. */
	readonly onError: (message: string) => void;
}

/**
 * Looks, while a worktree run's tasks work, for changes that will conflict when their branches
 * are merged: each time a task's agent ends a tool call or prints a line (at most once a
 * `LOOK_EVERY_MS`) or its attempt commits, its work (a snapshot of its worktree, or its branch) is merged on trial with
 * the work of every other task that is working or done and not yet integrated. A collision is
 * recorded once, as an `integration.predicted` event `{tasks, files, regions}`, and each of the
 * two whose agent still works is told, once, through the run's steering messages. The looks run
 * one at a time beside the run, never holding up a task's start or an event's commit.
 */
export class RunForesight {
	readonly #deps: ForesightDeps;
	/** Collisions recorded, by the pair of tasks and their files: each is told once, across runners too. */
	readonly #seen = new Set<string>();
	/** Tasks waiting for a look, and when each was last looked at. */
	readonly #due = new Set<string>();
	readonly #lookedAt = new Map<string, number>();
	#looking: Promise<void> = Promise.resolve();
	#timer: NodeJS.Timeout | undefined;
	#closed = false;
	/** Each task's work as last read: a snapshot of its worktree while it works, its branch after. */
	readonly #work = new Map<string, string>();
	/** Trial merges made, by the two pieces of work: work that has not changed is not merged again. */
	readonly #tried = new Map<string, Collision | undefined>();
	/** What each piece of work (a commit) changed since the base: a done task's is read once. */
	readonly #changes = new Map<string, Changes>();

	constructor(deps: ForesightDeps) {
		this.#deps = deps;
		const { store, lease } = deps;
		for (const c of store.queries.getRun(lease.runId).foreseen) this.#seen.add(key(c.tasks, c.files));
	}

	/** Task `taskId`'s work changed: it is looked at soon. */
	changed(taskId: string): void {
		if (this.#closed || !this.#inWorktree(taskId)) return;
		this.#due.add(taskId);
		if (this.#timer) return;
		const last = Math.max(0, ...[...this.#due].map((t) => this.#lookedAt.get(t) ?? 0));
		const wait = Math.max(0, last + LOOK_EVERY_MS - Date.now());
		this.#timer = setTimeout(() => {
			this.#timer = undefined;
			const due = [...this.#due];
			this.#due.clear();
			this.#looking = this.#looking.then(() => this.#look(due));
		}, wait);
	}

	/**
	 * No change is heard after this. With `drain`, a look still due is made (so what a run foresaw
	 * does not hang on when its last look fell); resolves once the looks under way have ended.
	 */
	async close(drain: boolean): Promise<void> {
		this.#closed = true;
		if (this.#timer) clearTimeout(this.#timer);
		this.#timer = undefined;
		const due = [...this.#due];
		this.#due.clear();
		if (drain && due.length > 0) this.#looking = this.#looking.then(() => this.#look(due));
		await this.#looking;
	}

	#inWorktree(taskId: string): boolean {
		const i = this.#deps.tasks.dag.indexOf.get(taskId);
		const spec = i === undefined ? undefined : this.#deps.tasks.specs[i];
		return spec?.worktree === true && spec.integration === undefined;
	}

	async #look(due: readonly string[]): Promise<void> {
		const { tasks, worktrees, lease } = this.#deps;
		try {
			// The work of each task that works or is done and waits to be integrated: read anew for the
			// tasks due, as last read for the others (a task not read yet is compared once it is due).
			for (let i = 0; i < tasks.specs.length; i++) {
				const id = tasks.id(i);
				const status = tasks.status[i];
				if (!this.#inWorktree(id) || (status !== TaskStatus.Running && status !== TaskStatus.Completed)) {
					this.#work.delete(id);
					continue;
				}
				if (!due.includes(id) && this.#work.has(id)) continue;
				const commit = await worktrees.workOf(lease.runId, id, status === TaskStatus.Running);
				if (commit === undefined) this.#work.delete(id);
				else this.#work.set(id, commit);
			}
			const own = new Map<string, Set<string> | undefined>();
			const ownOf = async (id: string) => {
				if (!own.has(id)) own.set(id, await this.#ownFiles(id, this.#work.get(id) as string));
				return own.get(id);
			};
			let merged = 0;
			for (const [k, id] of due.entries()) {
				const mine = this.#work.get(id);
				if (mine === undefined) continue;
				this.#lookedAt.set(id, Date.now());
				const changes = await this.#changesOf(mine);
				for (const [other, theirs] of this.#work) {
					if (other === id || this.#related(id, other)) continue;
					// Only work that might conflict needs a trial merge (see `mayConflict`).
					if (!mayConflict(changes, await this.#changesOf(theirs))) continue;
					const pair = `${mine} ${theirs}`;
					if (!this.#tried.has(pair)) {
						if (merged >= MERGES_PER_LOOK) {
							// A look makes at most `MERGES_PER_LOOK` trial merges: this task's other pairs, and
							// the tasks not reached, wait for the next look; pairs merged already are not merged again.
							for (const rest of due.slice(k)) this.changed(rest);
							return;
						}
						merged++;
						this.#tried.set(pair, await worktrees.collide(mine, theirs));
					}
					const found = this.#tried.get(pair);
					if (!found) continue;
					// A worktree holds the work of the tasks it waits for: only what both tasks changed themselves collides.
					const [ours, others] = [await ownOf(id), await ownOf(other)];
					const shared = (file: string) => (ours?.has(file) ?? true) && (others?.has(file) ?? true);
					const files = found.files.filter(shared);
					if (files.length > 0)
						this.#foresee(
							[id, other],
							files,
							found.regions.filter((r) => shared(r.file)),
						);
				}
			}
		} catch (error) {
			this.#deps.onError(`conflict foresight could not look at ${due.join(", ")}: ${errorMessage(error)}`);
		}
	}

	async #changesOf(work: string): Promise<Changes> {
		let changes = this.#changes.get(work);
		if (changes === undefined) {
			changes = await this.#deps.worktrees.changes(this.#deps.base, work);
			this.#changes.set(work, changes);
		}
		return changes;
	}

	/**
	 * The files task `taskId` changed itself in `work`: those whose version differs from that of
	 * every task it waits for; undefined (every file) for a task that waits for none with a branch.
	 */
	async #ownFiles(taskId: string, work: string): Promise<Set<string> | undefined> {
		const { tasks, worktrees, lease } = this.#deps;
		const i = tasks.dag.indexOf.get(taskId) ?? -1;
		let own: Set<string> | undefined;
		for (const d of tasks.dag.dependencies[i] ?? []) {
			const tip = await worktrees.workOf(lease.runId, tasks.id(d), false);
			if (tip === undefined) continue;
			const differs = new Set((await worktrees.changes(tip, work)).keys());
			own = own === undefined ? differs : new Set([...own].filter((f) => differs.has(f)));
		}
		return own;
	}

	/** Whether one of two tasks waits for the other: its worktree holds the other's work, so they do not collide. */
	#related(a: string, b: string): boolean {
		const { dag } = this.#deps.tasks;
		const waitsFor = (from: string, to: string): boolean => {
			const seen = new Set<number>();
			const stack = [dag.indexOf.get(from) ?? -1];
			const target = dag.indexOf.get(to);
			while (stack.length > 0) {
				for (const d of dag.dependencies[stack.pop() as number] ?? []) {
					if (d === target) return true;
					if (!seen.has(d)) {
						seen.add(d);
						stack.push(d);
					}
				}
			}
			return false;
		};
		return waitsFor(a, b) || waitsFor(b, a);
	}

	/** Records the collision of `pair`, once, and tells each of the two whose agent still works. */
	#foresee(pair: readonly [string, string], files: readonly string[], regions: readonly Region[]): void {
		const tasks = [...pair].sort();
		const id = key(tasks, files);
		if (this.#seen.has(id)) return;
		this.#seen.add(id);
		const { store, writes, lease } = this.#deps;
		writes.write(() => {
			store.integrations.foreseen(lease, {
				tasks: [tasks[0] as string, tasks[1] as string],
				files,
				regions: regions.map((r) => ({ file: r.file, lines: [r.from, r.to] as const })),
			});
			for (const [me, other] of [pair, [pair[1], pair[0]] as const]) {
				if (this.#status(me) !== TaskStatus.Running) continue;
				try {
					store.messages.request(lease.runId, me, this.#message(me, other, files, regions));
				} catch {
					// It ended meanwhile: a finished task is not disturbed.
				}
			}
		});
	}

	#status(taskId: string): TaskStatus | undefined {
		const i = this.#deps.tasks.dag.indexOf.get(taskId);
		return i === undefined ? undefined : this.#deps.tasks.status[i];
	}

	#spec(taskId: string): TaskSpec | undefined {
		const i = this.#deps.tasks.dag.indexOf.get(taskId);
		return i === undefined ? undefined : this.#deps.tasks.specs[i];
	}

	/** What the agent of `me` is told of its collision with `other`: who, what, where, and the choice. */
	#message(me: string, other: string, files: readonly string[], regions: readonly Region[]): string {
		const step = (this.#spec(other)?.text ?? "").replace(/\s+/g, " ").trim();
		const sentence = (step.match(/^.*?[.!?](\s|$)/)?.[0] ?? step).trim().slice(0, STEP_CHARS);
		const where =
			regions.length > 0 ? regions.map((r) => `${r.file} lines ${r.from}–${r.to}`).join(", ") : files.join(", ");
		const lines = [
			`crew: task ${other} works beside you, in a worktree of its own, and is changing ${where} too: when your branches are merged, these changes will conflict.`,
			...(sentence ? [`Task ${other} was asked: "${sentence}"`] : []),
			`Keep to your own part of ${files.join(", ")}, or leave ${regions.length > 0 ? "those lines" : "those files"} to task ${other}.`,
		];
		const outside = this.#outsideScope(me, files);
		if (outside.length > 0) lines.push(`Your step's writes: do not include ${outside.join(", ")}.`);
		return lines.join("\n");
	}

	/** Of `files`, those outside the step's declared `writes:`, when it declares them. */
	#outsideScope(taskId: string, files: readonly string[]): string[] {
		const scope = this.#spec(taskId)?.writes;
		if (!scope || scope.length === 0) return [];
		return files.filter((f) => !scope.some((s) => f === s || f.startsWith(s.endsWith("/") ? s : `${s}/`)));
	}
}

/**
 * The foresight a run gets: one for a run whose tasks work in worktrees started from a known
 * commit, unless its options turn foresight off; undefined otherwise. A look that fails is
 * recorded as an `integration.foresight-failed` event `{message}`, and the run goes on.
 */
export function foresightFor(run: RunRecord, deps: Omit<ForesightDeps, "base" | "onError">): RunForesight | undefined {
	const base = run.options.baseCommit;
	if (run.options.foresight === false || base === undefined || !deps.tasks.specs.some((spec) => spec.worktree)) {
		return undefined;
	}
	const { store, writes, lease } = deps;
	const onError = (message: string) =>
		writes.write(() => store.appendEvent(lease, "integration.foresight-failed", null, { message }));
	return new RunForesight({ ...deps, base, onError });
}

function key(tasks: readonly string[], files: readonly string[]): string {
	return `${[...tasks].sort().join("\0")}\n${[...files].sort().join("\0")}`;
}
