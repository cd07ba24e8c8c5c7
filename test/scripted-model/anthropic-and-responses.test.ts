import { expect, test } from "vitest";
import type { ScriptedModelServer } from "../../src/scripted-model/scripted-model-server.js";
import { actThenReport, sequence } from "../../src/scripted-model/turns.js";
import { serverStarter } from "./servers.js";

const start = serverStarter();

function post(server: ScriptedModelServer, path: string, body: object): Promise<Response> {
	return fetch(`${server.url}${path}`, {
		method: "POST",
		headers: { "content-type": "application/json" },
		body: JSON.stringify(body),
	});
}

/** The named events of an SSE body, in order, as [event name, data]. */
async function namedEvents(response: Response): Promise<[string, Record<string, unknown>][]> {
	expect(response.headers.get("content-type")).toBe("text/event-stream");
	const blocks = (await response.text()).split("\n\n").filter((b) => b.trim() !== "");
	return blocks.map((block) => {
		const [event, data] = block.split("\n");
		const name = event?.replace(/^event: /, "") ?? "";
		const parsed = JSON.parse(data?.replace(/^data: /, "") ?? "{}");
		expect(parsed.type).toBe(name);
		return [name, parsed];
	});
}

const claudeTools = [
	{ name: "Bash", input_schema: { type: "object", properties: { command: {} } } },
	{ name: "Write", input_schema: { type: "object", properties: { file_path: {}, content: {} } } },
];

test("Anthropic messages: a write turn streams a tool_use of Claude's Write tool, then the report ends the turn", async () => {
	const server = await start(actThenReport(() => ({ kind: "write", path: "notes.txt", content: "hi\n" }), "wrote it"));
	const first = await namedEvents(
		await post(server, "/v1/messages", {
			model: "claude-x",
			stream: true,
			system: [{ type: "text", text: "You are careful." }],
			tools: claudeTools,
			messages: [{ role: "user", content: [{ type: "text", text: "write a note" }] }],
		}),
	);
	expect(first.map(([name]) => name)).toEqual([
		"message_start",
		"content_block_start",
		"content_block_delta",
		"content_block_stop",
		"message_delta",
		"message_stop",
	]);
	expect(first[1]?.[1].content_block).toMatchObject({ type: "tool_use", name: "Write" });
	const delta = first[2]?.[1].delta as { partial_json: string };
	expect(JSON.parse(delta.partial_json)).toEqual({ file_path: "notes.txt", content: "hi\n" });
	expect(first[4]?.[1].delta).toMatchObject({ stop_reason: "tool_use" });

	const second = await namedEvents(
		await post(server, "/v1/messages", {
			model: "claude-x",
			stream: true,
			tools: claudeTools,
			messages: [
				{ role: "user", content: "write a note" },
				{ role: "assistant", content: [{ type: "tool_use", id: "toolu_0", name: "Write", input: {} }] },
				{ role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_0", content: "File created" }] },
			],
		}),
	);
	expect(second[2]?.[1].delta).toMatchObject({ text: "wrote it" });
	expect(server.requests.map((r) => [r.api, r.afterToolResult])).toEqual([
		["anthropic-messages", false],
		["anthropic-messages", true],
	]);
	expect(server.requests[0]?.messages[0]).toEqual({ role: "system", text: "You are careful." });
	expect(server.requests[0]?.tools).toEqual(["Bash", "Write"]);
});

test("Anthropic messages: errors come in Anthropic's shape, with the type the status means", async () => {
	const server = await start(sequence([{ kind: "error", status: 529, message: "busy" }]));
	const response = await post(server, "/v1/messages", { model: "m", messages: [{ role: "user", content: "hi" }] });
	expect(response.status).toBe(529);
	expect(await response.json()).toEqual({ type: "error", error: { type: "overloaded_error", message: "busy" } });
});

const codexTools = [
	{ type: "function", name: "exec_command", parameters: { type: "object", properties: { cmd: {} } } },
	{ type: "function", name: "write_stdin", parameters: { type: "object", properties: { chars: {} } } },
	{ type: "custom", name: "apply_patch", format: { type: "grammar" } },
];

test("OpenAI Responses: a write turn calls the freeform apply_patch tool with a patch adding the file", async () => {
	const server = await start(actThenReport(() => ({ kind: "write", path: "a/b.txt", content: "one\ntwo\n" })));
	const events = await namedEvents(
		await post(server, "/v1/responses", {
			model: "gpt-x",
			stream: true,
			instructions: "be brief",
			tools: codexTools,
			input: [{ type: "message", role: "user", content: [{ type: "input_text", text: "write it" }] }],
		}),
	);
	expect(events[0]?.[0]).toBe("response.created");
	const done = events.find(([name]) => name === "response.output_item.done")?.[1] as {
		item: { type: string; name: string; input: string };
	};
	expect(done.item).toMatchObject({ type: "custom_tool_call", name: "apply_patch" });
	expect(done.item.input).toBe("*** Begin Patch\n*** Add File: a/b.txt\n+one\n+two\n*** End Patch\n");
	const completed = events[events.length - 1];
	expect(completed?.[0]).toBe("response.completed");
	expect(completed?.[1].response).toMatchObject({ usage: { input_tokens: server.requests[0]?.promptTokens } });
	const report = await namedEvents(
		await post(server, "/v1/responses", {
			model: "gpt-x",
			stream: true,
			tools: codexTools,
			input: [
				{ type: "message", role: "user", content: "write it" },
				{ type: "custom_tool_call", call_id: "call_0", name: "apply_patch", input: "..." },
				{ type: "custom_tool_call_output", call_id: "call_0", output: "Success" },
			],
		}),
	);
	const text = report.find(([name]) => name === "response.output_text.delta")?.[1] as { delta: string };
	expect(text.delta).toBe("done");
	expect(server.requests.map((r) => [r.api, r.afterToolResult])).toEqual([
		["openai-responses", false],
		["openai-responses", true],
	]);
});

test("a write turn offered only a shell writes the file with a quoted shell command", async () => {
	const server = await start(sequence([{ kind: "write", path: "it's.txt", content: "a 'quoted' line\n" }]));
	const response = await post(server, "/v1/responses", {
		model: "gpt-x",
		tools: [codexTools[0], codexTools[1]],
		input: "write it",
	});
	const body = (await response.json()) as { output: { type: string; name: string; arguments: string }[] };
	expect(body.output[0]).toMatchObject({ type: "function_call", name: "exec_command" });
	const { cmd } = JSON.parse(body.output[0]?.arguments ?? "{}");
	expect(cmd).toBe("printf '%s' 'a '\\''quoted'\\'' line\n' > 'it'\\''s.txt'");
});
