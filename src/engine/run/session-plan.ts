// Whether a task's next attempt continues the agent session of the attempt before, or starts over and why.

import { withAnswers } from "../../core/asked.js";
import type { AttemptRecord, RunRecord } from "../../core/records.js";
import { returnMessage, startOverReason } from "../../core/session.js";
import type { TaskSpec } from "../../core/types.js";
import { withCheckEvidence } from "../../core/verdict.js";
import type { TaskRequest } from "../../runtimes/worker-runtime.js";
import type { RunStore } from "../../store/run-store.js";

/**
 * The session plan of a task's attempt about to start on `runtime` and `model`: continue the
 * latest attempt's session when nothing recorded stands against it (the runtime, agent and model
 * are the same; neither the run, the step nor the agent says `continue: false`; the attempt runs
 * here), telling the agent why it is back, what its failed check printed and what a person has
 * answered since; else start over, saying why. Undefined for a first attempt. Whether the
 * workspace is still the one the attempt left is checked when it starts (see `inSharedWorkspace`, `inWorktree`).
 */
export function sessionPlan(
	store: RunStore,
	run: RunRecord,
	spec: TaskSpec,
	next: { readonly runtime: string; readonly model: string | undefined },
): TaskRequest["session"] {
	const previous = store.queries.lastAttempt(run.id, spec.id);
	if (!previous) return undefined;
	const reason = startOverReason(previous, {
		runtime: next.runtime,
		model: next.model ?? null,
		agent: spec.agent.name,
		allowed: allowed(run, spec),
	});
	if (reason !== undefined || previous.session === null) return { startedOver: reason ?? "no session" };
	return {
		attempt: previous.number,
		session: previous.session,
		message: told(store, run, spec, previous),
		...(previous.workspaceLeft !== null ? { workspace: previous.workspaceLeft } : {}),
	};
}

/** `true` when the run, the step and the agent allow a later attempt to continue; else why not. */
function allowed(run: RunRecord, spec: TaskSpec): string | true {
	if (run.options.continueSessions === false) return "the run does not continue sessions (--no-continue)";
	if (spec.continue === false) return `step ${spec.stepId} says continue: false`;
	if (spec.agent.continue === false) return `agent ${spec.agent.name} says continue: false`;
	if (run.options.queue !== undefined) return "its attempts run on crew workers, which keep no session for another";
	return true;
}

/** What the agent is told on its return: why, then what its check printed and the answers it has not seen. */
function told(store: RunStore, run: RunRecord, spec: TaskSpec, previous: AttemptRecord): string {
	const why = returnMessage(previous);
	const evidence = previous.evidence ? store.queries.evidenceOf(run.id, spec.id) : undefined;
	const checked = evidence === undefined ? why : withCheckEvidence(why, evidence);
	const unseen = store.questions.answers(run.id, spec.id).filter((q) => q.state === "answered");
	return withAnswers(
		checked,
		unseen.map((q) => ({ question: q.question, answer: q.answer ?? "" })),
	);
}
