// An attempt's agent session: where its CLI keeps it, and whether it continues the attempt before's.

import { type Dirent, mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { redact, redactDeep } from "../../core/redact.js";
import { isConfined } from "../../core/sandbox-level.js";
import type { AgentSession, SessionOrigin } from "../../core/session.js";
import { readPlainFile, writeAttemptFile } from "../attempt-files.js";
import type { TaskRequest } from "../worker-runtime.js";
import type { AgentCli } from "./agent-cli.js";

/** The session an attempt's CLI is started with: its arguments, its record, and the first message the agent gets. */
export interface AttemptSession {
	readonly args: readonly string[];
	/** The attempt's own session folder, which a confined CLI may write. */
	readonly folder: string | undefined;
	readonly session: AgentSession | undefined;
	readonly origin: SessionOrigin | undefined;
	/** The task's prompt, or, continuing, what crew tells the agent on its return. */
	readonly prompt: string;
	/** The session its conversation resumes, where the CLI resumes one that way. */
	readonly resume?: string;
	/** Once the attempt's processes have ended: keeps `session` (its record, named by now) with its files, redacted. */
	close(session: AgentSession | undefined): void;
}

/**
 * Opens the session of attempt `base` of `request` with `cli`: in a folder of the attempt's own
 * (`<base>.session`), continuing the session the request names when the CLI can have it. Paths
 * come from the task's folder and the CLI's, never from a record, so a record cannot point the
 * CLI at another file.
 */
export function openSession(cli: AgentCli, request: TaskRequest, base: string, env: NodeJS.ProcessEnv): AttemptSession {
	const keeping = cli.sessions;
	const asked = request.session;
	const plain = { args: [], folder: undefined, session: undefined, prompt: request.prompt, close: () => undefined };
	if (!keeping) return { ...plain, origin: asked && "startedOver" in asked ? asked : undefined };
	const folder = join(request.artifactDir, `${base}.session`);
	mkdirSync(folder, { recursive: true });
	const theirs = cli.home(env).dir;
	const continuing = asked && "attempt" in asked ? asked : undefined;
	const previous = continuing && {
		attempt: continuing.attempt,
		session: continuing.session,
		folder: join(request.artifactDir, `attempt-${continuing.attempt}.session`),
		homes: [join(request.artifactDir, `attempt-${continuing.attempt}.home`), theirs],
	};
	const own = join(request.artifactDir, `${base}.home`);
	const home = isConfined(request.sandbox) ? own : theirs;
	const opened = keeping.open(request, { folder, home, ...(previous ? { previous } : {}) });
	const homes = [own, theirs];
	const origin: SessionOrigin | undefined = continuing
		? opened.continued
			? { continued: continuing.attempt }
			: { startedOver: opened.startedOver ?? `${cli.name} cannot continue attempt ${continuing.attempt}'s session` }
		: asked && "startedOver" in asked
			? asked
			: undefined;
	return {
		args: opened.args,
		folder,
		session: opened.session,
		origin,
		prompt: continuing && opened.continued ? continuing.message : request.prompt,
		...(opened.continued && opened.resume ? { resume: opened.resume } : {}),
		close: (session) => keeping.keep(session ?? opened.session, { folder, homes }),
	};
}

/**
 * Session file `text` with every secret redacted, record by record, so each line stays one JSON
 * record; a line that is not one (cut by a kill) is redacted as text.
 */
export function redactedSession(text: string): string {
	return text
		.split("\n")
		.map((line) => {
			if (line.trim() === "") return line;
			try {
				return JSON.stringify(redactDeep(JSON.parse(line)));
			} catch {
				// A torn line: its CLI skips it, and it is kept redacted as the text it is.
				return redact(line);
			}
		})
		.join("\n");
}

/**
 * Redacts every session file an attempt of the task in `taskDir` left in its own folders (its
 * session folder, and its CLI folder when confined): for an attempt whose runner died before it
 * could keep its session, as `close` does for one that ended. Links are never followed.
 */
export function redactLeftSessions(taskDir: string, attempt: number): void {
	for (const folder of [`attempt-${attempt}.session`, `attempt-${attempt}.home`]) redactTree(join(taskDir, folder));
}

/** Rewrites each plain `.jsonl` file under `dir` redacted, going into no link. */
function redactTree(dir: string): void {
	let entries: Dirent[];
	try {
		entries = readdirSync(dir, { withFileTypes: true });
	} catch {
		// Not there: the attempt kept nothing here.
		return;
	}
	for (const entry of entries) {
		const path = join(dir, entry.name);
		if (entry.isDirectory()) redactTree(path);
		else if (entry.isFile() && entry.name.endsWith(".jsonl")) {
			const text = readPlainFile(path);
			if (text) writeAttemptFile(path, redactedSession(text.toString("utf8")));
		}
	}
}

/** One line of a session file as a record; undefined for a line that is not one (cut by a kill: the CLIs skip it too). */
export function sessionRecord(line: string): Record<string, unknown> | undefined {
	try {
		const value: unknown = JSON.parse(line);
		return value !== null && typeof value === "object" ? (value as Record<string, unknown>) : undefined;
	} catch {
		// A torn line: read past, as its CLI does.
		return undefined;
	}
}
