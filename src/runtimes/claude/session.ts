// The sessions of Claude Code: each attempt names its own, and one that continues forks a copy of the last.

import { randomUUID } from "node:crypto";
import { readdirSync } from "node:fs";
import { join, sep } from "node:path";
import type { SessionKeeping } from "../agent/agent-cli.js";
import { redactedSession, sessionRecord } from "../agent/attempt-session.js";
import { readPlainFile, writeAttemptFile } from "../attempt-files.js";

/** A session id as Claude Code takes it, and as crew makes them: nothing else names a file. */
const SESSION_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The name of the redacted copy of its session an attempt keeps in its session folder. */
const KEPT = "session.jsonl";

/**
 * Claude Code keeps each attempt's session under the id crew gives it (`--session-id`), in its
 * config folder's `projects/<cwd>/<id>.jsonl`: the attempt's own folder when confined, else the
 * user's. To continue, crew copies the last attempt's transcript into this attempt's session
 * folder, without its cost lines (Claude Code would report the earlier attempt's cost again as its
 * own), and Claude Code forks that copy under a new id (`--resume <copy> --fork-session`), so the
 * earlier attempt's transcript stays as it was. A tool call cut mid-way it tells the agent itself
 * was interrupted, its outcome unknown.
 */
export const claudeSessions: SessionKeeping = {
	open(request, { folder, previous }) {
		const id = randomUUID();
		const session = { cli: "claude", agent: request.agent.name, id };
		const fresh = ["--session-id", id];
		if (!previous) return { args: fresh, session };
		// The copy kept with that attempt, else (its runner died first) Claude Code's own.
		const before = readPlainFile(join(previous.folder, KEPT)) ?? transcript(previous.homes, previous.session.id)?.bytes;
		if (!before) return { args: fresh, session, startedOver: `attempt ${previous.attempt} left no session` };
		const copy = join(folder, "resume.jsonl");
		writeAttemptFile(copy, withoutCosts(redactedSession(before.toString("utf8"))));
		return { args: ["--resume", copy, "--fork-session", "--session-id", id], session, continued: true };
	},
	keep(session, { folder, homes }) {
		const found = transcript(homes, session.id);
		if (!found) return;
		const text = redactedSession(found.bytes.toString("utf8"));
		writeAttemptFile(join(folder, KEPT), text);
		// Claude Code's own copy, where it is among the attempt's files (a confined attempt's folder).
		const own = homes[0];
		if (own !== undefined && found.path.startsWith(`${own}${sep}`)) writeAttemptFile(found.path, text);
	},
};

/**
 * The transcript of session `id` in the first of `homes` (Claude Code config folders) that has it,
 * read as a plain file: a link an agent left in its place is no transcript.
 */
function transcript(
	homes: readonly string[],
	id: string | undefined,
): { readonly path: string; readonly bytes: Buffer } | undefined {
	if (id === undefined || !SESSION_ID.test(id)) return undefined;
	for (const home of homes) {
		const projects = join(home, "projects");
		let folders: string[];
		try {
			folders = readdirSync(projects);
		} catch {
			// No sessions kept in this folder.
			continue;
		}
		for (const folder of folders) {
			const path = join(projects, folder, `${id}.jsonl`);
			const bytes = readPlainFile(path);
			if (bytes) return { path, bytes };
		}
	}
	return undefined;
}

/** A transcript's lines without its `cost-state` records, from which a resumed session restores its costs so far. */
function withoutCosts(text: string): string {
	const kept = text.split("\n").filter((line) => line.trim() !== "" && sessionRecord(line)?.type !== "cost-state");
	return `${kept.join("\n")}\n`;
}
