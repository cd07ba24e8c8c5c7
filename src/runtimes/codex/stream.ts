// Codex app server notifications read into crew's worker events, answer, usage and failure.

import { addUsage, type Usage, ZERO_USAGE } from "../../core/usage.js";
import type { AgentStream } from "../agent/agent-cli.js";
import { isRetryableModelError } from "../agent/model-errors.js";
import { withOutput } from "../agent/tool-output.js";
import type { WorkerEvent, WorkerFailure } from "../worker-runtime.js";
import { CREW_REQUESTS, THREAD_REQUESTS } from "./conversation.js";

interface CodexItem {
	readonly id?: string;
	readonly type?: string;
	readonly text?: string;
	readonly command?: string;
	readonly exitCode?: number | null;
	readonly status?: string;
	readonly changes?: unknown;
	readonly server?: string;
	readonly tool?: string;
	readonly arguments?: unknown;
	readonly result?: unknown;
	readonly error?: { readonly message?: string } | null;
	readonly aggregatedOutput?: string | null;
}

/** A thread's tokens so far, as Codex counts them: cached tokens inside `inputTokens`. */
interface CodexTokens {
	readonly inputTokens?: number;
	readonly cachedInputTokens?: number;
	readonly cacheWriteInputTokens?: number;
	readonly outputTokens?: number;
}

/** Output kept of a command while it runs, for when its end does not carry it. */
const MAX_DELTAS = 64 * 1024;

/** The tool an item stands for, as crew names it; undefined for items that are not tool calls. */
function toolOf(item: CodexItem): { name: string; args?: unknown } | undefined {
	switch (item.type) {
		case "commandExecution":
			return { name: "command", args: { command: item.command } };
		case "fileChange":
			return { name: "apply_patch", args: { changes: item.changes } };
		case "mcpToolCall":
			return { name: `mcp__${item.server}__${item.tool}`, args: item.arguments };
		case "dynamicToolCall":
			return { name: String(item.tool), args: item.arguments };
		case "webSearch":
			return { name: "web_search" };
		default:
			return undefined;
	}
}

function failed(item: CodexItem): boolean {
	return (
		item.status === "failed" || item.status === "declined" || (typeof item.exitCode === "number" && item.exitCode !== 0)
	);
}

/**
 * Reads the notifications of Codex's app server. The answer is the last agent message of crew's
 * thread; usage comes after each model response, as each thread's running totals (tokens only:
 * Codex reports no cost), and counts for every thread, those Codex starts itself (its sub-agents)
 * too; the thread's turn's end says whether it completed, and an error it will not retry is the
 * failure. A request of crew's it refused is a failure too. Deltas stay out of the transcript;
 * a command's are kept for when its end carries no output.
 */
export class CodexStream implements AgentStream {
	usage: Usage = ZERO_USAGE;
	text = "";
	answered = false;
	error: WorkerFailure | undefined;
	/**
	 * Model responses in crew's thread, each counted at its first item: a response's usage comes
	 * after the tools it calls have started.
	 */
	turns = 0;
	#responding = false;
	/** crew's thread, once Codex has started it. */
	#thread: string | undefined;
	/** The turns this process started: a resumed thread's earlier usage is not its own. */
	readonly #turnIds = new Set<string>();

	get session(): string | undefined {
		return this.#thread;
	}
	readonly #totals = new Map<string, Usage>();
	readonly #outputs = new Map<string, string>();

