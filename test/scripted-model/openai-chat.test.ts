import { expect, test } from "vitest";
import type { ScriptedModelServer } from "../../src/scripted-model/scripted-model-server.js";
import { actThenReport, sequence } from "../../src/scripted-model/turns.js";
import { serverStarter } from "./servers.js";

const start = serverStarter();

const piTools = [
	{ type: "function", function: { name: "read", parameters: { type: "object", properties: { path: {} } } } },
	{
		type: "function",
		function: { name: "write", parameters: { type: "object", properties: { path: {}, content: {} } } },
	},
	{ type: "function", function: { name: "bash", parameters: { type: "object", properties: { command: {} } } } },
];

/** The parts of a completion or an error body these tests read. */
interface Reply {
	readonly choices: {
		readonly finish_reason: string;
		readonly message: {
			readonly role: string;
			readonly content: string | null;
			readonly tool_calls: { readonly function: { readonly name: string; readonly arguments: string } }[];
		};
	}[];
	readonly error: { readonly message: string };
}

const reply = (response: Response) => response.json() as Promise<Reply>;

function chat(server: ScriptedModelServer, body: object, signal?: AbortSignal): Promise<Response> {
	return fetch(`${server.url}/v1/chat/completions`, {
		method: "POST",
		headers: { "content-type": "application/json" },
		body: JSON.stringify({ model: "scripted", tools: piTools, ...body }),
		...(signal ? { signal } : {}),
	});
}

/** The events of an SSE body, parsed; `[DONE]` ends it. */
async function events(response: Response): Promise<Record<string, unknown>[]> {
	const text = await response.text();
	const data = text
		.split("\n\n")
		.filter((block) => block.startsWith("data: "))
		.map((block) => block.slice(6));
	expect(data[data.length - 1]).toBe("[DONE]");
	return data.slice(0, -1).map((d) => JSON.parse(d));
}

test("a write turn calls the write tool the request offers, with the argument names of its schema", async () => {
	const server = await start(actThenReport(() => ({ kind: "write", path: "notes.txt", content: "hello" }), "wrote it"));
	const first = await chat(server, { messages: [{ role: "user", content: "write a note" }] });
	const completion = await reply(first);
	expect(completion.choices[0]?.finish_reason).toBe("tool_calls");
	expect(completion.choices[0]?.message.tool_calls[0]?.function).toEqual({
		name: "write",
		arguments: JSON.stringify({ path: "notes.txt", content: "hello" }),
	});
	const second = await chat(server, {
		messages: [
			{ role: "user", content: "write a note" },
			{ role: "assistant", content: null, tool_calls: completion.choices[0]?.message.tool_calls },
			{ role: "tool", tool_call_id: "call_0", content: "ok" },
		],
	});
	expect((await reply(second)).choices[0]?.message).toEqual({ role: "assistant", content: "wrote it" });
	expect(server.requests.map((r) => r.afterToolResult)).toEqual([false, true]);
	expect(server.requests[0]?.tools).toEqual(["read", "write", "bash"]);
});

test("a streamed answer is SSE chunks with the text, a finish reason and usage", async () => {
	const prompt = "x".repeat(400);
	const server = await start(sequence([{ kind: "text", text: "all good" }]));
	const response = await chat(server, {
		stream: true,
		stream_options: { include_usage: true },
		messages: [{ role: "user", content: prompt }],
	});
	expect(response.headers.get("content-type")).toBe("text/event-stream");
	const chunks = await events(response);
	const deltas = chunks.flatMap((c) =>
		(c.choices as { delta: { content?: string } }[]).map((ch) => ch.delta.content ?? ""),
	);
	expect(deltas.join("")).toBe("all good");
	expect(chunks.some((c) => (c.choices as { finish_reason: string }[])[0]?.finish_reason === "stop")).toBe(true);
	expect(chunks[chunks.length - 1]?.usage).toEqual({ prompt_tokens: 100, completion_tokens: 2, total_tokens: 102 });
	expect(server.requests[0]?.promptTokens).toBe(100);
});

test("a streamed shell turn calls the shell tool", async () => {
	const server = await start(sequence([{ kind: "shell", command: "npm test" }]));
	const chunks = await events(await chat(server, { stream: true, messages: [{ role: "user", content: "test it" }] }));
	const call = chunks
		.flatMap((c) => c.choices as { delta: { tool_calls?: { function: { name: string; arguments: string } }[] } }[])
		.find((ch) => ch.delta.tool_calls)?.delta.tool_calls?.[0];
	expect(call?.function).toEqual({ name: "bash", arguments: JSON.stringify({ command: "npm test" }) });
});

test("an error turn answers with the status and the message in OpenAI's error shape", async () => {
	const server = await start(sequence([{ kind: "error", status: 500, message: "the model fell over" }]));
	const response = await chat(server, { messages: [{ role: "user", content: "hi" }] });
	expect(response.status).toBe(500);
	expect((await reply(response)).error.message).toBe("the model fell over");
});

test("a delayed turn answers after the delay; a hung one never answers until the client gives up", async () => {
	const server = await start(
		sequence([{ kind: "delay", ms: 150, turn: { kind: "text", text: "late" } }, { kind: "hang" }]),
	);
	const started = Date.now();
	const late = await chat(server, { messages: [{ role: "user", content: "a" }] });
	expect((await reply(late)).choices[0]?.message.content).toBe("late");
	expect(Date.now() - started).toBeGreaterThanOrEqual(140);
	await expect(chat(server, { messages: [{ role: "user", content: "b" }] }, AbortSignal.timeout(300))).rejects.toThrow(
		/aborted|timeout/i,
	);
	expect(server.requests).toHaveLength(2);
});

test("bad requests get a clear error and are not logged as model requests", async () => {
	const server = await start(sequence([]));
	const notJson = await fetch(`${server.url}/v1/chat/completions`, { method: "POST", body: "{nope" });
	expect(notJson.status).toBe(400);
	expect((await reply(notJson)).error.message).toMatch(/request body is not JSON/);
	const unknown = await fetch(`${server.url}/v2/other`, { method: "POST", body: "{}" });
	expect(unknown.status).toBe(404);
	expect(server.requests).toEqual([]);
});
