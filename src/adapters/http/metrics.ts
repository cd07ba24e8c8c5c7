// Prometheus metrics of runs and tasks, read from the store at each scrape.

import { Gauge, Histogram, Registry } from "prom-client";
import { RunStatus, TaskStatus } from "../../core/status.js";
import type { RepoReader } from "../../engine/views/repo-reader.js";

/** Task wall times, in seconds: agent tasks take from seconds to an hour. */
const DURATION_BUCKETS = [1, 5, 15, 30, 60, 120, 300, 600, 1800, 3600];

const ATTEMPT_STATUSES = ["running", "completed", "failed", "timed-out", "stalled", "cancelled", "lost", "interrupted"];

/**
 * Prometheus metrics read from the store at each scrape, so they cover runs of every process
 * (foreground, detached, other servers), not only this one's. Every known status is reported,
 * with 0 when no run or task has it, so series do not appear and vanish.
 */
export class CrewMetrics {
	readonly contentType: string;
	readonly #registry = new Registry();
	readonly #reader: () => RepoReader | undefined;
	#snapshot: Snapshot | undefined;

	constructor(reader: () => RepoReader | undefined) {
		this.#reader = reader;
		this.contentType = this.#registry.contentType;
		register(this.#registry, () => this.#snapshot);
	}

	/** The metrics in Prometheus text format, from one read of the store. */
	async text(): Promise<string> {
		this.#snapshot = this.#reader()?.metrics();
		try {
			return await this.#registry.metrics();
		} finally {
			this.#snapshot = undefined;
		}
	}
}

type Snapshot = ReturnType<RepoReader["metrics"]>;

function register(registry: Registry, read: () => Snapshot | undefined): void {
	const byStatus = (
		name: string,
		help: string,
		statuses: readonly string[],
		pick: (s: Snapshot) => Readonly<Record<string, number>>,
	) =>
		new Gauge({
			name,
			help,
			labelNames: ["status"],
			registers: [registry],
			collect() {
				const s = read();
				const counts = s ? pick(s) : {};
				for (const status of new Set([...statuses, ...Object.keys(counts)])) this.set({ status }, counts[status] ?? 0);
			},
		});
	byStatus("crew_runs", "Runs in the store by status", Object.values(RunStatus), (s) => s.runs);
	byStatus("crew_tasks", "Tasks of all runs by status", Object.values(TaskStatus), (s) => s.tasks);
	byStatus("crew_attempts", "Task attempts by status", ATTEMPT_STATUSES, (s) => s.attempts);
	new Gauge({
		name: "crew_tokens",
		help: "Tokens used by all tasks, by kind",
		labelNames: ["kind"],
		registers: [registry],
		collect() {
			const u = read()?.usage;
			this.set({ kind: "input" }, u?.input ?? 0);
			this.set({ kind: "output" }, u?.output ?? 0);
			this.set({ kind: "cache_read" }, u?.cacheRead ?? 0);
			this.set({ kind: "cache_write" }, u?.cacheWrite ?? 0);
		},
	});
	new Gauge({
		name: "crew_cost_usd",
		help: "Cost of all tasks, in US dollars",
		registers: [registry],
		collect() {
			this.set(read()?.usage.cost ?? 0);
		},
	});
	new Gauge({
		name: "crew_ready_tasks",
		help: "Ready-queue depth: queued tasks of running runs whose dependencies have completed",
		registers: [registry],
		collect() {
			this.set(read()?.ready ?? 0);
		},
	});
	new Gauge({
		name: "crew_scheduled_slots",
		help: "Slots of schedules by what became of them: started a run, skipped, run now outside the slots, or missed while no scheduler ran",
		labelNames: ["outcome"],
		registers: [registry],
		collect() {
			const s = read()?.scheduled;
			for (const outcome of ["started", "skipped", "now", "missed"] as const) this.set({ outcome }, s?.[outcome] ?? 0);
		},
	});
	new Histogram({
		name: "crew_task_duration_seconds",
		help: "Wall time of finished tasks, first start to end, in seconds",
		buckets: DURATION_BUCKETS,
		registers: [registry],
		collect() {
			this.reset();
			for (const seconds of read()?.taskSeconds ?? []) this.observe(seconds);
		},
	});
}
