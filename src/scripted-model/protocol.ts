// The shape of a provider protocol the scripted model server speaks, and helpers its protocols share.

import type { ServerResponse } from "node:http";
import type { OfferedTool } from "./tool-call.js";
import { estimateTokens, type ModelApi, type ModelRequest, type Turn } from "./turns.js";

/** A turn that is answered with a response body. */
export type AnswerTurn = Extract<Turn, { kind: "text" | "write" | "shell" | "call" }>;

/** One provider protocol the scripted server speaks: where it listens, how it reads and answers. */
export interface ModelProtocol {
	readonly api: ModelApi;
	/** The POST path, e.g. `/v1/chat/completions`. */
	readonly path: string;
	/** The request as its body says; the server adds its headers. */
	parse(body: unknown, index: number): { request: BodyRequest; tools: OfferedTool[] };
	respond(res: ServerResponse, request: ModelRequest, tools: readonly OfferedTool[], turn: AnswerTurn): void;
	/** An error body in the provider's own shape. */
	errorBody(status: number, message: string): string;
}

/** A request as its body says. */
export type BodyRequest = Omit<ModelRequest, "headers">;

/** The normalised request, with its prompt tokens estimated from every message's text. */
export function modelRequest(
	fields: Omit<BodyRequest, "tools" | "promptTokens">,
	tools: OfferedTool[],
): { request: BodyRequest; tools: OfferedTool[] } {
	const promptTokens = estimateTokens(fields.messages.map((m) => m.text).join("\n"));
	return { request: { ...fields, tools: tools.map((t) => t.name), promptTokens }, tools };
}

/** Starts an SSE response. */
export function startEvents(res: ServerResponse): void {
	res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
}

/** Writes one named SSE event whose data is `data` as JSON with its `type` set to the event name. */
export function sendEvent(res: ServerResponse, type: string, data: object): void {
	res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
}

/** The text of a message content: a string, or the `text` of each part joined. */
export function textOf(content: unknown): string {
	if (typeof content === "string") return content;
	if (Array.isArray(content)) {
		return content
			.map((part) => {
				if (typeof part?.text === "string") return part.text;
				// A tool result's own content (Anthropic `tool_result`, OpenAI `*_output`).
				if (part?.content !== undefined) return textOf(part.content);
				// A string, or content parts (Codex gives an MCP tool's result so).
				if (part?.output !== undefined) return textOf(part.output);
				return "";
			})
			.join("");
	}
	return "";
}
