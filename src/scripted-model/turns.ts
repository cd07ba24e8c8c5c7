// Turns of the scripted model, the requests it sees, and scripts that choose a turn for each request.

/** What the scripted model does on one request. */
export type Turn =
	/** Answer with text and end the agent's turn. */
	| { readonly kind: "text"; readonly text: string }
	/** Call the file-writing tool the request offers. */
	| { readonly kind: "write"; readonly path: string; readonly content: string }
	/** Call the shell tool the request offers. */
	| { readonly kind: "shell"; readonly command: string }
	/**
	 * Call the offered tool named `tool` with `args`; a tool whose name ends in `__<tool>` counts too
	 * (an MCP server's tool as Claude Code offers it, `mcp__<server>__<tool>`).
	 */
	| { readonly kind: "call"; readonly tool: string; readonly args: Readonly<Record<string, unknown>> }
	/** Answer with an HTTP error. */
	| { readonly kind: "error"; readonly status: number; readonly message: string }
	/** Never answer; the connection stays open until the client gives up or the server closes. */
	| { readonly kind: "hang" }
	/** Wait `ms`, then play `turn`. */
	| { readonly kind: "delay"; readonly ms: number; readonly turn: Turn };

/** The provider protocols the server speaks. */
export type ModelApi = "openai-chat" | "anthropic-messages" | "openai-responses";

/** One request as the server saw it, normalised across protocols. */
export interface ModelRequest {
	readonly api: ModelApi;
	/** Order of arrival, from 0. */
	readonly index: number;
	readonly model: string;
	readonly stream: boolean;
	/** Names of the tools the request offers. */
	readonly tools: readonly string[];
	/** The text of every message, in order, with its role. */
	readonly messages: readonly { readonly role: string; readonly text: string }[];
	/** Whether the last message carries a tool's result (the agent is mid-turn). */
	readonly afterToolResult: boolean;
	/**
	 * How much the request asks the model to reason, as the provider names it: OpenAI's
	 * `reasoning_effort` (chat) or `reasoning.effort` (responses), Anthropic's `output_config.effort`,
	 * or `off` when Anthropic's thinking is disabled; undefined when the request does not say.
	 */
	readonly reasoning: string | undefined;
	/** An estimate of the prompt's tokens: its characters / 4, rounded up. */
	readonly promptTokens: number;
	/** The request's HTTP headers, by lower-case name. */
	readonly headers: Readonly<Record<string, string>>;
	/** The request body as sent. */
	readonly body: unknown;
}

/** Decides the turn for each request. */
export type Script = (request: ModelRequest) => Turn;

/** A script that plays `turns` in order, one per request, then answers `done` forever. */
export function sequence(turns: readonly Turn[], done: Turn = { kind: "text", text: "done" }): Script {
	let next = 0;
	return () => turns[next++] ?? done;
}

/**
 * The usual agent exchange: `first(request)` when a new prompt arrives, and a closing text once
 * the tool's result comes back.
 */
export function actThenReport(first: Script, report = "done"): Script {
	return (request) => (request.afterToolResult ? { kind: "text", text: report } : first(request));
}

/** Characters / 4, rounded up: close enough to compare prompts, never zero for a non-empty one. */
export function estimateTokens(text: string): number {
	return Math.ceil(text.length / 4);
}
