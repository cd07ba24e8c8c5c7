import { addUsage, type Usage, ZERO_USAGE } from "../core/types.js";
import { withPartial } from "../core/usage.js";
import type { AgentStream } from "./agent-runtime.js";
import { isRetryableModelError } from "./model-errors.js";
import { withOutput } from "./tool-output.js";
import type { WorkerEvent, WorkerFailure } from "./worker-runtime.js";

interface CodexItem {
	readonly id?: string;
	readonly type?: string;
	readonly text?: string;
	readonly command?: string;
	readonly exit_code?: number | null;
	readonly status?: string;
	readonly changes?: unknown;
	readonly message?: string;
	readonly aggregated_output?: string;
}

interface CodexUsage {
	readonly input_tokens?: number;
	readonly cached_input_tokens?: number;
	readonly cache_write_input_tokens?: number;
	readonly output_tokens?: number;
}

/** The tool an item stands for, as crew names it; undefined for items that are not tool calls. */
function toolOf(item: CodexItem): { name: string; args?: unknown } | undefined {
	if (item.type === "command_execution") return { name: "command", args: { command: item.command } };
	if (item.type === "file_change") return { name: "apply_patch", args: { changes: item.changes } };
	if (item.type === "mcp_tool_call" || item.type === "web_search") return { name: item.type };
	return undefined;
}

/**
 * Reads `codex exec --json` output. The answer is the last `agent_message` item, usage comes with
 * each `turn.completed` (tokens only: Codex reports no cost), and `turn.failed` is the failure.
 * OpenAI counts cached tokens inside `input_tokens`; crew counts them apart, as cache reads. A
 * turn's model requests are reported only when it completes: from `turn.started` until then, the
 * usage is partial.
 */
export class CodexStream implements AgentStream {
	usage: Usage = ZERO_USAGE;
	text = "";
	answered = false;
	error: WorkerFailure | undefined;

	accept(event: Record<string, unknown>): { events: WorkerEvent[]; keep: boolean } {
		const item = (event.item ?? {}) as CodexItem;
		const id = String(item.id ?? "");
		const tool = toolOf(item);
		switch (event.type) {
			case "item.started":
				return { events: tool ? [{ type: "tool-start", id, name: tool.name, args: tool.args }] : [], keep: true };
			case "item.completed":
				if (item.type === "agent_message" && item.text) {
					this.text = item.text;
					return { events: [{ type: "assistant", text: item.text }], keep: true };
				}
				if (!tool) return { events: [], keep: true };
				return {
					events: [
						{
							type: "tool-end",
							id,
							name: tool.name,
							isError: item.status === "failed" || (typeof item.exit_code === "number" && item.exit_code !== 0),
							...withOutput(item.aggregated_output),
						},
					],
					keep: true,
				};
			case "turn.started":
				this.usage = withPartial(this.usage, true);
				return { events: [{ type: "usage", usage: withPartial(ZERO_USAGE, true) }], keep: true };
			case "turn.completed":
				return { events: this.#turnCompleted((event.usage ?? {}) as CodexUsage), keep: true };
			case "turn.failed": {
				const message = (event.error as { message?: string } | undefined)?.message || "codex turn failed";
				this.error = { message, retryable: isRetryableModelError(message) };
				return { events: [{ type: "error", ...this.error }], keep: true };
			}
			default:
				return { events: [], keep: true };
		}
	}

	#turnCompleted(u: CodexUsage): WorkerEvent[] {
		this.answered = true;
		const cached = u.cached_input_tokens ?? 0;
		const usage: Usage = {
			input: Math.max(0, (u.input_tokens ?? 0) - cached),
			output: u.output_tokens ?? 0,
			cacheRead: cached,
			cacheWrite: u.cache_write_input_tokens ?? 0,
			cost: 0,
		};
		this.usage = withPartial(addUsage(this.usage, usage), false);
		return [{ type: "usage", usage }];
	}
}
