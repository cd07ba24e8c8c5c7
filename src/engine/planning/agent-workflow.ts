// The one-step `agent:<name>` workflow, by which a run puts a single agent on its goal.

import { CrewError, ErrorCode } from "../../core/errors.js";
import { isValidId } from "../../core/ids.js";
import { didYouMean } from "../../core/near-names.js";
import { FailurePolicy } from "../../core/types.js";
import type { Loaded, ResourceLoader } from "../../resources/resource-loader.js";
import type { WorkflowResource } from "../../resources/workflow-file.js";

/**
 * How a run names the workflow of one agent on one task: `agent:<name>`. No file can have that
 * name (a resource name has no `:`), so the name is the workflow, and a stored run re-plans from
 * it as from any other.
 */
export const AGENT_WORKFLOW_PREFIX = "agent:";

/** The agent `crew agent` and `crew_agent` run when none is named: crew's general implementer. */
export const DEFAULT_AGENT = "executor";

export function agentWorkflowName(agent: string): string {
	return `${AGENT_WORKFLOW_PREFIX}${agent}`;
}

/**
 * The one-step workflow a name `agent:<name>` stands for, or undefined for any other name: one
 * task, whose id and role are the agent's name and whose text is the goal as given. Its failure
 * policy is `abort`, so a spent budget stops the agent (draining would let the one task go on
 * spending). The agent must exist; an unknown name is refused with the nearest names and the
 * agents there are.
 */
export function agentWorkflow(ref: string, loader: ResourceLoader): Loaded<WorkflowResource> | undefined {
	if (!ref.startsWith(AGENT_WORKFLOW_PREFIX)) return undefined;
	const name = ref.slice(AGENT_WORKFLOW_PREFIX.length);
	if (!isValidId(name)) {
		throw new CrewError(
			ErrorCode.InvalidInput,
			`invalid agent ${JSON.stringify(name)}: expected an agent's name (see crew list agents), e.g. ${DEFAULT_AGENT}`,
		);
	}
	const agent = loader.findAgent(name);
	if (!agent) {
		const names = loader.list("agent").items.map((a) => a.name);
		throw new CrewError(
			ErrorCode.NotFound,
			`no agent '${name}'${didYouMean(name, names)} (agents here: ${names.join(", ") || "none"})`,
		);
	}
	return {
		item: {
			name: ref,
			description: `${name} on one task`,
			failure: FailurePolicy.Abort,
			steps: [{ id: name, role: name, dependsOn: [], text: "{goal}", fields: {} }],
			file: agent.item.file,
		},
		diagnostics: [],
		layer: agent.layer,
	};
}
