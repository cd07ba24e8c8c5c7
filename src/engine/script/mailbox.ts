// The mailbox of a workflow script: `ctx.mail` and `ctx.gatherReplies`, recorded for replays.

import { CrewError, ErrorCode } from "../../core/errors.js";
import { redact } from "../../core/redact.js";
import { TaskStatus } from "../../core/status.js";
import { checkPersonText } from "../../core/steer-limits.js";
import type { Lease } from "../../store/lease.js";
import type { RunStore } from "../../store/run-store.js";
import { divergence } from "./call-spec.js";

/** How often a script that gathers replies looks for them, in ms. */
const POLL_MS = 200;

/** The event that keeps what a `gatherReplies` call gathered, so a replay gives it back. */
export const REPLIES_EVENT = "script.replies";

/** A reply to a script's mail, in the shape of pi-crew's mailbox messages. */
export interface MailReply {
	readonly id: string;
	/** The mail it replies to. */
	readonly replyTo: string;
	/** Whom the mail was for. */
	readonly from: string;
	readonly body: string;
	readonly createdAt: string;
}

export interface ScriptMailboxDeps {
	readonly store: RunStore;
	readonly lease: Lease;
	/** Makes store writes in order with the runner's. */
	readonly write: (fn: () => void) => void;
	readonly now: () => number;
	/** The value recorded at `key` (a deadline), made by `make` the first time. */
	readonly value: (key: string, kind: string, make: () => number) => number;
	readonly signal: AbortSignal;
	/** The replies gathered at each place in earlier starts, from their events. */
	readonly gathered: ReadonlyMap<string, readonly MailReply[]>;
}

/**
 * pi-crew's `ctx.mail` and `ctx.gatherReplies` for a run's script. A mail is recorded once per
 * place, so a replay sends nothing again; one for a running task of the run is given to its
 * agent too. Anyone replies with `crew answer`, from any process, while the run has not ended. What a gather returned is
 * recorded, and its deadline too, so a resumed run gathers the same replies or waits as long.
 */
export class ScriptMailbox {
	readonly #deps: ScriptMailboxDeps;
	/** Mail sent, by id: what earlier starts recorded, and what this one sent. */
	readonly #sent: Map<string, { readonly to: string; readonly text: string }>;

	constructor(deps: ScriptMailboxDeps) {
		this.#deps = deps;
		this.#sent = new Map(deps.store.mail.ofRun(deps.lease.runId).map((m) => [m.name, m]));
	}

	/** Sends mail `name` (its place) to `to`; returns its id, `name`. */
	mail(name: string, to: unknown, body: unknown): string {
		if (typeof to !== "string" || to.trim() === "") {
			throw new CrewError(
				ErrorCode.InvalidInput,
				`ctx.mail ${name}: to ${JSON.stringify(to)}: expected a task id of the run, or whom else it is for`,
			);
		}
		checkPersonText(body, `ctx.mail ${name}: the mail`);
		const recorded = this.#sent.get(name);
		if (recorded) {
			// Stored redacted: a replay's mail is the same when its redaction is.
			if (recorded.to !== to || recorded.text !== redact(body)) {
				throw divergence(
					name,
					`ctx.mail(${JSON.stringify(recorded.to)}, …)`,
					`ctx.mail(${JSON.stringify(to)}, …) with another text`,
				);
			}
			return name;
		}
		this.#sent.set(name, { to, text: redact(body) });
		const { store, lease } = this.#deps;
		this.#deps.write(() => {
			const task = store.queries.listTasks(lease.runId).find((t) => t.id === to);
			if (!store.mail.send(lease, name, to, body, task !== undefined)) return;
			// Only a running agent can hear it; the mail is kept for a reply either way.
			if (task?.status === TaskStatus.Running) {
				store.messages.request(lease.runId, to, `Mail ${name} from the run's workflow script:\n\n${body}`);
			}
		});
		return name;
	}

	/** The replies to mails `ids`, once all have one or at the deadline, `deadlineMs` after the first gather here. */
	async gather(key: string, ids: unknown, deadlineMs: unknown): Promise<readonly MailReply[]> {
		const what = `ctx.gatherReplies ${key}`;
		if (!Array.isArray(ids) || ids.some((id) => typeof id !== "string" || !this.#sent.has(id))) {
			const known = [...this.#sent.keys()].join(", ") || "none";
			throw new CrewError(
				ErrorCode.InvalidInput,
				`${what}: ids ${JSON.stringify(ids)}: expected ids ctx.mail returned (${known})`,
			);
		}
		if (typeof deadlineMs !== "number" || !Number.isFinite(deadlineMs) || deadlineMs < 0) {
			throw new CrewError(
				ErrorCode.InvalidInput,
				`${what}: deadlineMs ${JSON.stringify(deadlineMs)}: expected a number of ms >= 0`,
			);
		}
		const recorded = this.#deps.gathered.get(key);
		if (recorded) return recorded;
		const { now, signal } = this.#deps;
		const deadline = this.#deps.value(key, "deadline", () => now() + deadlineMs);
		for (;;) {
			const replies = this.#replies(ids as string[]);
			if (replies.length === ids.length || now() >= deadline) {
				const { store, lease } = this.#deps;
				this.#deps.write(() => store.appendEvent(lease, REPLIES_EVENT, null, { key, replies }));
				return replies;
			}
			await pause(Math.min(POLL_MS, Math.max(1, deadline - now())), signal);
		}
	}

	#replies(ids: readonly string[]): MailReply[] {
		const mails = new Map(this.#deps.store.mail.ofRun(this.#deps.lease.runId).map((m) => [m.name, m]));
		return ids.flatMap((id) => {
			// A mail whose write waits for the store has no reply yet.
			const mail = mails.get(id);
			if (mail?.state !== "replied") return [];
			const reply = { body: mail.reply ?? "", createdAt: mail.repliedAt ?? mail.sentAt };
			return [{ id: `${id}.reply`, replyTo: id, from: mail.to, ...reply }];
		});
	}
}

/** Waits `ms`, or rejects with the abort's reason once `signal` aborts. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
	return new Promise((resolve, reject) => {
		if (signal.aborted) return reject(signal.reason);
		const timer = setTimeout(() => {
			signal.removeEventListener("abort", stop);
			resolve();
		}, ms);
		const stop = () => {
			clearTimeout(timer);
			reject(signal.reason);
		};
		signal.addEventListener("abort", stop, { once: true });
	});
}
