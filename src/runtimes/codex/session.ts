// The threads of Codex: each attempt's kept as a rollout, and one that continues resumes a mended copy.

import { mkdirSync, readdirSync } from "node:fs";
import { join, sep } from "node:path";
import { isConfined } from "../../core/sandbox-level.js";
import type { SessionKeeping } from "../agent/agent-cli.js";
import { redactedSession, sessionRecord } from "../agent/attempt-session.js";
import { readPlainFile, writeAttemptFile } from "../attempt-files.js";

/** A thread id as Codex makes them; nothing else names a file. */
const THREAD_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The name of the redacted copy of its rollout an attempt keeps in its session folder. */
const KEPT = "session.jsonl";

/** What Codex is told of a tool call its process did not live to finish. */
const INTERRUPTED_TOOL =
	"crew: this tool call was interrupted (the agent's process was stopped); it did not finish and its outcome is unknown.";

/**
 * Codex keeps each attempt's thread as a rollout under its folder's `sessions/` (the attempt's own
 * folder when confined, else the user's), named after the thread's id, which Codex gives. A
 * confined attempt that continues gets the last attempt's rollout copied into its own folder,
 * with a failed output for each tool call that has none, and resumes that thread (`thread/resume`);
 * an unconfined one resumes the thread where Codex keeps it, whose cut tool calls Codex itself
 * answers as aborted.
 */
export const codexSessions: SessionKeeping = {
	open(request, { home, previous }) {
		const session = { cli: "codex", agent: request.agent.name };
		if (!previous) return { args: [], session };
		const id = previous.session.id;
		const none = { args: [], session, startedOver: `attempt ${previous.attempt} left no session` };
		if (id === undefined || !THREAD_ID.test(id)) return none;
		if (!isConfined(request.sandbox)) {
			return rollout([home], id) ? { args: [], session, continued: true, resume: id } : none;
		}
		const before = readPlainFile(join(previous.folder, KEPT)) ?? rollout(previous.homes, id)?.bytes;
		if (!before) return none;
		// Where Codex looks for it, under the name Codex gives its rollouts.
		const now = new Date().toISOString();
		const sessions = join(home, "sessions", now.slice(0, 4), now.slice(5, 7), now.slice(8, 10));
		mkdirSync(sessions, { recursive: true });
		const name = `rollout-${now.slice(0, 19).replaceAll(":", "-")}-${id}.jsonl`;
		writeAttemptFile(join(sessions, name), mended(redactedSession(before.toString("utf8"))));
		return { args: [], session, continued: true, resume: id };
	},
	keep(session, { folder, homes }) {
		const id = session.id;
		if (id === undefined || !THREAD_ID.test(id)) return;
		const found = rollout(homes, id);
		if (!found) return;
		const text = redactedSession(found.bytes.toString("utf8"));
		writeAttemptFile(join(folder, KEPT), text);
		// Codex's own copy, where it is among the attempt's files (a confined attempt's folder).
		const own = homes[0];
		if (own !== undefined && found.path.startsWith(`${own}${sep}`)) writeAttemptFile(found.path, text);
	},
};

/** Thread `id`'s rollout in the first of `homes` (Codex folders) that has it, read as a plain file. */
function rollout(homes: readonly string[], id: string): { readonly path: string; readonly bytes: Buffer } | undefined {
	for (const home of homes) {
		const sessions = join(home, "sessions");
		let names: string[];
		try {
			names = readdirSync(sessions, { recursive: true, encoding: "utf8" });
		} catch {
			// No threads kept in this folder.
			continue;
		}
		for (const name of names) {
			if (!name.endsWith(`-${id}.jsonl`)) continue;
			const path = join(sessions, name);
			const bytes = readPlainFile(path);
			if (bytes) return { path, bytes };
		}
	}
	return undefined;
}

/** Rollout `text` with a failed output after it for each tool call that has none. */
function mended(text: string): string {
	const lines = text.split("\n").filter((line) => line.trim() !== "");
	const calls = new Map<string, string>();
	const answered = new Set<string>();
	let ordinal = -1;
	for (const line of lines) {
		const record = sessionRecord(line);
		if (typeof record?.ordinal === "number") ordinal = Math.max(ordinal, record.ordinal);
		const payload = record?.type === "response_item" ? (record.payload as Record<string, unknown>) : undefined;
		const callId = payload?.call_id;
		if (typeof callId !== "string") continue;
		if (payload?.type === "function_call") calls.set(callId, "function_call_output");
		else if (payload?.type === "custom_tool_call") calls.set(callId, "custom_tool_call_output");
		else if (String(payload?.type).endsWith("_output")) answered.add(callId);
	}
	for (const [callId, type] of calls) {
		if (answered.has(callId)) continue;
		ordinal += 1;
		lines.push(
			JSON.stringify({
				timestamp: new Date().toISOString(),
				ordinal,
				type: "response_item",
				payload: { type, call_id: callId, output: INTERRUPTED_TOOL },
			}),
		);
	}
	return `${lines.join("\n")}\n`;
}
