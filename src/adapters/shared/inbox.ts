// The inbox: what waits on a person across the repository's runs, each with the command that answers it.

import { ASKS } from "../../core/asked.js";
import { ErrorCode, isCrewError } from "../../core/errors.js";
import { RunStatus, TaskStatus } from "../../core/status.js";
import { excerpt } from "../../core/terminal-text.js";
import { listedGoal } from "../../engine/views/json.js";
import type { RunReader } from "../../engine/views/reader.js";
import { RunEnding, runStanding } from "./run-ending.js";

/** What waits on a person. */
export const InboxKind = {
	/** Tasks at an approval gate. */
	Approval: "approval",
	/** A question a task's agent asked, which it waits on. */
	Question: "question",
	/** Mail a run's workflow script sent to a person, whose reply it may gather. */
	Mail: "mail",
	/** Completed work that is not all on the run's integration branch: a conflict left for a person. */
	Conflict: "conflict",
	/** A run that stopped because its budget was spent. */
	Budget: "budget",
	/** Tasks whose agents ended without a usable answer, left for a person; their dependents ran. */
	Attention: "attention",
	/** A run that failed, with tasks that can be run again. */
	Failed: "failed",
	/** A run whose runner stopped before it ended. */
	Interrupted: "interrupted",
	/** A notification that could not be sent (kept a week). */
	Notify: "notify",
} as const;
export type InboxKind = (typeof InboxKind)[keyof typeof InboxKind];

export interface InboxItem {
	readonly kind: InboxKind;
	readonly runId: string;
	/** The run's goal: its first line, at most 500 characters of it (see `listedGoal`). */
	readonly goal: string;
	/** The whole goal's length. */
	readonly goalLength: number;
	/** The tasks it concerns, when it is theirs. */
	readonly tasks: readonly string[];
	/** Since when it waits (ISO time): the run's latest change. */
	readonly since: string;
	/** What waits, in words. */
	readonly what: string;
	/** The command that answers it. */
	readonly command: string;
	/** A question's number, as `crew answer --question` takes it. */
	readonly question?: number;
}

/** How long a failed notification stays in the inbox, in ms. */
export const NOTIFY_FAILURES_KEPT_MS = 7 * 24 * 3600 * 1000;

