// Notifications of run events to the user's targets (webhooks, ntfy, commands), each sent once, with retries.

import { spawn } from "node:child_process";
import { createHmac } from "node:crypto";
import { setTimeout as delay } from "node:timers/promises";
import { type NotifyEvent, type NotifyTarget, targetName, wants } from "../../config/notify-targets.js";
import { ASKS } from "../../core/asked.js";
import { errorMessage } from "../../core/errors.js";
import type { EventRecord } from "../../core/records.js";
import { TaskStatus } from "../../core/status.js";
import { excerpt } from "../../core/terminal-text.js";
import { listedGoal } from "../../engine/views/json.js";
import { openWriter } from "../../store/database.js";
import { NotificationRecords } from "../../store/notification-records.js";
import { RunQueries } from "../../store/run-queries.js";

/** What each event of a run tells, most specific first: a target gets the first it wants. */
const TOLD: Readonly<Record<string, readonly NotifyEvent[]>> = {
	"run.completed": ["ended"],
	"run.failed": ["failed", "ended"],
	"run.cancelled": ["ended"],
	"run.waiting": ["waiting"],
	"task.asked": ["waiting"],
	"budget.warning": ["budget"],
};

/** Time one try may take, in ms. */
const TRY_MS = 10_000;

export interface NotifierOptions {
	readonly targets: readonly NotifyTarget[];
	/** The store's file: notifications are claimed there, so none is sent twice. */
	readonly dbFile: string;
	/** The repository the runs are of, as payloads name it. */
	readonly repository: string;
	/** Tries per notification. Default 3. */
	readonly tries?: number;
	/** Wait before the second try, doubled before each next, in ms. Default 1000. */
	readonly backoffMs?: number;
	readonly now?: () => number;
}

/**
 * Tells the user's targets of the events a runner writes: each event once per target (claimed in
 * the store first, so a runner killed and another resuming never repeat one), tried again with
 * backoff, never holding up the run. Events written before this runner took the run and never
 * told (its runner killed first) are told when it first hears of the run.
 */
export class Notifier {
	readonly #options: NotifierOptions;
	readonly #caughtUp = new Set<string>();
	#opened: { records: NotificationRecords; queries: RunQueries } | undefined;

	constructor(options: NotifierOptions) {
		this.#options = options;
	}

	/** Hears an event the store committed; tells of it after the runner's turn, which it never holds up. */
	readonly heard = (runId: string, event: EventRecord): void => {
		setImmediate(() => {
			try {
				if (!this.#caughtUp.has(runId)) {
					this.#caughtUp.add(runId);
					for (const earlier of this.#untold(runId, event.seq)) this.#tell(runId, earlier);
				}
				this.#tell(runId, event);
			} catch (error) {
				// The store cannot take the claim: nothing is sent, so nothing is sent twice; the user hears why.
				process.stderr.write(`crew: cannot notify of run ${runId}'s ${event.type}: ${errorMessage(error)}\n`);
			}
		});
	};

	/**
	 * Events before `seq` that the runner before this one may not have told of: those since it
	 * took the run. Older ones were its predecessors' to tell, or came before any target was set.
	 */
	#untold(runId: string, seq: number): EventRecord[] {
		const events = this.#store().queries.eventsOfTypes(runId, [...Object.keys(TOLD), "run.running"]);
		const starts = events.filter((e) => e.type === "run.running" && e.seq <= seq).map((e) => e.seq);
		const since = starts.at(-2) ?? 0;
		return events.filter((e) => e.type !== "run.running" && e.seq > since && e.seq < seq);
	}

	#tell(runId: string, event: EventRecord): void {
		const told = TOLD[event.type];
		if (!told || (event.type === "run.waiting" && this.#onlyQuestions(runId))) return;
		for (const target of this.#options.targets) {
			const kind = told.find((k) => wants(target, k));
			if (!kind) continue;
			const name = targetName(target);
			if (!this.#store().records.claim(runId, event.seq, name, kind, this.#time())) continue;
			this.#deliver(runId, event, kind, target).catch((error: unknown) => {
				process.stderr.write(`crew: cannot record a notification of run ${runId}: ${errorMessage(error)}\n`);
			});
		}
	}

