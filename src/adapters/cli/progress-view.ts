// The live view of a foreground run: its task lines redrawn on a terminal, else a line per status change.

import type { Writable } from "node:stream";
import type { EventRecord, ListedTask } from "../../core/records.js";
import type { TaskStatus } from "../../core/status.js";
import { statusCounts } from "../../core/status.js";
import { inert } from "../../core/terminal-text.js";
import { elapsed, taskLine, widthsOf } from "./format.js";

const STATUS_EVENT =
	/^task\.(queued|running|waiting|completed|failed|cancelled|skipped|interrupted|superseded|needs_attention)$/;

/** Whether `event` changes a run's task list: it names a task not listed, or makes a task wait for more. */
function grows(event: EventRecord, listed: ReadonlyMap<string, number>): boolean {
	if (event.taskId && !listed.has(event.taskId)) return true;
	const { tasks, dependents } = event.data;
	if (Array.isArray(dependents) && dependents.length > 0) return true;
	return Array.isArray(tasks) && tasks.some((id) => typeof id === "string" && !listed.has(id));
}

/**
 * The foreground run's live view: on a terminal, a block of task lines redrawn in place; otherwise
 * one line per task status change. The tasks a run gains while it runs (a plan, an `--until` pass,
 * a script's calls, a resolution) join the view, in the order every view lists tasks.
 */
export class ProgressView {
	readonly #out: Writable;
	readonly #tty: boolean;
	readonly #rows: number;
	#read: () => readonly ListedTask[] = () => [];
	#tasks: ListedTask[] = [];
	/** Each listed task's position in `#tasks`, by id. */
	#at = new Map<string, number>();
	/** Set when the run's task list changed since it was last read. */
	#stale = false;
	#started = Date.now();
	#widths = { id: 4, role: 4 };
	#runId = "";
	#drawn = 0;
	#timer: NodeJS.Timeout | undefined;

	constructor(out: Writable & { isTTY?: boolean; rows?: number }, options: { tty?: boolean } = {}) {
		this.#out = out;
		this.#tty = options.tty ?? out.isTTY === true;
		this.#rows = out.rows || 40;
	}

	/** Starts showing run `runId`, whose task list, in order, `read` gives as committed at the time. */
	start(runId: string, read: () => readonly ListedTask[]): void {
		this.#started = Date.now();
		this.#runId = runId;
		this.#read = read;
		this.#reload();
		if (this.#tty) this.#timer = setInterval(() => this.#draw(), 150);
	}

	onEvent = (_runId: string, event: EventRecord): void => {
		if (grows(event, this.#at)) this.#stale = true;
		const match = event.taskId ? STATUS_EVENT.exec(event.type) : null;
		if (!match || !event.taskId) return;
		// Events arrive once committed, so a fresh read has this change too.
		if (this.#stale) this.#reload();
		const at = this.#at.get(event.taskId);
		const task = at === undefined ? undefined : this.#tasks[at];
		if (at === undefined || !task) return;
		const status = match[1] as TaskStatus;
		const running = status === "running";
		const next: ListedTask = {
			...task,
			status,
			attempts: typeof event.data.attempt === "number" ? event.data.attempt : task.attempts,
			startedAt: running ? event.time : task.startedAt,
			finishedAt: running || status === "queued" ? null : event.time,
			error: typeof event.data.error === "string" ? event.data.error : running ? null : task.error,
		};
		this.#tasks[at] = next;
		if (!this.#tty) {
			const clock = elapsed(new Date(this.#started).toISOString(), event.time, Date.now()).padStart(7);
			this.#out.write(`${clock}${inert(taskLine(next, Date.parse(event.time), this.#widths, this.#runId))}\n`);
		}
	};

	#reload(): void {
		this.#stale = false;
		this.#tasks = [...this.#read()];
		this.#at = new Map(this.#tasks.map((t, i) => [t.id, i]));
		this.#widths = widthsOf(this.#tasks);
	}

	stop(): void {
		clearInterval(this.#timer);
		if (this.#tty) this.#draw();
	}

	#draw(): void {
		const now = Date.now();
		if (this.#stale) this.#reload();
		const tasks = this.#tasks;
		const widths = this.#widths;
		const room = Math.max(5, this.#rows - 3);
		let shown = tasks;
		if (tasks.length > room) {
			const active = tasks.filter((t) => t.status === "running" || t.status === "failed");
			shown = active.slice(0, room - 1);
		}
		const header = `  ${statusCounts(tasks)}  (${elapsed(new Date(this.#started).toISOString(), null, now)})`;
		const lines = [header, ...shown.map((t) => taskLine(t, now, widths, this.#runId))];
		const up = this.#drawn > 0 ? `\x1b[${this.#drawn}F` : "";
		this.#out.write(`${up}${lines.map((l) => `\x1b[2K${inert(l)}`).join("\n")}\n\x1b[J`);
		this.#drawn = lines.length;
	}
}
