// Reports on resources: their list, the team recommended for a goal, and the validation of agents, teams and workflows.

import { CrewError, ErrorCode } from "../../core/errors.js";
import { matchHints } from "../../core/routing.js";
import { validateResources } from "../../engine/planning/validate.js";
import type { Diagnostic } from "../../resources/frontmatter.js";
import type { ResourceKind } from "../../resources/resource-layer.js";
import type { ResourceLoader } from "../../resources/resource-loader.js";
import type { RuntimeRegistry } from "../../runtimes/runtime-registry.js";

/** `crew recommend --json`: the team (and its default workflow) whose hints fit a goal, and why. */
export interface Recommendation {
	readonly team: string;
	readonly workflow: string | null;
	readonly score: number;
	readonly reason: string;
	readonly alternatives: readonly { team: string; workflow: string | null; score: number }[];
}

/**
 * The team whose routing hints fit `goal` best, with the reason; without a match, the `default`
 * team (else the first) as the general choice. Up to three other matching teams follow.
 */
export function recommendTeam(loader: ResourceLoader, goal: string): Recommendation {
	if (goal.trim() === "") throw new CrewError(ErrorCode.InvalidInput, "the goal is empty: say what the run is for");
	const ranked = loader
		.list("team")
		.items.flatMap(({ name, item }) =>
			item ? [{ team: name, workflow: item.defaultWorkflow ?? null, match: matchHints(goal, item.hints), item }] : [],
		)
		.sort((a, b) => b.match.score - a.match.score || a.team.localeCompare(b.team));
	const matched = ranked[0] && ranked[0].match.score > 0 ? ranked[0] : undefined;
	const pick = matched ?? ranked.find((r) => r.team === "default") ?? ranked[0];
	if (!pick) throw new CrewError(ErrorCode.NotFound, "no team to recommend: there are no teams");
	const { match } = pick;
	const reason = matched
		? [
				match.triggers.length > 0 ? `the goal mentions ${match.triggers.map((t) => `'${t}'`).join(", ")}` : "",
				match.useWhen.length > 0 ? `it fits "${pick.item.hints.useWhen}"` : "",
				match.avoidWhen.length > 0
					? `though it shares ${match.avoidWhen.join(", ")} with "${pick.item.hints.avoidWhen}"`
					: "",
			]
				.filter(Boolean)
				.join("; ")
		: `no team's hints match the goal; ${pick.team} is the general choice`;
	const alternatives = ranked
		.filter((r) => r !== pick && r.match.score > 0)
		.slice(0, 3)
		.map((r) => ({ team: r.team, workflow: r.workflow, score: r.match.score }));
	return { team: pick.team, workflow: pick.workflow, score: match.score, reason, alternatives };
}

/** `crew validate --json`: how many resources load, and every problem found with them. */
export interface ValidationReport {
	readonly agents: number;
	readonly teams: number;
	readonly workflows: number;
	readonly errors: number;
	readonly warnings: number;
	readonly diagnostics: readonly Diagnostic[];
}

/** Checks every agent, team and workflow the loader sees, and how they refer to each other. */
export function validationReport(context: {
	loader: ResourceLoader;
	runtimes: RuntimeRegistry;
	cwd: string;
	trusted: boolean;
}): ValidationReport {
	const result = validateResources(context);
	const errors = result.diagnostics.filter((d) => d.level === "error").length;
	return {
		agents: result.agents.length,
		teams: result.teams.length,
		workflows: result.workflows.length,
		errors,
		warnings: result.diagnostics.length - errors,
		diagnostics: result.diagnostics,
	};
}

export interface ResourceRow {
	readonly kind: ResourceKind;
	readonly name: string;
	readonly layer: string;
	readonly file: string;
	readonly description: string;
}

export const RESOURCE_KINDS: Readonly<Record<string, ResourceKind>> = {
	agent: "agent",
	agents: "agent",
	team: "team",
	teams: "team",
	workflow: "workflow",
	workflows: "workflow",
};

/** The resource kind a word names (`agents`, `team`, …), or a clear error. */
export function resourceKind(word: string): ResourceKind {
	const kind = RESOURCE_KINDS[word];
	if (!kind) throw new CrewError(ErrorCode.InvalidInput, `unknown kind '${word}': expected agents, teams or workflows`);
	return kind;
}

/** Every agent, team and workflow (or those of `kinds`) a loader sees, with its layer. */
export function resourceRows(
	loader: ResourceLoader,
	kinds: readonly ResourceKind[] = ["agent", "team", "workflow"],
): ResourceRow[] {
	return kinds.flatMap((kind) =>
		loader.list(kind).items.map((listed) => ({
			kind,
			name: listed.name,
			layer: listed.layer,
			file: listed.file,
			description: listed.item?.description ?? "(does not load; see crew validate)",
		})),
	);
}
