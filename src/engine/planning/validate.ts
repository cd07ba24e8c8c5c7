// `crew validate`'s checks: every agent, team and workflow, each workflow planned as `crew run` would.

import { ErrorCode, errorMessage } from "../../core/errors.js";
import { didYouMean } from "../../core/near-names.js";
import type { AgentResource } from "../../resources/agent-file.js";
import type { Diagnostic } from "../../resources/frontmatter.js";
import type { Listed, ResourceLoader } from "../../resources/resource-loader.js";
import type { TeamResource } from "../../resources/team-file.js";
import type { WorkflowResource } from "../../resources/workflow-file.js";
import type { RuntimeRegistry } from "../../runtimes/runtime-registry.js";
import { draftPlan } from "./planner.js";
import { runReach } from "./reach.js";
import { runtimeProblem } from "./runtime-check.js";

export interface Validation {
	readonly agents: readonly Listed<AgentResource>[];
	readonly teams: readonly Listed<TeamResource>[];
	readonly workflows: readonly Listed<WorkflowResource>[];
	readonly diagnostics: readonly Diagnostic[];
}

export interface ValidateContext {
	readonly loader: ResourceLoader;
	readonly runtimes: RuntimeRegistry;
	/** The project's root, where a run would start. */
	readonly cwd: string;
	/** Whether the user trusts the project to run its own commands. */
	readonly trusted: boolean;
}

/**
 * Checks every agent, team and workflow the project sees, and how they refer to each other, and
 * plans every workflow as `crew run` would (with each team whose default workflow it is, or with
 * none), through the planner's own checks: what `crew run` refuses, this reports, all at once.
 * What a run would execute from the project's own files is listed while the project is untrusted.
 */
export function validateResources(context: ValidateContext): Validation {
	const { loader, runtimes } = context;
	const agents = loader.list("agent");
	const teams = loader.list("team");
	const workflows = loader.list("workflow");
	const diagnostics: Diagnostic[] = [...agents.diagnostics, ...teams.diagnostics, ...workflows.diagnostics];
	const broken = new Set(diagnostics.filter((d) => d.level === "error").map((d) => d.file));
	const agentNames = agents.items.map((a) => a.name);
	const workflowNames = workflows.items.map((w) => w.name);

	for (const { item: agent, file } of agents.items) {
		const problem = agent && runtimeProblem(agent, file, runtimes);
		const line = agent?.lines?.[runtimes.has(agent.runtime) ? "command" : "runtime"] ?? agent?.lines?.runtime;
		if (problem) diagnostics.push({ level: "error", file, ...(line !== undefined ? { line } : {}), message: problem });
	}

	const teamsByWorkflow = new Map<string, Listed<TeamResource>[]>();
	for (const team of teams.items) {
		const { item, file } = team;
		if (!item) continue;
		for (const role of item.roles) {
			// A name or a file name, as a run finds the agent.
			if (loader.fileOf("agent", role.agent) === undefined) {
				diagnostics.push({
					level: "error",
					file,
					...(role.line !== undefined ? { line: role.line } : {}),
					message: `role '${role.name}' names agent '${role.agent}', which does not exist${didYouMean(role.agent, agentNames)}`,
				});
			}
		}
		const wanted = item.defaultWorkflow;
		if (wanted === undefined) continue;
		if (!workflowNames.includes(wanted)) {
			const line = item.lines?.defaultWorkflow;
			diagnostics.push({
				level: "error",
				file,
				...(line !== undefined ? { line } : {}),
				message: `defaultWorkflow '${wanted}' does not exist${didYouMean(wanted, workflowNames)}`,
			});
		} else teamsByWorkflow.set(wanted, [...(teamsByWorkflow.get(wanted) ?? []), team]);
	}

	for (const { name, item, file } of workflows.items) {
		if (!item || broken.has(file)) continue;
		const bound = (teamsByWorkflow.get(name) ?? []).filter((t) => t.item && !broken.has(t.file));
		for (const team of bound.length > 0 ? bound : [undefined]) {
			diagnostics.push(...planned(context, name, team?.name, broken));
		}
	}
	// The planner finds some problems validate also looks for; one report each, with its line if either has it.
	const unique = new Map<string, Diagnostic>();
	for (const d of diagnostics) {
		const key = `${d.level}\u0000${d.file}\u0000${d.message}`;
		const kept = unique.get(key);
		if (!kept || (kept.line === undefined && d.line !== undefined)) unique.set(key, d);
	}
	const ordered = [...unique.values()]
		.map((d, i) => ({ d, i }))
		.sort((a, b) => a.d.file.localeCompare(b.d.file) || (a.d.line ?? 0) - (b.d.line ?? 0) || a.i - b.i)
		.map(({ d }) => d);
	return { agents: agents.items, teams: teams.items, workflows: workflows.items, diagnostics: ordered };
}

/**
 * The problems of planning `workflow` with `team`, as the planner finds them. Without a team, a
 * role that is no agent's name is a warning: the workflow then needs a team that has the role.
 */
function planned(
	context: ValidateContext,
	workflow: string,
	team: string | undefined,
	broken: ReadonlySet<string>,
): Diagnostic[] {
	const input = { goal: "validate", workflow, ...(team !== undefined ? { team } : {}) };
	let draft: ReturnType<typeof draftPlan>;
	try {
		draft = draftPlan(input, context);
	} catch (error) {
		const file = context.loader.fileOf("workflow", workflow) ?? "";
		return [{ level: "error", file, message: errorMessage(error) }];
	}
	const found: Diagnostic[] = draft.problems
		.filter((p) => !broken.has(p.diagnostic.file))
		// A spec the repository has not imported yet makes its runs wait, not its workflow wrong.
		.filter((p) => !p.missingSpec)
		.map(({ code, diagnostic }) =>
			team === undefined && code === ErrorCode.NotFound
				? {
						...diagnostic,
						level: "warning",
						message: `${diagnostic.message}; without such an agent, the workflow runs only with a team that has the role`,
					}
				: diagnostic,
		);
	const errors = found.filter((d) => d.level === "error").length;
	if (errors > 0 || context.trusted) return found;
	const needing = runReach(draft.plan.tasks, draft.plan.options).filter((r) => r.origin === "project");
	if (needing.length === 0) return found;
	const file = draft.plan.options.source?.file ?? draft.plan.options.script?.file ?? "";
	const listed = needing.map((r) => `${r.what} (${r.file}): ${r.runs}`).join("; ");
	found.push({
		level: "warning",
		file,
		message: `crew run of workflow '${workflow}'${team ? ` with team '${team}'` : ""} is refused until you trust this repository (crew trust): it would run ${listed}`,
	});
	return found;
}
