// `crew/script`, the module workflow scripts import: zod and the types of their context.

/**
 * What workflow scripts import: `import { z, type WorkflowContext } from "crew/script"`. crew
 * resolves this module for every script it runs, so scripts need no install of their own.
 */
export { z } from "zod";
export type {
	AgentCall,
	BudgetView,
	SchemaLike,
	WorkflowContext,
} from "./engine/script/context.js";
export type { MailReply } from "./engine/script/mailbox.js";
export type {
	PiCrewAgentOptions,
	PiCrewAgentResult,
	PiCrewReview,
	PiCrewWorkflowCtx,
} from "./engine/script/pi-crew-context.js";
export type { RenderedPhase, RenderedPlan } from "./engine/script/plan-template.js";
