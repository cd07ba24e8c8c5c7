// The session files of pi: each attempt keeps its own; one that continues starts from a mended copy.

import { randomBytes } from "node:crypto";
import { join } from "node:path";
import type { SessionKeeping } from "../agent/agent-cli.js";
import { redactedSession, sessionRecord } from "../agent/attempt-session.js";
import { readPlainFile, writeAttemptFile } from "../attempt-files.js";

/** The name of an attempt's session file in its session folder. */
const SESSION_FILE = "session.jsonl";

/** What pi is told of a tool call its process did not live to finish. */
const INTERRUPTED_TOOL =
	"crew: this tool call was interrupted (the agent's process was stopped); it did not finish and its outcome is unknown.";

/**
 * pi keeps the attempt's session in the file crew names (`--session <file>`, which it creates).
 * To continue, the previous attempt's file is copied, never shared (one writer per file), with
 * its working directory made this attempt's (pi runs where the header says) and a failed result
 * added for each tool call that has none, so the agent is never told an interrupted call succeeded.
 */
export const piSessions: SessionKeeping = {
	open(request, { folder, previous }) {
		const file = join(folder, SESSION_FILE);
		const session = { cli: "pi", agent: request.agent.name };
		const args = ["--session", file];
		if (!previous) return { args, session };
		// pi 0.73 writes its file at its first answer: an attempt stopped before it has none. What the
		// agent left in its place (a link, say) is none either: crew reads it outside the sandbox.
		const kept = join(previous.folder, SESSION_FILE);
		const before = readPlainFile(kept);
		if (!before) return { args, session, startedOver: `attempt ${previous.attempt} left no session` };
		// Redacted here too: an attempt whose runner died kept its file as pi wrote it.
		const text = redactedSession(before.toString("utf8"));
		writeAttemptFile(kept, text);
		writeAttemptFile(file, mended(text, request.cwd));
		return { args, session, continued: true };
	},
	keep(_session, { folder }) {
		const file = join(folder, SESSION_FILE);
		const text = readPlainFile(file);
		if (text) writeAttemptFile(file, redactedSession(text.toString("utf8")));
	},
};

/** Session file `text` with `cwd` as its working directory and every unanswered tool call answered as interrupted. */
function mended(text: string, cwd: string): string {
	const lines = text.split("\n").filter((line) => line.trim() !== "");
	const entries = lines.map(sessionRecord);
	const header = entries[0];
	if (header?.type === "session") lines[0] = JSON.stringify({ ...header, cwd });
	const calls = new Map<string, string>();
	const answered = new Set<string>();
	for (const entry of entries) {
		const message = entry?.message as Record<string, unknown> | undefined;
		if (entry?.type !== "message" || !message) continue;
		if (message.role === "toolResult" && typeof message.toolCallId === "string") answered.add(message.toolCallId);
		if (message.role === "assistant" && Array.isArray(message.content)) {
			for (const block of message.content as Record<string, unknown>[]) {
				if (block.type === "toolCall" && typeof block.id === "string") calls.set(block.id, String(block.name ?? ""));
			}
		}
	}
	let parent = [...entries].reverse().find((e) => typeof e?.id === "string")?.id as string | undefined;
	for (const [id, name] of calls) {
		if (answered.has(id)) continue;
		const entryId = randomBytes(4).toString("hex");
		const now = new Date();
		lines.push(
			JSON.stringify({
				type: "message",
				id: entryId,
				parentId: parent ?? null,
				timestamp: now.toISOString(),
				message: {
					role: "toolResult",
					toolCallId: id,
					toolName: name,
					content: [{ type: "text", text: INTERRUPTED_TOOL }],
					isError: true,
					timestamp: now.getTime(),
				},
			}),
		);
		parent = entryId;
	}
	return `${lines.join("\n")}\n`;
}
