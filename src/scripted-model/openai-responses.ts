// The OpenAI Responses protocol of the scripted model server, plain and streamed: what Codex speaks.

import type { ServerResponse } from "node:http";
import { openAiError } from "./openai-chat.js";
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

interface ResponsesBody {
	readonly model?: string;
	readonly stream?: boolean;
	readonly instructions?: unknown;
	readonly input?: unknown;
	readonly reasoning?: { readonly effort?: unknown };
	readonly tools?: readonly ResponsesTool[];
}

interface ResponsesTool {
	readonly type?: string;
	readonly name?: string;
	readonly parameters?: { readonly properties?: object };
	/** A namespace's own tools. */
	readonly tools?: readonly ResponsesTool[];
	/** The namespace a found tool is in. */
	readonly namespace?: string;
}

interface InputItem {
	readonly type?: string;
	readonly tools?: readonly ResponsesTool[];
	readonly role?: string;
	readonly content?: unknown;
	readonly output?: unknown;
}

function parse(body: unknown, index: number): { request: BodyRequest; tools: OfferedTool[] } {
	const input = (body ?? {}) as ResponsesBody;
	const items: readonly InputItem[] =
		typeof input.input === "string"
			? [{ type: "message", role: "user", content: input.input }]
			: ((input.input as InputItem[]) ?? []);
	const instructions = textOf(input.instructions);
	const messages = [
		...(instructions ? [{ role: "system", text: instructions }] : []),
		...items.map((item) =>
			item.type === "message" || item.role !== undefined
				? { role: String(item.role ?? ""), text: textOf(item.content) }
				: { role: item.type?.endsWith("_output") ? "tool" : String(item.type ?? ""), text: textOf([item]) },
		),
	];
	// Tools the client's tool search found, each in its namespace, are offered from then on.
	const found = items.flatMap((item) => (item.type === "tool_search_output" ? (item.tools ?? []) : []));
	const flat = [...(input.tools ?? []), ...found].flatMap((t) =>
		t.type === "namespace" ? (t.tools ?? []).map((inner) => ({ ...inner, namespace: t.name })) : [t],
	);
	const tools = flat
		.filter((t) => typeof t.name === "string" || t.type === "tool_search")
		.map((t) => ({
			name: t.type === "tool_search" ? TOOL_SEARCH : `${t.namespace ? `${t.namespace}__` : ""}${t.name}`,
			properties: Object.keys(t.parameters?.properties ?? {}),
			freeform: t.type === "custom",
		}))
		.filter((t, i, all) => all.findIndex((o) => o.name === t.name) === i);
	return modelRequest(
		{
			api: "openai-responses",
			index,
			model: String(input.model ?? ""),
			stream: input.stream === true,
			reasoning: typeof input.reasoning?.effort === "string" ? input.reasoning.effort : undefined,
			messages,
			afterToolResult: items[items.length - 1]?.type?.endsWith("_output") === true,
			body,
		},
		tools,
	);
}

/** The name a client-run tool search goes by among the offered tools. */
const TOOL_SEARCH = "tool_search";

/** A found tool's call names it within its namespace, `mcp__crew__ask` as `ask` in `mcp__crew`. */
function namespaced(name: string): { name: string; namespace?: string } {
	const cut = name.lastIndexOf("__");
	return name.startsWith("mcp__") && cut > 4 ? { name: name.slice(cut + 2), namespace: name.slice(0, cut) } : { name };
}

/** Answers a turn as an OpenAI response, streamed as SSE when asked. */
function respond(res: ServerResponse, request: ModelRequest, tools: readonly OfferedTool[], turn: AnswerTurn): void {
	const { call, text, outputTokens } = answerOf(turn, tools);
	const callId = `call_${request.index}`;
	// A tool not offered yet may be found by the client's tool search: the model searches for it first.
	const search =
		!call && turn.kind === "call" && tools.some((t) => t.name === TOOL_SEARCH)
			? {
					type: "tool_search_call",
					id: `ts_${request.index}`,
					call_id: callId,
					execution: "client",
					status: "completed",
					arguments: { query: turn.tool },
				}
			: undefined;
	const item = search
		? search
		: !call
			? {
					type: "message",
					id: `msg_${request.index}`,
					role: "assistant",
					status: "completed",
					content: [{ type: "output_text", text, annotations: [] }],
				}
			: typeof call.input === "string"
				? { type: "custom_tool_call", id: `ctc_${request.index}`, call_id: callId, name: call.name, input: call.input }
				: {
						type: "function_call",
						id: `fc_${request.index}`,
						call_id: callId,
						...namespaced(call.name),
						arguments: JSON.stringify(call.input),
						status: "completed",
					};
	const response = {
		id: `resp_${request.index}`,
		object: "response",
		created_at: Math.floor(Date.now() / 1000),
		model: request.model,
		status: "completed",
		output: [item],
		usage: {
			input_tokens: request.promptTokens,
			input_tokens_details: { cached_tokens: 0 },
			output_tokens: outputTokens,
			output_tokens_details: { reasoning_tokens: 0 },
			total_tokens: request.promptTokens + outputTokens,
		},
	};
	if (!request.stream) {
		res.writeHead(200, { "content-type": "application/json" });
		res.end(JSON.stringify(response));
		return;
	}
	startEvents(res);
	let sequence = 0;
	const send = (type: string, data: object) => sendEvent(res, type, { ...data, sequence_number: sequence++ });
	send("response.created", { response: { ...response, status: "in_progress", output: [], usage: null } });
	send("response.output_item.added", { output_index: 0, item: { ...item, status: "in_progress" } });
	if (!call && !search) {
		send("response.output_text.delta", { item_id: item.id, output_index: 0, content_index: 0, delta: text });
		send("response.output_text.done", { item_id: item.id, output_index: 0, content_index: 0, text });
	}
	send("response.output_item.done", { output_index: 0, item });
	send("response.completed", { response });
	res.end();
}

/** OpenAI Responses, plain and streamed: what Codex speaks. */
export const openAiResponses: ModelProtocol = {
	api: "openai-responses",
	path: "/v1/responses",
	parse,
	respond,
	errorBody: openAiError,
};
