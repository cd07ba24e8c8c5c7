/**
 * pi-crew's authoring types, as crew runs its `.dwf.ts` scripts: with this file in a project's
 * TypeScript setup, `import type { WorkflowCtx } from "pi-crew/workflow"` type-checks against
 * crew's `ctx`. crew erases type-only imports when it loads a script, so none is ever resolved.
 */
declare module "pi-crew/workflow" {
	export type {
		PiCrewAgentOptions as AgentOptions,
		PiCrewAgentResult as AgentResult,
		PiCrewReview as ReviewResult,
		PiCrewWorkflowCtx as WorkflowCtx,
	} from "crew/script";
}
