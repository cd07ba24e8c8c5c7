// The agent CLIs crew's tests drive, and how each differs: its program, its words for failures, what it supports.

import { join } from "node:path";
import type { ScriptedCliName } from "../../../src/scripted-model/cli-setup.js";
import { PI_1, ROOT } from "../../helpers.js";

/** Each agent CLI, as its tests differ: how it is started and what it says when a 500 comes back. */
export const AGENT_CLIS: readonly {
	readonly label: string;
	readonly name: ScriptedCliName;
	readonly command?: readonly string[];
	readonly serverError: RegExp;
	readonly unreachable: RegExp;
	/** What it says of the same in crew's sandbox, where the gate takes its connection and drops it. */
	readonly unreachableConfined: RegExp;
	/**
	 * The timeout its task gets against an unreachable server: room on a loaded machine for a CLI
	 * that gives up by itself, the test's own figure for one whose end is crew's timeout.
	 */
	readonly unreachableTimeoutMs: number;
	readonly reportsCost: boolean;
	/**
	 * What it has reported of a response when it is cut: all of it (pi and Codex, at each
	 * response's end), or its input tokens as a lower bound (Claude Code, at each response's start).
	 */
	readonly cutUsage: "whole" | "input";
	/** Whether crew can give its agent a message while it works. */
	readonly steers: boolean;
	/** Whether crew gives its agent the `ask` tool. */
	readonly asks: boolean;
	/** Whether a later attempt continues the agent's own session. */
	readonly continues: boolean;
	/** What the continued agent is told of a tool call its process did not live to finish. */
	readonly interruptedTool: string;
}[] = [
	{
		label: "pi 0.73 (bundled)",
		name: "pi",
		serverError: /500 the model fell over/,
		unreachable: /^Connection error\. \(log: \/.*\/attempt-1\.stderr\.log\)$/,
		unreachableConfined: /^Connection error\. \(log: \/.*\/attempt-1\.stderr\.log\); /,
		unreachableTimeoutMs: 30_000,
		reportsCost: true,
		cutUsage: "whole",
		steers: true,
		asks: true,
		continues: true,
		interruptedTool: "this tool call was interrupted",
	},
	{
		label: "pi 1.x",
		name: "pi",
		command: PI_1,
		// pi 1.x puts the status, then the provider's body, and the connection's own error.
		serverError: /^500: .*the model fell over/,
		unreachable: /^Connection error\.: connect ECONNREFUSED/,
		unreachableConfined: /^Connection error\.: other side closed/,
		unreachableTimeoutMs: 30_000,
		reportsCost: true,
		cutUsage: "whole",
		steers: true,
		asks: true,
		continues: true,
		interruptedTool: "this tool call was interrupted",
	},
	{
		label: "claude",
		name: "claude",
		command: [join(ROOT, "node_modules", ".bin", "claude")],
		serverError: /API Error: 500 the model fell over/,
		unreachable: /Connection error|ECONNREFUSED|Unable to connect/i,
		unreachableConfined: /^API Error: Connection dropped/,
		unreachableTimeoutMs: 30_000,
		reportsCost: true,
		cutUsage: "input",
		steers: true,
		asks: true,
		continues: true,
		interruptedTool: "Tool call interrupted",
	},
	{
		label: "codex",
		name: "codex",
		command: [join(ROOT, "node_modules", ".bin", "codex")],
		// Codex puts its own words in place of a 500's body.
		serverError: /high demand/,
		// Codex never gives up on an unreachable server: crew's timeout ends it.
		unreachable: /timed out after 8\.0s/,
		unreachableConfined: /^stream disconnected before completion/,
		unreachableTimeoutMs: 8000,
		reportsCost: false,
		cutUsage: "whole",
		steers: true,
		asks: true,
		continues: true,
		interruptedTool: "this tool call was interrupted",
	},
];
