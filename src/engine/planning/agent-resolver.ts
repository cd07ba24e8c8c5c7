// Resolution of the agent that runs a workflow step: its team role, agent file, model and thinking level.

import { withSkills } from "../../core/agent-setup.js";
import { ErrorCode, errorMessage, isCrewError } from "../../core/errors.js";
import { didYouMean } from "../../core/near-names.js";
import type { AgentSpec } from "../../core/types.js";
import type { AgentResource } from "../../resources/agent-file.js";
import type { Diagnostic } from "../../resources/frontmatter.js";
import type { Loaded, ResourceLoader } from "../../resources/resource-loader.js";
import type { TeamResource } from "../../resources/team-file.js";
import type { WorkflowStep } from "../../resources/workflow-file.js";
import type { RuntimeRegistry } from "../../runtimes/runtime-registry.js";
import type { PlanInput } from "./plan-input.js";
import { checkedRuntime, overridesAgents, runtimeProblem } from "./runtime-check.js";

/** A problem that keeps a plan from running: the file (and line) it is in, and its error code. */
export interface PlanProblem {
	readonly code: ErrorCode;
	readonly diagnostic: Diagnostic;
	/** The repository lacks a spec a strict step names: its workflow is sound, the repository not ready to run it. */
	readonly missingSpec?: true;
}

/** What resolving a step's agent needs, and where it records what it finds wrong. */
export interface Resolver {
	readonly team: TeamResource | undefined;
	readonly input: Pick<PlanInput, "runtime" | "model" | "thinking" | "defaultModel" | "defaultThinking">;
	readonly loader: ResourceLoader;
	readonly runtimes: RuntimeRegistry;
	readonly cache: Map<string, AgentSpec>;
	readonly diagnostics: Diagnostic[];
	readonly problems: PlanProblem[];
	/** The workflow's file. */
	readonly file: string;
}

/**
 * The agent that runs a step: the team's role's agent, else the agent named as the role. A role the
 * team lacks, an agent that is missing or does not load, or one that cannot run is a problem; the
 * step then gets a stand-in, so the plan's other problems are found too. Its model and its
 * thinking level each come from the run's override, else the step, the team's role, the agent,
 * the calling session's (`defaultModel`, `defaultThinking`), else the CLI's own default.
 */
export function resolveAgent(step: WorkflowStep, resolver: Resolver, checkRuntime = true): AgentSpec {
	const { team, input, loader, cache, diagnostics, problems } = resolver;
	const where = (file: string, line = step.line): Diagnostic => ({
		level: "error",
		file,
		...(line !== undefined ? { line } : {}),
		message: "",
	});
	const stand = (name: string): AgentSpec => ({ name, runtime: "dry-run", systemPrompt: "" });
	const role = team?.roles.find((r) => r.name === step.role);
	if (team && !role) {
		problems.push({
			code: ErrorCode.InvalidInput,
			diagnostic: {
				...where(resolver.file),
				message: `step '${step.id}' needs role '${step.role}', which team '${team.name}' does not have (roles: ${team.roles.map((r) => r.name).join(", ")})${didYouMean(
					step.role,
					team.roles.map((r) => r.name),
				)}`,
			},
		});
		return stand(step.role);
	}
	const name = role?.agent ?? step.role;
	const model = input.model || step.model || role?.model;
	const thinking = input.thinking ?? step.thinking ?? role?.thinking;
	const skills = [JSON.stringify(role?.skills ?? null), JSON.stringify(step.skills ?? null)];
	const key = [name, model ?? "", thinking ?? "", ...(role?.fallbackModels ?? []), ...skills].join("\u0000");
	const cached = cache.get(key);
	if (cached) {
		if (checkRuntime) checkAgentRuntime(cached, resolver);
		return cached;
	}
	let found: Loaded<AgentResource> | undefined;
	try {
		found = loader.findAgent(name);
	} catch (error) {
		problems.push({
			code: isCrewError(error) ? error.code : ErrorCode.InvalidResource,
			diagnostic: { ...where(loader.fileOf("agent", name) ?? "", undefined), message: errorMessage(error) },
		});
		return stand(name);
	}
	if (!found) {
		const names = loader.list("agent").items.map((a) => a.name);
		problems.push({
			code: ErrorCode.NotFound,
			diagnostic: {
				...(role && team ? where(team.file, role.line) : where(resolver.file)),
				message: `no agent '${name}' for role '${step.role}' of step '${step.id}' (add .crew/agents/${name}.md${team ? "" : " or pass --team"})${didYouMean(name, names)}`,
			},
		});
		return stand(name);
	}
	diagnostics.push(...found.diagnostics);
	const base = found.item;
	// The session's model is pi's `provider/id`: only a pi agent can take it.
	const sessionModel = checkedRuntime(input.runtime, base.runtime) === "pi" ? input.defaultModel : undefined;
	const chosenModel = model || base.model || sessionModel;
	const chosenThinking = thinking ?? base.thinking ?? input.defaultThinking;
	const setup = withSkills(base.setup, role?.skills, step.skills);
	const agent: AgentSpec = {
		name,
		source: { layer: found.layer, file: found.item.file },
		runtime: base.runtime,
		...(base.command ? { command: base.command } : {}),
		...(chosenModel ? { model: chosenModel } : {}),
		...(chosenThinking ? { thinking: chosenThinking } : {}),
		...((role?.fallbackModels ?? base.fallbackModels)?.length
			? { fallbackModels: role?.fallbackModels ?? base.fallbackModels }
			: {}),
		...(base.tools ? { tools: base.tools } : {}),
		...(base.permissions ? { permissions: base.permissions } : {}),
		...(base.sandbox ? { sandbox: base.sandbox } : {}),
		...(base.maxTokens ? { maxTokens: base.maxTokens } : {}),
		...(base.timeoutMs !== undefined ? { timeoutMs: base.timeoutMs } : {}),
		...(base.stallTimeoutMs !== undefined ? { stallTimeoutMs: base.stallTimeoutMs } : {}),
		...(base.continue === false ? { continue: false as const } : {}),
		...(setup ? { setup } : {}),
		systemPrompt: base.systemPrompt ?? "",
	};
	if (checkRuntime) checkAgentRuntime(agent, resolver);
	cache.set(key, agent);
	return agent;
}

/**
 * An agent must name a runtime this crew has, and a command agent its command line, unless the
 * run overrides its runtime (a dry run does not: it stands for the run without it).
 */
function checkAgentRuntime(agent: AgentSpec, resolver: Resolver): void {
	const file = agent.source?.file;
	if (overridesAgents(resolver.input.runtime) || file === undefined) return;
	const message = runtimeProblem(agent, file, resolver.runtimes);
	const known = resolver.problems.some((p) => p.diagnostic.message === message);
	if (message && !known) {
		resolver.problems.push({ code: ErrorCode.InvalidResource, diagnostic: { level: "error", file, message } });
	}
}
