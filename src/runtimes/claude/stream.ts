// Claude Code's stream-json output read into crew's worker events, result and usage.

import { addUsage, isZeroUsage, maxUsage, type Usage, usageOver, withPartial, ZERO_USAGE } from "../../core/usage.js";
import type { AgentStream } from "../agent/agent-cli.js";
import { isRetryableModelError, isRetryableStatus } from "../agent/model-errors.js";
import { withOutput } from "../agent/tool-output.js";
import type { WorkerEvent, WorkerFailure } from "../worker-runtime.js";

interface ContentBlock {
	readonly type?: string;
	readonly text?: string;
	readonly id?: string;
	readonly name?: string;
	readonly input?: unknown;
	readonly tool_use_id?: string;
	readonly is_error?: boolean;
	readonly content?: unknown;
}

interface ClaudeUsage {
	readonly input_tokens?: number;
	readonly output_tokens?: number;
	readonly cache_read_input_tokens?: number;
	readonly cache_creation_input_tokens?: number;
}

interface ResultEvent {
	readonly subtype?: string;
	readonly is_error?: boolean;
	readonly result?: string;
	readonly api_error_status?: number | null;
	readonly total_cost_usd?: number;
	readonly usage?: ClaudeUsage;
}

function blocks(event: Record<string, unknown>): readonly ContentBlock[] {
	const content = (event.message as { content?: unknown } | undefined)?.content;
	return Array.isArray(content) ? content : [];
}

function usageOf(u: ClaudeUsage, cost: number): Usage {
	return {
		input: u.input_tokens ?? 0,
		output: u.output_tokens ?? 0,
		cacheRead: u.cache_read_input_tokens ?? 0,
		cacheWrite: u.cache_creation_input_tokens ?? 0,
		cost,
	};
}

/**
 * Reads Claude Code's stream-json output. Its last line, `result`, carries the answer, the run's
 * usage and cost, and `is_error`, which is what says whether it failed (`subtype` may still say
 * "success"). Each assistant line carries its message's usage as the message started: its input
 * and cache tokens, output tokens so far, no cost (a message of several blocks comes as several
 * lines repeating it). Those are reported as they come, as partial; the result's totals then
 * report the rest, and the usage is whole.
 */
export class ClaudeStream implements AgentStream {
	usage: Usage = ZERO_USAGE;
	text = "";
	answered = false;
	error: WorkerFailure | undefined;
	readonly #toolNames = new Map<string, string>();
	/** Usage reported so far of each message, by message id. */
	readonly #messages = new Map<string, Usage>();

	accept(event: Record<string, unknown>): { events: WorkerEvent[]; keep: boolean } {
		const events: WorkerEvent[] = [];
		if (event.type === "assistant") {
			events.push(...this.#messageUsage(event.message as { id?: unknown; usage?: ClaudeUsage } | undefined));
			for (const block of blocks(event)) {
				if (block.type === "text" && block.text) events.push({ type: "assistant", text: block.text });
				else if (block.type === "tool_use") {
					const id = String(block.id ?? "");
					const name = String(block.name ?? "");
					this.#toolNames.set(id, name);
					events.push({ type: "tool-start", id, name, args: block.input });
				}
			}
		} else if (event.type === "user") {
			for (const block of blocks(event)) {
				if (block.type !== "tool_result") continue;
				const id = String(block.tool_use_id ?? "");
				const name = this.#toolNames.get(id) ?? "";
				events.push({ type: "tool-end", id, name, isError: block.is_error === true, ...withOutput(block.content) });
			}
		} else if (event.type === "result") {
			events.push(...this.#result(event as ResultEvent));
		}
		return { events, keep: true };
	}

	/** What an assistant line's usage adds to its message's reported so far, as a partial report. */
	#messageUsage(message: { id?: unknown; usage?: ClaudeUsage } | undefined): WorkerEvent[] {
		if (!message?.usage || this.answered) return [];
		const id = typeof message.id === "string" ? message.id : `line-${this.#messages.size}`;
		const before = this.#messages.get(id) ?? ZERO_USAGE;
		const now = maxUsage(before, usageOf(message.usage, 0));
		this.#messages.set(id, now);
		const added = usageOver(now, before);
		if (isZeroUsage(added)) return [];
		this.usage = withPartial(addUsage(this.usage, added), true);
		return [{ type: "usage", usage: withPartial(added, true) }];
	}

	#result(result: ResultEvent): WorkerEvent[] {
		this.answered = true;
		this.text = result.result ?? "";
		const total = usageOf(result.usage ?? {}, result.total_cost_usd ?? 0);
		// The result's totals cover the messages already reported: only what they add is reported now.
		const added = usageOver(total, this.usage);
		this.usage = maxUsage(withPartial(this.usage, false), total);
		const events: WorkerEvent[] = [{ type: "usage", usage: added }];
		if (result.is_error) {
			const message = result.result || `claude ended with ${result.subtype ?? "an error"}`;
			const status = result.api_error_status;
			const retryable =
				result.subtype === "error_max_turns"
					? false
					: typeof status === "number"
						? isRetryableStatus(status)
						: isRetryableModelError(message);
			this.error = { message, retryable };
			events.push({ type: "error", ...this.error });
		}
		return events;
	}
}
