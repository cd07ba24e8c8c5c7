// Workflows rendered as pi-crew's plans of phases, for a script's `ctx.renderTemplate`.

import type { WorkflowResource } from "../../resources/workflow-file.js";

/** A phase of a rendered plan, in pi-crew's shape: a workflow's step with its text filled in. */
export interface RenderedPhase {
	readonly name: string;
	readonly role: string;
	readonly task: string;
	readonly dependsOn: readonly string[];
	readonly verificationCommand?: string;
}

/** What pi-crew's `ctx.renderTemplate` gives: the plan, and the variables it was filled with. */
export interface RenderedPlan {
	readonly templateName: string;
	readonly phases: readonly RenderedPhase[];
	readonly variables: Readonly<Record<string, string>>;
}

/**
 * Workflow `workflow` as a plan of phases, one per step, each step's text with `{{name}}` (pi-crew's
 * placeholders) and `{name}` (crew's, such as `{goal}`) replaced by `variables`; a placeholder
 * without a variable is left as written.
 */
export function renderPlan(workflow: WorkflowResource, variables: Readonly<Record<string, string>>): RenderedPlan {
	const fill = (text: string) =>
		text.replace(/\{\{(\w+)\}\}|\{(\w+)\}/g, (written, pi: string | undefined, own: string | undefined) => {
			const value = variables[(pi ?? own) as string];
			return typeof value === "string" ? value : written;
		});
	const phases = workflow.steps.map((step) => ({
		name: step.id,
		role: step.role,
		task: fill(step.text),
		dependsOn: step.dependsOn,
		...(step.verify?.kind === "command" ? { verificationCommand: step.verify.command } : {}),
	}));
	return { templateName: workflow.name, phases, variables: { ...variables } };
}
