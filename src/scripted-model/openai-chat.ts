// The OpenAI chat completions protocol of the scripted model server, plain and streamed: what pi speaks.

import type { ServerResponse } from "node:http";
import {
	type AnswerTurn,
	type BodyRequest,
	type ModelProtocol,
	modelRequest,
	startEvents,
	textOf,
} from "./protocol.js";
import { answerOf, type OfferedTool } from "./tool-call.js";
import type { ModelRequest } from "./turns.js";

interface ChatBody {
	readonly model?: string;
	readonly stream?: boolean;
	readonly reasoning_effort?: unknown;
	readonly messages?: readonly { readonly role?: string; readonly content?: unknown }[];
	readonly tools?: readonly {
		readonly function?: { readonly name?: string; readonly parameters?: { readonly properties?: object } };
	}[];
}

/** Reads an OpenAI chat-completions request body into the server's normalised request. */
function parseChatRequest(body: unknown, index: number): { request: BodyRequest; tools: OfferedTool[] } {
	const chat = (body ?? {}) as ChatBody;
	const messages = (chat.messages ?? []).map((m) => ({ role: String(m.role ?? ""), text: textOf(m.content) }));
	const tools = (chat.tools ?? []).map((t) => ({
		name: String(t.function?.name ?? ""),
		properties: Object.keys(t.function?.parameters?.properties ?? {}),
	}));
	return modelRequest(
		{
			api: "openai-chat",
			index,
			model: String(chat.model ?? ""),
			stream: chat.stream === true,
			reasoning: typeof chat.reasoning_effort === "string" ? chat.reasoning_effort : undefined,
			messages,
			afterToolResult: messages[messages.length - 1]?.role === "tool",
			body,
		},
		tools,
	);
}

/** Answers a text, write or shell turn as a chat completion, streamed as SSE when asked. */
function writeChatResponse(
	res: ServerResponse,
	request: ModelRequest,
	tools: readonly OfferedTool[],
	turn: AnswerTurn,
): void {
	const { call, text, outputTokens } = answerOf(turn, tools);
	const id = `chatcmpl-${request.index}`;
	const toolCall = call
		? {
				id: `call_${request.index}`,
				type: "function",
				function: { name: call.name, arguments: JSON.stringify(call.input) },
			}
		: undefined;
	const usage = {
		prompt_tokens: request.promptTokens,
		completion_tokens: outputTokens,
		total_tokens: request.promptTokens + outputTokens,
	};
	const finish = call ? "tool_calls" : "stop";
	const base = { id, created: Math.floor(Date.now() / 1000), model: request.model };
	if (!request.stream) {
		res.writeHead(200, { "content-type": "application/json" });
		res.end(
			JSON.stringify({
				...base,
				object: "chat.completion",
				choices: [
					{
						index: 0,
						message: {
							role: "assistant",
							content: call ? null : text,
							...(toolCall ? { tool_calls: [toolCall] } : {}),
						},
						finish_reason: finish,
					},
				],
				usage,
			}),
		);
		return;
	}
	startEvents(res);
	const chunk = (choices: unknown[], extra: object = {}) =>
		res.write(`data: ${JSON.stringify({ ...base, object: "chat.completion.chunk", choices, ...extra })}\n\n`);
	chunk([{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }]);
	if (toolCall) chunk([{ index: 0, delta: { tool_calls: [{ index: 0, ...toolCall }] }, finish_reason: null }]);
	else if (text) chunk([{ index: 0, delta: { content: text }, finish_reason: null }]);
	chunk([{ index: 0, delta: {}, finish_reason: finish }]);
	chunk([], { usage });
	res.end("data: [DONE]\n\n");
}

/** An error body in OpenAI's shape, with the type and code OpenAI gives each kind of status. */
export function openAiError(status: number, message: string): string {
	const [type, code] =
		status === 429
			? ["requests", "rate_limit_exceeded"]
			: status >= 500
				? ["server_error", null]
				: status === 401
					? ["invalid_request_error", "invalid_api_key"]
					: ["invalid_request_error", null];
	return JSON.stringify({ error: { message, type, param: null, code } });
}

/** OpenAI chat completions, plain and streamed: what pi speaks. */
export const openAiChat: ModelProtocol = {
	api: "openai-chat",
	path: "/v1/chat/completions",
	parse: parseChatRequest,
	respond: writeChatResponse,
	errorBody: openAiError,
};