/** Everything waiting on a person among the repository's runs, oldest first. */
export function inboxItems(reader: RunReader, now = Date.now()): InboxItem[] {
	const items: InboxItem[] = [];
	for (const failed of reader.repo.failedNotifications(new Date(now - NOTIFY_FAILURES_KEPT_MS).toISOString())) {
		items.push({
			kind: InboxKind.Notify,
			runId: failed.runId,
			goal: "",
			goalLength: 0,
			tasks: [],
			since: failed.time,
			what: `${failed.target} was not told of the run's ${failed.event} (${failed.tries} tries): ${failed.error}`,
			command: "crew doctor",
		});
	}
	const questions = reader.repo.waitingQuestions();
	const mail = reader.repo.waitingMail();
	const attending = reader.repo.runsNeedingAttention();
	for (const stored of storedRuns(reader)) {
		const conflict = stored.integration?.status === "conflict";
		if (stored.status === RunStatus.Completed && !conflict && !attending.has(stored.id)) continue;
		if (stored.status === RunStatus.Cancelled || stored.status === RunStatus.Queued) continue;
		const { run, tasks } = reader.status(stored.id);
		const id = run.id;
		const { goal, goalLength } = listedGoal(run.goal);
		const base = { runId: id, goal: goal.split("\n", 1)[0] ?? "", goalLength, since: run.updatedAt };
		const asked = questions.filter((q) => q.runId === id);
		for (const q of asked) {
			// A task that asks several questions at once is told which one an answer is for.
			const several = asked.filter((o) => o.taskId === q.taskId).length > 1;
			items.push({
				...base,
				kind: InboxKind.Question,
				tasks: [q.taskId],
				since: q.askedAt,
				what: `${q.taskId} asks: ${q.question}`,
				command: `crew answer ${id} ${q.taskId}${several ? ` --question ${q.number}` : ""} "<answer>"`,
				question: q.number,
			});
		}
		for (const m of mail.filter((m) => m.runId === id)) {
			items.push({
				...base,
				kind: InboxKind.Mail,
				tasks: [],
				since: m.sentAt,
				what: `its workflow script mails ${m.to} (${m.name}): ${m.text}`,
				command: `crew answer ${id} ${m.name} "<reply>"`,
			});
		}
		// A task that asked waits for its answer, not at an approval gate.
		const waiting = tasks.filter((t) => t.status === TaskStatus.Waiting && !t.error?.startsWith(ASKS)).map((t) => t.id);
		if (waiting.length > 0) {
			items.push({
				...base,
				kind: InboxKind.Approval,
				tasks: waiting,
				what: `${waiting.join(", ")} ${waiting.length === 1 ? "waits" : "wait"} for approval`,
				command: `crew approve ${id}`,
			});
		}
		const attention = tasks.filter((t) => t.status === TaskStatus.NeedsAttention);
		const [firstAttention] = attention;
		if (firstAttention) {
			items.push({
				...base,
				kind: InboxKind.Attention,
				tasks: attention.map((t) => t.id),
				what: `${firstAttention.id} needs attention: ${firstAttention.error ?? "its agent ended without a usable answer"}${attention.length > 1 ? ` (and ${attention.length - 1} more)` : ""}`,
				command: `crew retry ${id} ${firstAttention.id}`,
			});
		}
		const budgetSpent = reader.budgetStopped(id);
		const { ending, next } = runStanding(run, tasks, { budgetSpent });
		const conflicts = run.integration?.conflicts ?? [];
		if (ending === RunEnding.IntegrationIncomplete || conflicts.length > 0) {
			const missing = run.integration?.missing ?? [];
			const said = conflicts.map((c) => `${c.task} conflicts in ${c.files.join(", ")}`);
			items.push({
				...base,
				kind: InboxKind.Conflict,
				tasks: missing,
				what: `not on ${run.integration?.branch ?? `crew/${id}`}: ${said.join("; ") || missing.join(", ")}`,
				command: next ?? `crew merge ${id} --partial`,
			});
			continue;
		}
		if (run.status === RunStatus.Interrupted) {
			items.push({
				...base,
				kind: InboxKind.Interrupted,
				tasks: [],
				what: "its runner stopped before the run ended",
				command: `crew resume ${id}`,
			});
			continue;
		}
		if (run.status !== RunStatus.Failed) continue;
		if (budgetSpent) {
			items.push({
				...base,
				kind: InboxKind.Budget,
				tasks: [],
				what: run.error ?? "its budget is spent",
				command: `crew resume ${id} ${/tokens/.test(run.error ?? "") ? "--budget-tokens" : "--budget-usd"} <more>`,
			});
			continue;
		}
		const failed = tasks.filter((t) => t.status === TaskStatus.Failed);
		const first = failed[0];
		if (!first) continue;
		items.push({
			...base,
			kind: InboxKind.Failed,
			tasks: failed.map((t) => t.id),
			what: `${first.id} failed: ${first.error ?? "no reason recorded"}`,
			command: `crew retry ${id} ${first.id}`,
		});
	}
	return items.sort((a, b) => a.since.localeCompare(b.since));
}

/** The repository's runs; none before its store exists. */
function storedRuns(reader: RunReader) {
	try {
		return reader.repo.runs();
	} catch (error) {
		if (isCrewError(error, ErrorCode.NotFound)) return [];
		throw error;
	}
}

/** Characters of what waits that the inbox's text shows; its JSON has all of it. */
const WHAT_SHOWN = 200;

/** The inbox as text: an item a line or two, with the command that answers it. */
export function inboxText(items: readonly InboxItem[]): string {
	if (items.length === 0) return "nothing waits for you\n";
	return items
		.map(
			(i) =>
				`${i.since.slice(0, 19).replace("T", " ")}  ${i.kind.padEnd(11)} ${i.runId}  ${excerpt(i.what, WHAT_SHOWN, "crew inbox --json for all")}\n    ${i.command}\n`,
		)
		.join("");
}
