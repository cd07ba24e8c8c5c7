import { expect, test } from "vitest";
import { CodexConversation } from "../../src/runtimes/codex/conversation.js";
import { CodexStream } from "../../src/runtimes/codex/stream.js";

const sent = (lines: string) =>
	lines
		.trim()
		.split("\n")
		.map((l) => JSON.parse(l));

/** Codex's answers up to a started turn, read by `talk`; what it sent in reply to each. */
function startTurn(talk: CodexConversation) {
	const first = sent(talk.prompt("the prompt"));
	const afterInit = talk.read({ id: "crew-initialize", result: {} });
	const afterThread = talk.read({ id: "crew-thread", result: { thread: { id: "T" } } });
	return { first, afterInit, afterThread };
}

test("Codex's app server is initialized, given a thread it keeps and a turn with the prompt, in that order", () => {
	const talk = new CodexConversation();
	const { first, afterInit, afterThread } = startTurn(talk);
	expect(first).toEqual([expect.objectContaining({ id: "crew-initialize", method: "initialize" })]);
	expect(afterInit && "send" in afterInit && sent(afterInit.send)).toEqual([
		{ method: "initialized" },
		{ id: "crew-thread", method: "thread/start", params: {} },
	]);
	expect(afterThread && "send" in afterThread && sent(afterThread.send)).toEqual([
		{
			id: "crew-turn",
			method: "turn/start",
			params: { threadId: "T", input: [{ type: "text", text: "the prompt", text_elements: [] }] },
		},
	]);
	expect(talk.read({ method: "turn/completed", params: { turn: { id: "U", status: "completed" } } })).toEqual({
		over: true,
	});
});

test("a message before the turn has an id waits for it, then steers that turn; Codex's answer settles it", () => {
	const talk = new CodexConversation();
	startTurn(talk);
	expect(talk.message("early", "crew-message-1")).toBe("");
	const started = talk.read({ method: "turn/started", params: { turn: { id: "U" } } });
	expect(started && "send" in started && sent(started.send)).toEqual([
		{
			id: "crew-message-1",
			method: "turn/steer",
			params: { threadId: "T", expectedTurnId: "U", input: [{ type: "text", text: "early", text_elements: [] }] },
		},
	]);
	// The turn's response, after its notice, changes nothing.
	expect(talk.read({ id: "crew-turn", result: { turn: { id: "U" } } })).toBeUndefined();
	expect(sent(talk.message("later", "crew-message-2"))[0].params.expectedTurnId).toBe("U");
	expect(talk.read({ id: "crew-message-1", result: { turnId: "U" } })).toEqual({ reply: "crew-message-1" });
	expect(talk.read({ id: "crew-message-2", error: { code: -32600, message: "no active turn" } })).toEqual({
		reply: "crew-message-2",
		refused: "no active turn",
	});
});

test("a request Codex makes of its client is a dialog, declined by its own id; a refused start ends the work", () => {
	const talk = new CodexConversation();
	startTurn(talk);
	const asked = talk.read({ id: 7, method: "item/commandExecution/requestApproval", params: {} });
	expect(asked).toEqual({ dialog: "7", asks: "item/commandExecution/requestApproval" });
	expect(sent(talk.dismiss("7"))).toEqual([
		{ id: 7, error: { code: -32000, message: "no person watches this agent" } },
	]);
	const refused = new CodexConversation();
	refused.prompt("p");
	expect(refused.read({ id: "crew-initialize", error: { code: -32600, message: "bad" } })).toEqual({ over: true });
});

test("another thread's turns (a sub-agent's) neither start nor end crew's; its usage counts, its errors and answers do not", () => {
	const talk = new CodexConversation();
	startTurn(talk);
	expect(talk.read({ method: "turn/started", params: { threadId: "S", turn: { id: "V" } } })).toBeUndefined();
	expect(talk.read({ method: "turn/completed", params: { threadId: "S", turn: { id: "V" } } })).toBeUndefined();
	expect(talk.read({ method: "turn/completed", params: { threadId: "T", turn: { id: "U" } } })).toEqual({ over: true });

	const stream = new CodexStream();
	stream.accept({ id: "crew-thread", result: { thread: { id: "T" } } });
	const tokens = (threadId: string, inputTokens: number) => ({
		method: "thread/tokenUsage/updated",
		params: { threadId, tokenUsage: { total: { inputTokens, cachedInputTokens: 0, outputTokens: 1 } } },
	});
	for (const [thread, input] of [
		["T", 100],
		["S", 5],
		["T", 110],
		["S", 7],
	] as const)
		stream.accept(tokens(thread, input));
	expect(stream.usage).toMatchObject({ input: 117, output: 2 });
	const message = (threadId: string, text: string) => ({
		method: "item/completed",
		params: { threadId, item: { id: text, type: "agentMessage", text } },
	});
	stream.accept(message("T", "mine"));
	stream.accept(message("S", "theirs"));
	stream.accept({ method: "error", params: { threadId: "S", willRetry: false, error: { message: "sub-agent fell" } } });
	stream.accept({ method: "turn/completed", params: { threadId: "S", turn: { status: "failed" } } });
	expect({ text: stream.text, error: stream.error, answered: stream.answered }).toEqual({
		text: "mine",
		error: undefined,
		answered: false,
	});
	stream.accept({ method: "turn/completed", params: { threadId: "T", turn: { status: "completed" } } });
	expect(stream.answered).toBe(true);
});

test("a continued attempt resumes its thread, and counts as its own only the usage of the turns it starts", () => {
	const talk = new CodexConversation(undefined, "T");
	talk.prompt("crew: you are back");
	const afterInit = talk.read({ id: "crew-initialize", result: {} });
	expect(afterInit && "send" in afterInit && sent(afterInit.send)).toEqual([
		{ method: "initialized" },
		{ id: "crew-resume", method: "thread/resume", params: { threadId: "T", excludeTurns: true } },
	]);
	const afterResume = talk.read({ id: "crew-resume", result: { thread: { id: "T" } } });
	expect(afterResume && "send" in afterResume && sent(afterResume.send)[0]).toMatchObject({
		method: "turn/start",
		params: { threadId: "T" },
	});

	const stream = new CodexStream();
	stream.accept({ id: "crew-resume", result: { thread: { id: "T" } } });
	expect(stream.session).toBe("T");
	const tokens = (turnId: string, inputTokens: number) => ({
		method: "thread/tokenUsage/updated",
		params: { threadId: "T", turnId, tokenUsage: { total: { inputTokens, cachedInputTokens: 0, outputTokens: 10 } } },
	});
	// The thread's totals so far, as the earlier attempt's last turn left them, come first.
	expect(stream.accept(tokens("U1", 6723)).events).toEqual([]);
	stream.accept({ method: "turn/started", params: { threadId: "T", turn: { id: "U2" } } });
	stream.accept(tokens("U2", 14665));
	expect(stream.usage).toMatchObject({ input: 7942, output: 0 });
});
