// A task's events as the log lines people read, and its latest activity as one short line.

import type { SetAsideRecord } from "./records.js";
import { allowHint } from "./registries.js";
import { sandboxText } from "./sandbox-level.js";
import { originText } from "./session.js";
import { setAsideText } from "./set-aside-text.js";

/** What kind of thing a line of a task's log says. */
export const LogKind = {
	Attempt: "attempt",
	Assistant: "assistant",
	ToolCall: "tool-call",
	ToolResult: "tool-result",
	Output: "output",
	Error: "error",
	Commit: "commit",
	Status: "status",
	/** A person's message to the agent, and how it went. */
	Message: "message",
	/** A judge's verdict on the run's goal. */
	Verdict: "verdict",
	/** What the answer cited of its specs, and how their checks went. */
	Spec: "spec",
} as const;
export type LogKind = (typeof LogKind)[keyof typeof LogKind];

export interface LogEntry {
	readonly kind: LogKind;
	readonly text: string;
}

interface LoggedEvent {
	readonly type: string;
	readonly data: Readonly<Record<string, unknown>>;
}

const ENDED = /^task\.(completed|failed|cancelled|skipped|interrupted|superseded|needs_attention|waiting)$/;

/** Characters of a tool's arguments shown in its call line. */
const MAX_ARGS = 200;

function str(value: unknown): string {
	return typeof value === "string" ? value : "";
}

/** The argument that says most about a tool call: its command, path or pattern, else its JSON. */
function argsText(args: unknown): string {
	if (args === undefined || args === null) return "";
	if (typeof args !== "object") return String(args);
	const record = args as Record<string, unknown>;
	for (const key of ["command", "cmd", "file_path", "path", "pattern", "query", "url"]) {
		const value = record[key];
		if (typeof value === "string" && value !== "") return value.slice(0, MAX_ARGS);
		if (Array.isArray(value) && value.every((v) => typeof v === "string")) return value.join(" ").slice(0, MAX_ARGS);
	}
	const json = JSON.stringify(args);
	return json.length > MAX_ARGS ? `${json.slice(0, MAX_ARGS)}…` : json;
}

/**
 * A task's event as a line people read: what the agent said, the tools it called and what they
 * returned, what a command printed, and how each attempt began and ended. Events that say nothing
 * to a reader (usage, process ids) give undefined.
 */
export function logEntry({ type, data }: LoggedEvent): LogEntry | undefined {
	switch (type) {
		case "task.running": {
			const sandbox = data.sandbox as Parameters<typeof sandboxText>[0] | undefined;
			const how = [str(data.runtime), str(data.model), sandbox ? sandboxText(sandbox) : ""]
				.filter((s) => s !== "")
				.join(", ");
			return { kind: LogKind.Attempt, text: `attempt ${String(data.attempt ?? "?")}${how ? ` (${how})` : ""}` };
		}
		case "task.session": {
			const origin =
				typeof data.continued === "number" ? { continued: data.continued } : { startedOver: str(data.startedOver) };
			if (data.continued === undefined && data.startedOver === undefined) return undefined;
			return { kind: LogKind.Attempt, text: `attempt ${String(data.attempt ?? "?")}: ${originText(origin)}` };
		}
		case "worker.assistant":
			return { kind: LogKind.Assistant, text: str(data.text) };
		case "worker.tool-start":
			return { kind: LogKind.ToolCall, text: `${str(data.name)} ${argsText(data.args)}`.trim() };
		case "worker.tool-end": {
			const outcome = data.isError === true ? "failed" : "ok";
			const output = str(data.output);
			return { kind: LogKind.ToolResult, text: `${str(data.name)} ${outcome}${output ? `: ${output}` : ""}` };
		}
		case "worker.output":
			return { kind: LogKind.Output, text: str(data.text) };
		case "worker.error":
			return { kind: LogKind.Error, text: str(data.message) };
		case "sandbox.denied": {
			const port = typeof data.port === "number" ? { port: data.port } : {};
			const what =
				data.path !== undefined
					? `a write to ${str(data.path)}`
					: `a connection to ${str(data.host)}${data.port !== undefined ? `:${String(data.port)}` : ""}: ${allowHint({ host: str(data.host), ...port })}`;
			return { kind: LogKind.Error, text: `the sandbox refused ${what}` };
		}
		case "git.set-aside": {
			const folders = Array.isArray(data.folders) ? (data.folders as SetAsideRecord[]) : [];
			return { kind: LogKind.Error, text: folders.map(setAsideText).join("\n") };
		}
		case "scope.violated": {
			const paths = Array.isArray(data.paths) ? data.paths.join(", ") : "";
			return { kind: LogKind.Error, text: `changed files outside its scope, put back: ${paths}` };
		}
		case "task.steered":
			return { kind: LogKind.Message, text: `message ${String(data.message ?? "?")}: ${str(data.text)}` };
		case "task.steer.delivered":
			return { kind: LogKind.Message, text: `message ${String(data.message ?? "?")} delivered to its agent` };
		case "task.steer.refused":
			return { kind: LogKind.Error, text: `message ${String(data.message ?? "?")} refused: ${str(data.reason)}` };
		case "goal.verdict": {
			const said = str(data.verdict).toUpperCase().replace("-", "_");
			const pass = `pass ${String(data.iteration ?? "?")} of ${String(data.maxIterations ?? "?")}`;
			return {
				kind: LogKind.Verdict,
				text: `the judge: ${said} after ${pass}${data.reason ? `: ${str(data.reason)}` : ""}`,
			};
		}
		case "task.spec_gate": {
			const cited = Object.keys((data.cited ?? {}) as Record<string, unknown>);
			const missing = (data.missingMustIds ?? []) as string[];
			const said = data.footerPresent ? `cited ${cited.join(", ") || "no check"}` : "no SPEC-EVIDENCE footer";
			const short = missing.length > 0 ? `; musts not cited: ${missing.join(", ")}` : "";
			return { kind: LogKind.Spec, text: `${said}${short}${data.badge ? " (unverified)" : ""}` };
		}
		case "spec.checked": {
			const checks = (data.checks ?? []) as { acceptanceId: string; outcome: string; reason?: string }[];
			const lines = checks.map(
				(c) => `check ${c.acceptanceId} ${c.outcome.replace("-", " ")}${c.reason ? `: ${c.reason}` : ""}`,
			);
			return { kind: LogKind.Spec, text: lines.join("\n") };
		}
		case "worker.commit":
			return { kind: LogKind.Commit, text: `committed ${str(data.commit).slice(0, 12)} on ${str(data.branch)}` };
		default: {
			const ended = ENDED.exec(type);
			if (!ended) return undefined;
			const error = str(data.error);
			return { kind: LogKind.Status, text: `${ended[1]}${error ? `: ${error}` : ""}` };
		}
	}
}

/** Characters of a task's last activity shown in live views. */
const MAX_ACTIVITY = 120;

/** A log entry as one short line: what a task is doing now. */
export function activityLine(entry: LogEntry): string {
	const first = entry.text.trim().split("\n", 1)[0] ?? "";
	const prefix = entry.kind === LogKind.ToolCall ? "→ " : entry.kind === LogKind.ToolResult ? "← " : "";
	const line = `${prefix}${first}`;
	return line.length > MAX_ACTIVITY ? `${line.slice(0, MAX_ACTIVITY - 1)}…` : line;
}
