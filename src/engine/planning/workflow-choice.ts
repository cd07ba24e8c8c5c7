// The choice of a run's workflow and team: the workflow named, else a team's `defaultWorkflow`.

import { CrewError, ErrorCode } from "../../core/errors.js";
import type { ResourceLoader } from "../../resources/resource-loader.js";

/** The team a run names neither a workflow nor a team for, as in pi-crew. */
export const DEFAULT_TEAM = "default";

/**
 * The workflow and team a run uses: the workflow it names; without one, the `defaultWorkflow` of
 * the team it names, or of the `default` team when it names neither.
 */
export function chooseWorkflow(
	input: { readonly workflow?: string | undefined; readonly team?: string | undefined },
	loader: ResourceLoader,
): { workflow: string; team: string | undefined } {
	if (input.workflow !== undefined) {
		if (typeof input.workflow !== "string" || input.workflow.trim() === "") {
			throw new CrewError(
				ErrorCode.InvalidInput,
				`invalid workflow ${JSON.stringify(input.workflow)}: expected a workflow name or a path`,
			);
		}
		return { workflow: input.workflow, team: input.team };
	}
	const team = input.team ?? DEFAULT_TEAM;
	const loaded = loader.team(team);
	const workflow = loaded.item.defaultWorkflow;
	if (workflow === undefined) {
		throw new CrewError(
			ErrorCode.InvalidInput,
			`team '${team}' (${loaded.item.file}) has no defaultWorkflow, and the run names no workflow: name one (crew run --workflow <name|path>), or give the team a defaultWorkflow`,
		);
	}
	return { workflow, team };
}
