// The events of pi's JSON mode read into crew's worker events, result, usage and failure.

import { addUsage, type Usage, ZERO_USAGE } from "../../core/usage.js";
import type { AgentStream } from "../agent/agent-cli.js";
import { isRetryableModelError } from "../agent/model-errors.js";
import { withOutput } from "../agent/tool-output.js";
import type { WorkerEvent, WorkerFailure } from "../worker-runtime.js";

interface PiMessage {
	readonly role?: string;
	readonly content?: readonly { readonly type?: string; readonly text?: string }[];
	readonly stopReason?: string;
	readonly errorMessage?: string;
	readonly usage?: {
		readonly input?: number;
		readonly output?: number;
		readonly cacheRead?: number;
		readonly cacheWrite?: number;
		readonly cost?: { readonly total?: number };
	};
}

/**
 * Reads pi's `--mode json` events (the same in its RPC mode, with replies to commands) into crew's event schema. pi has no final summary event: the
 * result is the text of the last assistant message, usage is summed over assistant messages, and
 * a failure shows as an assistant message with `stopReason: "error"` (pi exits 0 even then).
 */
export class PiStream implements AgentStream {
	usage: Usage = ZERO_USAGE;
	text = "";
	answered = false;
	error: WorkerFailure | undefined;
	turns = 0;

	/** The crew events of one pi event, and whether the line belongs in the transcript. */
	accept(event: Record<string, unknown>): { events: WorkerEvent[]; keep: boolean } {
		switch (event.type) {
			// Each update repeats the whole partial message: kept out of the transcript.
			case "message_update":
				return { events: [], keep: false };
			case "message_end":
				return { events: this.#messageEnd((event.message ?? {}) as PiMessage), keep: true };
			case "tool_execution_start":
				return {
					events: [
						{
							type: "tool-start",
							id: String(event.toolCallId ?? ""),
							name: String(event.toolName ?? ""),
							args: event.args,
						},
					],
					keep: true,
				};
			case "tool_execution_end":
				return {
					events: [
						{
							type: "tool-end",
							id: String(event.toolCallId ?? ""),
							name: String(event.toolName ?? ""),
							isError: event.isError === true,
							...withOutput(event.result),
						},
					],
					keep: true,
				};
			// A command pi refused: the prompt's refusal is the attempt's failure.
			case "response":
				if (event.success !== false || event.command !== "prompt") return { events: [], keep: true };
				// Its first line says why; the rest is advice for pi's own interactive user.
				this.error = { message: `pi refused the prompt: ${firstLine(event.error)}`, retryable: false };
				return { events: [{ type: "error", ...this.error }], keep: true };
			default:
				return { events: [], keep: true };
		}
	}

	#messageEnd(message: PiMessage): WorkerEvent[] {
		if (message.role !== "assistant") return [];
		this.answered = true;
		this.turns++;
		const events: WorkerEvent[] = [];
		const u = message.usage;
		if (u) {
			const usage: Usage = {
				input: u.input ?? 0,
				output: u.output ?? 0,
				cacheRead: u.cacheRead ?? 0,
				cacheWrite: u.cacheWrite ?? 0,
				cost: u.cost?.total ?? 0,
			};
			this.usage = addUsage(this.usage, usage);
			events.push({ type: "usage", usage });
		}
		const text = (message.content ?? [])
			.filter((part) => part.type === "text")
			.map((part) => part.text ?? "")
			.join("");
		if (text !== "") {
			this.text = text;
			events.push({ type: "assistant", text });
		}
		if (message.stopReason === "error") {
			const reason = message.errorMessage ?? "the model request failed";
			this.error = { message: reason, retryable: isRetryableModelError(reason) };
			events.push({ type: "error", ...this.error });
		}
		return events;
	}
}

function firstLine(text: unknown): string {
	const line = typeof text === "string" ? (text.split("\n").find((l) => l.trim() !== "") ?? "") : "";
	return line.trim() || "no reason given";
}
