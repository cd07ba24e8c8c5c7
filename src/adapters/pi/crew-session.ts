// The crew side of one pi session: its `crew mcp` child, the runs the session started, and their reports.

import { existsSync } from "node:fs";
import type { ExtensionAPI, ExtensionContext } from "@mariozechner/pi-coding-agent";
import { findProject } from "../../config/project.js";
import { errorMessage } from "../../core/errors.js";
import { isTerminalRun, type RunStatus } from "../../core/status.js";
import { inert } from "../../core/terminal-text.js";
import type { InboxItem } from "../shared/inbox.js";
import { CrewClient } from "./crew-client.js";
import { type CrewCall, runReport } from "./run-report.js";

/** Time between reads of a watched run's status, in ms. */
const WATCH_MS = 1000;
/** Time between reads of the repository's inbox, in ms. */
const INBOX_MS = 3000;
/** Inbox items one notice names at most; the rest are counted. */
const NOTICE_ITEMS = 5;
/** Runs a reminder names at most; the rest are counted. */
const REMINDER_RUNS = 10;
/** The custom message type of crew's reports in a pi session. */
export const REPORT_TYPE = "crew-run";

export interface SessionRun {
	readonly runId: string;
	readonly status: RunStatus;
	readonly goal?: string;
	readonly workflow?: string;
}

/**
 * crew as one pi session sees it: a `crew mcp` child for the session's repository, the runs this
 * session started, and their reports. A run is reported once per session: the reports are custom
 * messages in the session itself, so a session reopened later reports what ended while it was
 * closed, and nothing twice.
 */
export class CrewSession {
	readonly #pi: ExtensionAPI;
	readonly #clients = new Map<string, CrewClient>();
	readonly #watches = new Map<string, NodeJS.Timeout>();
	/** Runs a tool call is waiting for: their end goes into its answer, not into a report. */
	readonly #held = new Set<string>();
	/** The inbox items the person was told of, by key; and the timer that looks for new ones. */
	readonly #told = new Set<string>();
	#inboxTimer: NodeJS.Timeout | undefined;
	/** The session, as its start gave it. */
	#ctx: ExtensionContext | undefined;

	constructor(pi: ExtensionAPI) {
		this.#pi = pi;
	}

	/** Calls one of crew's tools for the repository `cwd` is in. */
	call(cwd: string, tool: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
		return this.#client(cwd).call(tool, args);
	}

	/** The address of the dashboard of the repository `cwd` is in. */
	dashboard(cwd: string): Promise<string> {
		return this.#client(cwd).dashboard();
	}

