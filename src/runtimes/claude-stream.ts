import { type Usage, ZERO_USAGE } from "../core/types.js";
import type { AgentStream } from "./agent-runtime.js";
import { isRetryableModelError, isRetryableStatus } from "./model-errors.js";
import { withOutput } from "./tool-output.js";
import type { WorkerEvent, WorkerFailure } from "./worker-runtime.js";

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

interface ResultEvent {
	readonly subtype?: string;
	readonly is_error?: boolean;
	readonly result?: string;
	readonly api_error_status?: number | null;
	readonly total_cost_usd?: number;
	readonly usage?: {
		readonly input_tokens?: number;
		readonly output_tokens?: number;
		readonly cache_read_input_tokens?: number;
		readonly cache_creation_input_tokens?: number;
	};
}

function blocks(event: Record<string, unknown>): readonly ContentBlock[] {
	const content = (event.message as { content?: unknown } | undefined)?.content;
	return Array.isArray(content) ? content : [];
}

/**
 * Reads Claude Code's stream-json output. Its last line, `result`, carries the answer, the run's
 * usage and cost, and `is_error`, which is what says whether it failed (`subtype` may still say
 * "success"). Usage is taken from there alone: each assistant line repeats its message's usage.
 */
export class ClaudeStream implements AgentStream {
	usage: Usage = ZERO_USAGE;
	text = "";
	answered = false;
	error: WorkerFailure | undefined;
	readonly #toolNames = new Map<string, string>();

	accept(event: Record<string, unknown>): { events: WorkerEvent[]; keep: boolean } {
		const events: WorkerEvent[] = [];
		if (event.type === "assistant") {
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

	#result(result: ResultEvent): WorkerEvent[] {
		this.answered = true;
		this.text = result.result ?? "";
		const u = result.usage ?? {};
		this.usage = {
			input: u.input_tokens ?? 0,
			output: u.output_tokens ?? 0,
			cacheRead: u.cache_read_input_tokens ?? 0,
			cacheWrite: u.cache_creation_input_tokens ?? 0,
			cost: result.total_cost_usd ?? 0,
		};
		const events: WorkerEvent[] = [{ type: "usage", usage: this.usage }];
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
