// A workflow script's plan: no tasks yet, the agents its calls may use by role, and the script's hash.

import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { CrewError, ErrorCode } from "../../core/errors.js";
import type { AgentSpec, RunOptions } from "../../core/types.js";
import type { Diagnostic } from "../../resources/frontmatter.js";
import type { Loaded, ResourceLoader } from "../../resources/resource-loader.js";
import type { TeamResource } from "../../resources/team-file.js";
import type { WorkflowResource } from "../../resources/workflow-file.js";
import type { Plan, PlanInput } from "./plan-input.js";

export interface ScriptPlanContext {
	readonly workflow: Loaded<WorkflowResource>;
	readonly team: Loaded<TeamResource> | undefined;
	readonly loader: ResourceLoader;
	readonly options: RunOptions;
	readonly diagnostics: Diagnostic[];
	/** The agent that runs `role`, as a markdown step of that role would get it. */
	readonly resolve: (role: string) => AgentSpec;
}

/**
 * The plan of a workflow script's run: no tasks yet (the script makes them as it runs), the agents
 * its calls may use by role (the team's roles, or every agent by name without a team), and the
 * script's file and hash. A failed call throws in the script, which decides what follows, so one
 * failure never drains the run.
 */
export function planScript(input: PlanInput, context: ScriptPlanContext): Plan {
	const { workflow, team, loader, diagnostics } = context;
	if (input.until !== undefined) {
		throw new CrewError(
			ErrorCode.InvalidInput,
			`--until applies to markdown workflows; workflow script ${workflow.item.file} loops in its own code`,
		);
	}
	const names = team ? team.item.roles.map((r) => r.name) : agentNames(loader);
	const roles: Record<string, AgentSpec> = {};
	for (const name of names) roles[name] = context.resolve(name);
	const bytes = readFileSync(workflow.item.file);
	return {
		goal: input.goal,
		team: team?.item.name ?? null,
		workflow: workflow.item.name,
		options: {
			...context.options,
			failure: "continue",
			script: {
				file: workflow.item.file,
				layer: workflow.layer,
				sha256: createHash("sha256").update(bytes).digest("hex"),
				...(input.args !== undefined ? { args: input.args } : {}),
				roles,
				...(input.model ? { model: input.model } : {}),
			},
		},
		tasks: [],
		diagnostics,
	};
}

/** Every agent the project sees that reads without errors. */
function agentNames(loader: ResourceLoader): string[] {
	return loader
		.list("agent")
		.items.filter((listed) => listed.item !== undefined)
		.map((listed) => listed.name);
}
