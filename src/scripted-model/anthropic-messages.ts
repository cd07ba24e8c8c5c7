// The Anthropic messages protocol of the scripted model server, plain and streamed: what Claude Code speaks.

import type { ServerResponse } from "node:http";
import {
	type AnswerTurn,
	type BodyRequest,
	type ModelProtocol,
	modelRequest,
	sendEvent,
	startEvents,
	textOf,
} from "./protocol.js";
import { answerOf, type OfferedTool } from "./tool-call.js";
import type { ModelRequest } from "./turns.js";

interface MessagesBody {
	readonly model?: string;
	readonly stream?: boolean;
	readonly system?: unknown;
	readonly thinking?: { readonly type?: unknown };
	readonly output_config?: { readonly effort?: unknown };
	readonly messages?: readonly { readonly role?: string; readonly content?: unknown }[];
	readonly tools?: readonly { readonly name?: string; readonly input_schema?: { readonly properties?: object } }[];
}

/** The effort the request asks for, or `off` when its thinking is disabled. */
function reasoningOf(input: MessagesBody): string | undefined {
	if (input.thinking?.type === "disabled") return "off";
	const effort = input.output_config?.effort;
	return typeof effort === "string" ? effort : undefined;
}

function hasToolResult(content: unknown): boolean {
	return Array.isArray(content) && content.some((part) => part?.type === "tool_result");
}

function parse(body: unknown, index: number): { request: BodyRequest; tools: OfferedTool[] } {
	const input = (body ?? {}) as MessagesBody;
	const system = textOf(input.system);
	const messages = [
		...(system ? [{ role: "system", text: system }] : []),
		...(input.messages ?? []).map((m) => ({ role: String(m.role ?? ""), text: textOf(m.content) })),
	];
	const tools = (input.tools ?? []).map((t) => ({
		name: String(t.name ?? ""),
		properties: Object.keys(t.input_schema?.properties ?? {}),
	}));
	const last = input.messages?.[input.messages.length - 1];
	return modelRequest(
		{
			api: "anthropic-messages",
			index,
			model: String(input.model ?? ""),
			stream: input.stream === true,
			reasoning: reasoningOf(input),
			messages,
			afterToolResult: last?.role === "user" && hasToolResult(last.content),
			body,
		},
		tools,
	);
}

/** Answers a turn as an Anthropic message, streamed as SSE when asked. */
function respond(res: ServerResponse, request: ModelRequest, tools: readonly OfferedTool[], turn: AnswerTurn): void {
	const { call, text, outputTokens } = answerOf(turn, tools);
	const block = call
		? { type: "tool_use", id: `toolu_${request.index}`, name: call.name, input: call.input }
		: { type: "text", text };
	const usage = {
		input_tokens: request.promptTokens,
		output_tokens: outputTokens,
		cache_creation_input_tokens: 0,
		cache_read_input_tokens: 0,
	};
	const stopReason = call ? "tool_use" : "end_turn";
	const message = {
		id: `msg_${request.index}`,
		type: "message",
		role: "assistant",
		model: request.model,
		stop_sequence: null,
	};
	if (!request.stream) {
		res.writeHead(200, { "content-type": "application/json" });
		res.end(JSON.stringify({ ...message, content: [block], stop_reason: stopReason, usage }));
		return;
	}
	startEvents(res);
	sendEvent(res, "message_start", {
		message: { ...message, content: [], stop_reason: null, usage: { ...usage, output_tokens: 1 } },
	});
	if (call) {
		sendEvent(res, "content_block_start", { index: 0, content_block: { ...block, input: {} } });
		sendEvent(res, "content_block_delta", {
			index: 0,
			delta: { type: "input_json_delta", partial_json: JSON.stringify(call.input) },
		});
	} else {
		sendEvent(res, "content_block_start", { index: 0, content_block: { type: "text", text: "" } });
		sendEvent(res, "content_block_delta", { index: 0, delta: { type: "text_delta", text } });
	}
	sendEvent(res, "content_block_stop", { index: 0 });
	sendEvent(res, "message_delta", {
		delta: { stop_reason: stopReason, stop_sequence: null },
		usage: { output_tokens: outputTokens },
	});
	sendEvent(res, "message_stop", {});
	res.end();
}

function errorBody(status: number, message: string): string {
	const type =
		status === 429
			? "rate_limit_error"
			: status === 529
				? "overloaded_error"
				: status >= 500
					? "api_error"
					: status === 401
						? "authentication_error"
						: "invalid_request_error";
	return JSON.stringify({ type: "error", error: { type, message } });
}

/** Anthropic messages, plain and streamed: what Claude Code speaks. */
export const anthropicMessages: ModelProtocol = {
	api: "anthropic-messages",
	path: "/v1/messages",
	parse,
	respond,
	errorBody,
};