	/** Whether all the run waits for is answers to questions, each told of as it was asked. */
	#onlyQuestions(runId: string): boolean {
		const waiting = this.#store()
			.queries.listTasks(runId)
			.filter((t) => t.status === TaskStatus.Waiting);
		return waiting.length > 0 && waiting.every((t) => t.error?.startsWith(ASKS));
	}

	async #deliver(runId: string, event: EventRecord, kind: NotifyEvent, target: NotifyTarget): Promise<void> {
		const payload = this.#payload(runId, event, kind);
		const tries = this.#options.tries ?? 3;
		let error: string | undefined;
		for (let n = 1; n <= tries; n++) {
			if (n > 1) await delay((this.#options.backoffMs ?? 1000) * 2 ** (n - 2));
			error = await send(target, payload).then(
				() => undefined,
				(e: unknown) => errorMessage(e),
			);
			if (error === undefined || n === tries) {
				this.#store().records.settle(runId, event.seq, targetName(target), {
					tries: n,
					...(error !== undefined ? { error } : {}),
					time: this.#time(),
				});
				return;
			}
		}
	}

	#payload(runId: string, event: EventRecord, kind: NotifyEvent): Payload {
		const run = this.#store().queries.getRun(runId);
		return {
			event: kind,
			type: event.type,
			delivery: `${runId}:${event.seq}`,
			time: event.time,
			runId,
			status: run.status,
			...listedGoal(run.goal),
			workflow: run.workflow,
			team: run.team,
			error: run.error,
			repository: this.#options.repository,
			...(event.type === "task.asked" && event.taskId
				? { task: event.taskId, question: String(event.data.text ?? "") }
				: {}),
		};
	}

	#time(): string {
		return new Date((this.#options.now ?? Date.now)()).toISOString();
	}

	/** Its own connection to the store, opened on first use. */
	#store(): { records: NotificationRecords; queries: RunQueries } {
		if (!this.#opened) {
			const db = openWriter(this.#options.dbFile);
			this.#opened = { records: new NotificationRecords(db), queries: new RunQueries(db) };
		}
		return this.#opened;
	}
}

/** What a target is told, as JSON. */
export interface Payload {
	readonly event: NotifyEvent;
	/** The run event that told it. */
	readonly type: string;
	/** `<runId>:<seq>`: the same for every try. */
	readonly delivery: string;
	readonly time: string;
	readonly runId: string;
	readonly status: string;
	/** The goal's first characters, as lists of runs give it (see `listedGoal`), and its whole length. */
	readonly goal: string;
	readonly goalLength: number;
	readonly workflow: string;
	readonly team: string | null;
	readonly error: string | null;
	readonly repository: string;
	/** For a question an agent asked: its task, and the question. */
	readonly task?: string;
	readonly question?: string;
}

/** Characters of a goal and of an error that a line of text tells: a chat line stays a line. */
const TOLD_GOAL_CHARS = 200;
const TOLD_ERROR_CHARS = 300;

/** One line saying what happened, for chat and push targets. */
export function payloadText(p: Payload): string {
	if (p.question !== undefined) return `crew run ${p.runId}: task ${p.task} asks: ${p.question}`;
	const what =
		p.event === "waiting" ? "waits for you" : p.event === "budget" ? "has spent 80% of its budget" : p.status;
	const whole = `crew status ${p.runId} --json for all`;
	const goal = excerpt(p.goal, TOLD_GOAL_CHARS);
	const note =
		goal === p.goal && p.goalLength === p.goal.length
			? ""
			: ` (${p.goalLength.toLocaleString("en-US")} characters; ${whole})`;
	const error = p.error && p.event !== "waiting" ? ` (${excerpt(p.error, TOLD_ERROR_CHARS, whole)})` : "";
	return `crew run ${p.runId} ${what}: ${goal}${note}${error}`;
}

/** Sends one try; rejects, saying why, unless the target took it. */
async function send(target: NotifyTarget, payload: Payload): Promise<void> {
	const json = JSON.stringify(payload);
	if ("command" in target) return runCommand(target.command, json);
	const headers: Record<string, string> = { "x-crew-event": payload.event, "x-crew-delivery": payload.delivery };
	let body = json;
	if ("ntfy" in target) {
		body = payloadText(payload);
		headers.title = `crew: run ${payload.runId} ${payload.event}`;
	} else {
		if (target.format === "slack") body = JSON.stringify({ text: payloadText(payload) });
		headers["content-type"] = "application/json";
		if (target.secret)
			headers["x-crew-signature"] = `sha256=${createHmac("sha256", target.secret).update(body).digest("hex")}`;
	}
	const url = "ntfy" in target ? target.ntfy : target.webhook;
	const response = await fetch(url, { method: "POST", headers, body, signal: AbortSignal.timeout(TRY_MS) });
	await response.arrayBuffer().catch(() => undefined);
	if (!response.ok) throw new Error(`${url} answered ${response.status} ${response.statusText}`);
}

/** Runs a user's command line with the payload on stdin; rejects unless it exits 0 within the try's time. */
function runCommand(command: string, json: string): Promise<void> {
	return new Promise((resolve, reject) => {
		const child = spawn("/bin/sh", ["-c", command], { stdio: ["pipe", "ignore", "pipe"], timeout: TRY_MS });
		let stderr = "";
		child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
			stderr = (stderr + chunk).slice(-500);
		});
		child.stdin.on("error", () => undefined);
		child.stdin.end(json);
		child.once("error", reject);
		child.once("close", (code, signal) => {
			if (code === 0) resolve();
			else
				reject(
					new Error(
						`${command}: ${signal ? `killed by ${signal}` : `exit code ${code}`}${stderr.trim() ? `: ${stderr.trim()}` : ""}`,
					),
				);
		});
	});
}