	#client(cwd: string): CrewClient {
		const root = findProject(cwd).root;
		let client = this.#clients.get(root);
		if (!client) {
			client = new CrewClient(root);
			this.#clients.set(root, client);
		}
		return client;
	}

	/** What a run started from this session carries: the session, and its model as the agents' default. */
	runContext(ctx: ExtensionContext): Record<string, unknown> {
		const model = ctx.model ? `${ctx.model.provider}/${ctx.model.id}` : undefined;
		return {
			session: ctx.sessionManager.getSessionId(),
			...(model ? { defaultModel: model, defaultThinking: this.#pi.getThinkingLevel() } : {}),
		};
	}

	/** Follows a run; when it ends, its report goes into the session and starts a turn if idle. */
	watch(cwd: string, runId: string): void {
		if (this.#watches.has(runId)) return;
		const call: CrewCall = (tool, args) => this.call(cwd, tool, args);
		const timer = setInterval(async () => {
			try {
				if (this.#held.has(runId)) return;
				const { run } = (await call("crew_status", { runId })) as { run: { status: RunStatus } };
				if (!isTerminalRun(run.status) || !this.#watches.has(runId) || this.#held.has(runId)) return;
				this.#unwatch(runId);
				const ended = await runReport(call, runId);
				this.#report(ended.text, { runId, status: ended.status.run.status });
			} catch (error) {
				this.#unwatch(runId);
				this.#report(`crew stopped following run ${runId}: ${errorMessage(error)}`, {
					runId,
					error: errorMessage(error),
				});
			}
		}, WATCH_MS);
		// A watch never keeps pi running on its own.
		timer.unref();
		this.#watches.set(runId, timer);
		if (this.#ctx) this.#watchInbox(this.#ctx);
	}

	/**
	 * At a session's start: reports the runs it started that ended while it was away, follows those
	 * still going and names them. A repository without crew's store costs nothing.
	 */
	async start(ctx: ExtensionContext): Promise<void> {
		this.#ctx = ctx;
		if (!existsSync(findProject(ctx.cwd).dbFile)) return;
		const runs = await this.#sessionRuns(ctx);
		const reported = reportedRuns(ctx);
		for (const run of runs.filter((r) => isTerminalRun(r.status) && !reported.has(r.runId))) {
			const ended = await runReport((tool, args) => this.call(ctx.cwd, tool, args), run.runId);
			this.#report(`(while this session was closed) ${ended.text}`, { runId: run.runId, status: run.status });
		}
		const going = runs.filter((r) => !isTerminalRun(r.status));
		for (const run of going) this.watch(ctx.cwd, run.runId);
		if (going.length > 0) this.#remind(going);
		await this.#checkInbox(ctx);
		this.#watchInbox(ctx);
	}

	/** Looks at the inbox now and then from here on, for as long as the session lasts. */
	#watchInbox(ctx: ExtensionContext): void {
		if (this.#inboxTimer) return;
		this.#inboxTimer = setInterval(() => {
			// A look that fails (crew busy, the session closing) is tried again at the next.
			this.#checkInbox(ctx).catch(() => undefined);
		}, INBOX_MS);
		// Looking at the inbox never keeps pi running on its own.
		this.#inboxTimer.unref();
	}

	/**
	 * Tells the person what newly waits on them in the repository's inbox (an approval, a failed
	 * run, …), each item once per session, with the command that answers it.
	 */
	async #checkInbox(ctx: ExtensionContext): Promise<void> {
		const { items } = (await this.call(ctx.cwd, "crew_inbox", {})) as { items: InboxItem[] };
		const fresh = items.filter((i) => !this.#told.has(inboxKey(i)));
		if (fresh.length === 0) return;
		for (const item of fresh) this.#told.add(inboxKey(item));
		const named = fresh.slice(0, NOTICE_ITEMS).map((i) => `- ${i.kind} ${i.runId}: ${i.what} → ${i.command}`);
		const more = fresh.length > NOTICE_ITEMS ? [`(and ${fresh.length - NOTICE_ITEMS} more: crew inbox)`] : [];
		ctx.ui.notify(inert([`crew inbox: ${items.length} waiting on you`, ...named, ...more].join("\n")), "info");
	}

	/** After compaction: the agent is told again which of its runs are still going. */
	async remind(ctx: ExtensionContext): Promise<void> {
		if (this.#watches.size === 0) return;
		const going = (await this.#sessionRuns(ctx)).filter((r) => !isTerminalRun(r.status));
		if (going.length > 0) this.#remind(going);
	}

	/** Runs `fn` while its answer is to tell of the end of `runIds`: no report of them meanwhile. */
	async holding<T>(runIds: readonly string[], fn: () => Promise<T>): Promise<T> {
		for (const runId of runIds) this.#held.add(runId);
		try {
			return await fn();
		} finally {
			for (const runId of runIds) this.#held.delete(runId);
		}
	}

	/** Runs whose results the agent already has from a tool's answer: no report follows. */
	answered(runIds: readonly string[]): void {
		for (const runId of runIds) this.#unwatch(runId);
	}

	async close(): Promise<void> {
		clearInterval(this.#inboxTimer);
		this.#inboxTimer = undefined;
		for (const runId of [...this.#watches.keys()]) this.#unwatch(runId);
		const clients = [...this.#clients.values()];
		this.#clients.clear();
		await Promise.all(clients.map((c) => c.close()));
	}

	async #sessionRuns(ctx: ExtensionContext): Promise<SessionRun[]> {
		const { runs } = (await this.call(ctx.cwd, "crew_runs", { session: ctx.sessionManager.getSessionId() })) as {
			runs: SessionRun[];
		};
		return runs;
	}

	#remind(going: readonly SessionRun[]): void {
		const named = going.slice(0, REMINDER_RUNS).map((r) => `- ${r.runId} ${r.status}${r.goal ? `: ${r.goal}` : ""}`);
		const more = going.length > REMINDER_RUNS ? [`(and ${going.length - REMINDER_RUNS} more: team action=runs)`] : [];
		this.#pi.sendMessage(
			{
				customType: "crew-runs",
				content: inert(
					["crew runs of this session still going; each one's report comes here when it ends:", ...named, ...more].join(
						"\n",
					),
				),
				display: true,
				details: { runs: going.map((r) => r.runId) },
			},
			{ deliverAs: "steer" },
		);
	}

	#report(content: string, details: { runId: string; status?: string; error?: string }): void {
		this.#pi.sendMessage(
			{ customType: REPORT_TYPE, content: inert(content), display: true, details },
			{ deliverAs: "followUp", triggerTurn: true },
		);
	}

	#unwatch(runId: string): void {
		clearInterval(this.#watches.get(runId));
		this.#watches.delete(runId);
	}
}

/** What makes an inbox item a new one: what waits, where, since when. */
function inboxKey(item: InboxItem): string {
	return `${item.kind} ${item.runId} ${item.since}`;
}

/**
 * The runs whose end this session was already told of: by a report, or by a tool's answer that
 * carried their results (its details list them as `reported`).
 */
function reportedRuns(ctx: ExtensionContext): Set<string> {
	const ids = new Set<string>();
	for (const entry of ctx.sessionManager.getEntries()) {
		const answered = (entry as { message?: { role?: string; details?: { reported?: unknown } } }).message;
		if (answered?.role === "toolResult" && Array.isArray(answered.details?.reported)) {
			for (const id of answered.details.reported) if (typeof id === "string") ids.add(id);
		}
		const message = entry as { type: string; customType?: string; details?: { runId?: unknown; status?: unknown } };
		if (message.type !== "custom_message" || message.customType !== REPORT_TYPE) continue;
		if (typeof message.details?.runId === "string" && typeof message.details.status === "string") {
			ids.add(message.details.runId);
		}
	}
	return ids;
}
