import type { Writable } from "node:stream";
import type { TaskStatus } from "../../core/status.js";
import { statusCounts } from "../../core/status.js";
import type { EventRecord, TaskRecord } from "../../core/types.js";
import { elapsed, taskLine, widthsOf } from "./format.js";

const STATUS_EVENT = /^task\.(queued|running|waiting|completed|failed|cancelled|skipped|interrupted|superseded)$/;

/**
 * The foreground run's live view: on a terminal, a block of task lines redrawn in place; otherwise
 * one line per task status change.
 */
export class ProgressView {
	readonly #out: Writable;
	readonly #tty: boolean;
	readonly #rows: number;
	readonly #tasks = new Map<string, TaskRecord>();
	#started = Date.now();
	#widths = { id: 4, role: 4 };
	#drawn = 0;
	#timer: NodeJS.Timeout | undefined;

	constructor(out: Writable & { isTTY?: boolean; rows?: number }, options: { tty?: boolean } = {}) {
		this.#out = out;
		this.#tty = options.tty ?? out.isTTY === true;
		this.#rows = out.rows || 40;
	}

	start(tasks: readonly TaskRecord[]): void {
		this.#started = Date.now();
		for (const t of tasks) this.#tasks.set(t.id, t);
		this.#widths = widthsOf(tasks);
		if (this.#tty) this.#timer = setInterval(() => this.#draw(), 150);
	}

	onEvent = (_runId: string, event: EventRecord): void => {
		const match = event.taskId ? STATUS_EVENT.exec(event.type) : null;
		if (!match || !event.taskId) return;
		const task = this.#tasks.get(event.taskId);
		if (!task) return;
		const status = match[1] as TaskStatus;
		const running = status === "running";
		const next: TaskRecord = {
			...task,
			status,
			attempts: typeof event.data.attempt === "number" ? event.data.attempt : task.attempts,
			startedAt: running ? event.time : task.startedAt,
			finishedAt: running || status === "queued" ? null : event.time,
			error: typeof event.data.error === "string" ? event.data.error : running ? null : task.error,
		};
		this.#tasks.set(task.id, next);
		if (!this.#tty) {
			const clock = elapsed(new Date(this.#started).toISOString(), event.time, Date.now()).padStart(7);
			this.#out.write(`${clock}${taskLine(next, Date.parse(event.time), this.#widths)}\n`);
		}
	};

	stop(): void {
		clearInterval(this.#timer);
		if (this.#tty) this.#draw();
	}

	#draw(): void {
		const now = Date.now();
		const tasks = [...this.#tasks.values()];
		const widths = this.#widths;
		const room = Math.max(5, this.#rows - 3);
		let shown = tasks;
		if (tasks.length > room) {
			const active = tasks.filter((t) => t.status === "running" || t.status === "failed");
			shown = active.slice(0, room - 1);
		}
		const header = `  ${statusCounts(tasks)}  (${elapsed(new Date(this.#started).toISOString(), null, now)})`;
		const lines = [header, ...shown.map((t) => taskLine(t, now, widths))];
		const up = this.#drawn > 0 ? `\x1b[${this.#drawn}F` : "";
		this.#out.write(`${up}${lines.map((l) => `\x1b[2K${l}`).join("\n")}\n\x1b[J`);
		this.#drawn = lines.length;
	}
}