	accept(event: Record<string, unknown>): { events: WorkerEvent[]; keep: boolean } {
		const params = (event.params ?? {}) as Record<string, unknown>;
		const item = (params.item ?? {}) as CodexItem;
		if (event.method === "thread/tokenUsage/updated") {
			if (params.threadId === this.#thread) this.#responding = false;
			// A resumed thread's totals so far, which an earlier attempt spent: where this one's start.
			const { turnId } = params;
			const earlier = params.threadId === this.#thread && typeof turnId === "string" && !this.#turnIds.has(turnId);
			return { events: this.#tokens(String(params.threadId), params.tokenUsage, earlier), keep: true };
		}
		if (event.method === "turn/started") {
			const turn = (params.turn ?? {}) as { id?: unknown };
			if (typeof turn.id === "string") this.#turnIds.add(turn.id);
		}
		// Another thread's work (a sub-agent's) is in the transcript, not crew's account of this one.
		if (params.threadId !== undefined && this.#thread !== undefined && params.threadId !== this.#thread)
			return { events: [], keep: !/[Dd]elta$/.test(String(event.method)) };
		switch (event.method) {
			case "item/started": {
				if (item.type !== "userMessage" && !this.#responding) {
					this.#responding = true;
					this.turns++;
				}
				const tool = toolOf(item);
				const id = String(item.id ?? "");
				return { events: tool ? [{ type: "tool-start", id, name: tool.name, args: tool.args }] : [], keep: true };
			}
			case "item/completed":
				return { events: this.#completed(item), keep: true };
			case "item/commandExecution/outputDelta": {
				const id = String(params.itemId ?? "");
				const sofar = this.#outputs.get(id) ?? "";
				if (sofar.length < MAX_DELTAS) this.#outputs.set(id, sofar + String(params.delta ?? ""));
				return { events: [], keep: false };
			}
			case "error":
				if (params.willRetry === true) return { events: [], keep: true };
				return { events: this.#fail((params.error ?? {}) as { message?: string }), keep: true };
			case "turn/completed":
				return { events: this.#turnCompleted((params.turn ?? {}) as Record<string, unknown>), keep: true };
			default:
				break;
		}
		if (typeof event.method === "string" && /[Dd]elta$/.test(event.method)) return { events: [], keep: false };
		if (THREAD_REQUESTS.has(String(event.id)))
			this.#thread = (event.result as { thread?: { id?: string } } | undefined)?.thread?.id;
		const request = CREW_REQUESTS.get(String(event.id));
		const refused = event.error as { message?: string } | undefined;
		if (event.method === undefined && request !== undefined && refused !== undefined) {
			this.error = { message: `codex refused ${request}: ${refused.message ?? "no reason given"}`, retryable: false };
			return { events: [{ type: "error", ...this.error }], keep: true };
		}
		return { events: [], keep: true };
	}

	#completed(item: CodexItem): WorkerEvent[] {
		const id = String(item.id ?? "");
		if (item.type === "agentMessage" && item.text) {
			this.text = item.text;
			return [{ type: "assistant", text: item.text }];
		}
		const tool = toolOf(item);
		if (!tool) return [];
		const streamed = this.#outputs.get(id);
		this.#outputs.delete(id);
		const output = item.aggregatedOutput || streamed || item.result || item.error?.message;
		return [{ type: "tool-end", id, name: tool.name, isError: failed(item), ...withOutput(output) }];
	}

	/** The usage of `thread`'s responses since its last update: its totals' growth; none for `earlier` totals, only a start. */
	#tokens(thread: string, value: unknown, earlier: boolean): WorkerEvent[] {
		const total = ((value ?? {}) as { total?: CodexTokens }).total;
		if (!total) return [];
		const cached = total.cachedInputTokens ?? 0;
		const totals: Usage = {
			input: Math.max(0, (total.inputTokens ?? 0) - cached),
			output: total.outputTokens ?? 0,
			cacheRead: cached,
			cacheWrite: total.cacheWriteInputTokens ?? 0,
			cost: 0,
		};
		const before = this.#totals.get(thread) ?? ZERO_USAGE;
		const usage: Usage = {
			input: Math.max(0, totals.input - before.input),
			output: Math.max(0, totals.output - before.output),
			cacheRead: Math.max(0, totals.cacheRead - before.cacheRead),
			cacheWrite: Math.max(0, totals.cacheWrite - before.cacheWrite),
			cost: 0,
		};
		this.#totals.set(thread, totals);
		if (earlier) return [];
		if (usage.input + usage.output + usage.cacheRead + usage.cacheWrite === 0) return [];
		this.usage = addUsage(this.usage, usage);
		return [{ type: "usage", usage }];
	}

	#turnCompleted(turn: Record<string, unknown>): WorkerEvent[] {
		if (turn.status === "completed") {
			this.answered = true;
			return [];
		}
		if (this.error) return [];
		const error = (turn.error ?? {}) as { message?: string };
		return this.#fail({ message: error.message || `codex's turn ended ${String(turn.status ?? "without a status")}` });
	}

	#fail(error: { message?: string }): WorkerEvent[] {
		const message = error.message || "codex turn failed";
		this.error = { message, retryable: isRetryableModelError(message) };
		return [{ type: "error", ...this.error }];
	}
}
