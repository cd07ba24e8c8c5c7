import { buildDag } from "../core/dag.js";
import { errorMessage } from "../core/errors.js";
import type { AgentResource } from "../resources/agent-file.js";
import type { Diagnostic } from "../resources/frontmatter.js";
import type { Listed, ResourceLoader } from "../resources/resource-loader.js";
import type { TeamResource } from "../resources/team-file.js";
import type { WorkflowResource } from "../resources/workflow-file.js";
import type { RuntimeRegistry } from "../runtimes/runtime-registry.js";

export interface Validation {
	readonly agents: readonly Listed<AgentResource>[];
	readonly teams: readonly Listed<TeamResource>[];
	readonly workflows: readonly Listed<WorkflowResource>[];
	readonly diagnostics: readonly Diagnostic[];
}

/**
 * Checks every agent, team and workflow the project sees, and how they refer to each other:
 * runtimes exist, team roles name agents, default workflows exist, workflow graphs are sound and
 * their roles are the team's. Reports everything it finds rather than stopping at the first.
 */
export function validateResources(loader: ResourceLoader, runtimes: RuntimeRegistry): Validation {
	const agents = loader.list("agent");
	const teams = loader.list("team");
	const workflows = loader.list("workflow");
	const diagnostics: Diagnostic[] = [...agents.diagnostics, ...teams.diagnostics, ...workflows.diagnostics];
	const agentNames = new Set(agents.items.map((a) => a.name));
	const workflowNames = new Set(workflows.items.map((w) => w.name));

	for (const { item: agent, file } of agents.items) {
		if (!agent) continue;
		if (!runtimes.has(agent.runtime)) {
			diagnostics.push({
				level: "error",
				file,
				message: `runtime '${agent.runtime}' is not available: available are ${runtimes.names().join(", ")}`,
			});
		}
		if (agent.runtime === "command" && !agent.command?.trim()) {
			diagnostics.push({ level: "error", file, message: "runtime 'command' but no command: line" });
		}
	}

	const teamsByWorkflow = new Map<string, Listed<TeamResource>[]>();
	for (const team of teams.items) {
		const { item, file } = team;
		if (!item) continue;
		for (const role of item.roles) {
			if (!agentNames.has(role.agent)) {
				diagnostics.push({
					level: "error",
					file,
					message: `role '${role.name}' names agent '${role.agent}', which does not exist`,
				});
			}
		}
		if (item.defaultWorkflow) {
			if (!workflowNames.has(item.defaultWorkflow)) {
				diagnostics.push({ level: "error", file, message: `defaultWorkflow '${item.defaultWorkflow}' does not exist` });
			} else teamsByWorkflow.set(item.defaultWorkflow, [...(teamsByWorkflow.get(item.defaultWorkflow) ?? []), team]);
		}
	}

	for (const { name, item, file } of workflows.items) {
		if (!item) continue;
		if (!item.script && item.steps.length === 0) diagnostics.push({ level: "error", file, message: "it has no steps" });
		try {
			buildDag(item.steps, `workflow ${file}`);
		} catch (error) {
			diagnostics.push({ level: "error", file, message: errorMessage(error) });
		}
		const bound = teamsByWorkflow.get(name) ?? [];
		for (const step of item.steps) {
			for (const team of bound) {
				if (!team.item?.roles.some((r) => r.name === step.role)) {
					diagnostics.push({
						level: "error",
						file,
						message: `step '${step.id}' needs role '${step.role}', which team '${team.name}' (whose default workflow this is) does not have`,
					});
				}
			}
			if (bound.length === 0 && !agentNames.has(step.role)) {
				diagnostics.push({
					level: "warning",
					file,
					message: `step '${step.id}': role '${step.role}' is no agent's name, so this workflow needs a team that has the role`,
				});
			}
		}
	}
	return { agents: agents.items, teams: teams.items, workflows: workflows.items, diagnostics };
}
