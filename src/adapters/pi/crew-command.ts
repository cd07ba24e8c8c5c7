// The `/crew` command in pi: a session's runs, approving or cancelling one, and the dashboard's address.

import type { ExtensionCommandContext } from "@mariozechner/pi-coding-agent";
import { errorMessage } from "../../core/errors.js";
import { inert } from "../../core/terminal-text.js";
import type { CrewSession, SessionRun } from "./crew-session.js";

const USAGE = "/crew [runs] · /crew approve <runId> · /crew cancel <runId> · /crew dashboard";

/**
 * `/crew` for the person at the keyboard: the runs of this session, approving or cancelling one,
 * and the dashboard's address (crew serve, started for this session when it is first asked for).
 */
export function crewCommand(session: CrewSession) {
	return {
		description: "crew: the runs of this session, approve or cancel one, the dashboard's address",
		handler: async (args: string, ctx: ExtensionCommandContext) => {
			const [verb = "runs", runId] = args.trim().split(/\s+/).filter(Boolean);
			try {
				ctx.ui.notify(inert(await answer(session, ctx, verb, runId)), "info");
			} catch (error) {
				ctx.ui.notify(inert(`crew: ${errorMessage(error)}`), "error");
			}
		},
	};
}

async function answer(session: CrewSession, ctx: ExtensionCommandContext, verb: string, runId?: string) {
	switch (verb) {
		case "runs": {
			const { runs } = (await session.call(ctx.cwd, "crew_runs", {
				session: ctx.sessionManager.getSessionId(),
			})) as { runs: SessionRun[] };
			if (runs.length === 0) return "crew: no runs started from this session";
			return runs.map((r) => `${r.runId} ${r.status}${r.goal ? `  ${r.goal}` : ""}`).join("\n");
		}
		case "approve":
		case "cancel": {
			if (!runId) return `usage: ${USAGE}`;
			const done = await session.call(ctx.cwd, `crew_${verb}`, { runId });
			if (verb === "approve") session.watch(ctx.cwd, runId);
			return `crew: run ${runId} is ${String(done.status)}`;
		}
		case "dashboard":
			return `crew dashboard: ${await session.dashboard(ctx.cwd)}`;
		default:
			return `usage: ${USAGE}`;
	}
}
