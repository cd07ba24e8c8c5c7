// An agent CLI's own session as an attempt records it, and the rule and words for continuing it.

/**
 * An attempt's agent CLI session as its record keeps it: the CLI, the agent, and the CLI's id for
 * it where the CLI names its sessions (Claude Code, Codex). No path: where its files are follows
 * from the attempt's folder and the CLI's, so a record cannot point crew at another file.
 */
export interface AgentSession {
	readonly cli: string;
	/** The agent whose conversation it is: another agent's is never continued. */
	readonly agent: string;
	readonly id?: string;
}

/** How an attempt began: in the session of an earlier attempt of its task, or afresh, and why. */
export type SessionOrigin = { readonly continued: number } | { readonly startedOver: string };

/** What an attempt asks of its runtime to continue an earlier attempt's session. */
export interface Continuation {
	/** The attempt whose session it continues. */
	readonly attempt: number;
	readonly session: AgentSession;
	/** What the agent is told on its return, in place of the task's prompt. */
	readonly message: string;
	/** The workspace as that attempt left it (`workspaceFingerprint`); absent where the task's worktree is its own. */
	readonly workspace?: string;
}

/** How an origin reads in views: `continued session of attempt 1`, `started over: model changed`. */
export function originText(origin: SessionOrigin): string {
	return "continued" in origin
		? `continued session of attempt ${origin.continued}`
		: `started over: ${origin.startedOver}`;
}

/**
 * Why an attempt cannot continue `previous`'s session, in a few words; undefined when it can, as far
 * as the records tell (the workspace is checked when the attempt starts).
 */
export function startOverReason(
	previous: {
		readonly number: number;
		readonly runtime: string;
		readonly model: string | null;
		readonly session: AgentSession | null;
	},
	next: {
		readonly runtime: string;
		readonly model: string | null;
		readonly agent: string;
		readonly allowed: string | true;
	},
): string | undefined {
	if (next.allowed !== true) return next.allowed;
	const { session } = previous;
	if (previous.runtime !== next.runtime) return `runtime changed (${previous.runtime} → ${next.runtime})`;
	if (session === null) return `attempt ${previous.number} left no session`;
	if (session.agent !== next.agent) return `agent changed (${session.agent} → ${next.agent})`;
	if ((previous.model ?? "") !== (next.model ?? ""))
		return `model changed (${previous.model ?? "the agent's default"} → ${next.model ?? "the agent's default"})`;
	return undefined;
}

/**
 * Why the agent is back, as crew tells it at the start of a continued attempt, from how the
 * attempt before ended. What a failed check printed and what a person answered follow it.
 */
export function returnMessage(previous: {
	readonly number: number;
	readonly status: string;
	readonly error: string | null;
}): string {
	const said = previous.error ?? "";
	const why =
		previous.status === "lost"
			? "it was interrupted: crew's runner stopped (a crash, a kill or a restart) while you worked"
			: previous.status === "cancelled"
				? "it was interrupted: the run was cancelled while you worked, and has been resumed"
				: previous.status === "timed-out" || previous.status === "stalled"
					? `a limit stopped it (${said})`
					: `it ended with an error: ${said}`;
	return [
		`crew: this is attempt ${previous.number + 1} at the same task, in the same conversation; attempt ${previous.number} did not finish, because ${why}.`,
		"The files you changed are as you left them. A tool call that was running when it stopped did not finish: its outcome is unknown, so check before relying on it.",
		"Go on with the task from where you left off, and end with the answer the task asks for.",
	].join("\n");
}
