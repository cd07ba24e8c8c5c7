// The specs a workflow's steps name, frozen for their tasks, and the strict workflows that cannot start.

import { ErrorCode } from "../../core/errors.js";
import type { SpecSnapshot, TaskSpecs } from "../../core/spec-contract.js";
import { VERIFIER_ROLE } from "../../core/spec-coverage.js";
import type { Diagnostic } from "../../resources/frontmatter.js";
import type { WorkflowResource } from "../../resources/workflow-file.js";
import { SpecFreezer } from "../../specs/spec-freeze.js";
import type { PlanProblem } from "./agent-resolver.js";

/**
 * The specs of each step that names some (`specRefs`), frozen from the stores of the repository
 * at `cwd` (see `SpecFreezer`), by step id. A strict workflow (its own `specStrict` or a step's)
 * without a verifier step, and a strict step naming a spec the repository does not have, are
 * problems: the run does not start. A step that is not strict starts without the spec it cannot
 * find, with a warning.
 */
export function stepSpecs(
	workflow: WorkflowResource,
	cwd: string,
	diagnostics: Diagnostic[],
	problems: PlanProblem[],
): Map<string, TaskSpecs> {
	const file = workflow.file;
	const strictOf = (step: WorkflowResource["steps"][number]) => step.specStrict ?? workflow.specStrict ?? false;
	const strict = workflow.specStrict === true || workflow.steps.some(strictOf);
	if (strict && !workflow.steps.some((s) => s.role === VERIFIER_ROLE)) {
		problems.push({
			code: ErrorCode.InvalidWorkflow,
			diagnostic: {
				level: "error",
				file,
				message: `workflow ${workflow.name} holds its steps to their specs strictly (specStrict) but has no step whose role is ${VERIFIER_ROLE}: add one`,
			},
		});
	}
	const specs = new Map<string, TaskSpecs>();
	if (!workflow.steps.some((s) => s.specRefs)) return specs;
	const freezer = new SpecFreezer(cwd);
	for (const step of workflow.steps) {
		if (!step.specRefs) continue;
		const snapshots: SpecSnapshot[] = [];
		const unresolved: string[] = [];
		for (const id of step.specRefs) {
			const found = freezer.freeze(id);
			if (typeof found !== "string") {
				snapshots.push(found);
				if (strictOf(step) && !found.trusted) {
					const message = `step '${step.id}' names spec '${id}', which is not one you imported (crew spec import), or which changed since: its checks are not run, its evidence only weighed`;
					diagnostics.push({
						level: "warning",
						file,
						...(step.line !== undefined ? { line: step.line } : {}),
						message,
					});
				}
				continue;
			}
			unresolved.push(id);
			const diagnostic: Diagnostic = {
				level: strictOf(step) ? "error" : "warning",
				file,
				...(step.line !== undefined ? { line: step.line } : {}),
				message: `step '${step.id}' names spec '${id}': ${found}${strictOf(step) ? "" : "; the step runs without it, unverified"}`,
			};
			if (strictOf(step)) problems.push({ code: ErrorCode.InvalidWorkflow, diagnostic, missingSpec: true });
			else diagnostics.push(diagnostic);
		}
		specs.set(step.id, { snapshots, strict: strictOf(step), unresolved });
	}
	return specs;
}
