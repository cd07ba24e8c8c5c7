// The queue's jobs, one per attempt: their ids, cancel marks, schema, progress and return value.

import { z } from "zod";
import { SYSTEM_PROMPT_MODES } from "../../core/agent-setup.js";
import { parseHostPort, SANDBOX_LEVELS } from "../../core/sandbox-level.js";
import { THINKING_LEVELS } from "../../core/thinking.js";
import type { CheckoutSource } from "../../workspace/checkouts.js";
import type { AttemptParts, TaskRequest, WorkerEvent, WorkerResult } from "../worker-runtime.js";

/** The BullMQ queue crew's attempts go through. */
export const ATTEMPT_QUEUE = "crew-attempts";
/** The Redis channel a coordinator asks workers to cancel an attempt on: `{ jobId, reason }`. */
export const CANCEL_CHANNEL = `${ATTEMPT_QUEUE}:cancel`;

/** The key marking an attempt cancelled, so a worker that takes it later does not run it. */
export function cancelKey(jobId: string): string {
	return `${ATTEMPT_QUEUE}:cancelled:${jobId}`;
}

/** An attempt's job id: the same attempt is one job, whichever worker runs it and however often. */
export function attemptJobId(runId: string, taskId: string, attempt: number): string {
	return `${runId}.${taskId}.${attempt}`;
}

const Agent = z.object({
	name: z.string(),
	runtime: z.string(),
	command: z.string().optional(),
	model: z.string().optional(),
	fallbackModels: z.array(z.string()).optional(),
	thinking: z.enum(THINKING_LEVELS).optional(),
	tools: z.array(z.string()).optional(),
	permissions: z.enum(["workspace", "read-only", "full"]).optional(),
	sandbox: z.enum(SANDBOX_LEVELS).optional(),
	maxTokens: z.number().optional(),
	setup: z
		.object({
			systemPromptMode: z.enum(SYSTEM_PROMPT_MODES).optional(),
			inheritProjectContext: z.boolean().optional(),
			inheritSkills: z.boolean().optional(),
			skills: z.array(z.string()).optional(),
			extensions: z.array(z.string()).optional(),
			excludeExtensions: z.array(z.string()).optional(),
			maxTurns: z.number().int().positive().optional(),
		})
		.optional(),
	systemPrompt: z.string(),
});

/**
 * What a job carries: the attempt's request as the coordinator made it, its runtime, the setup
 * hook and check to run beside the agent, and where the task's workspace comes from, if it has one.
 */
export const AttemptJob = z.object({
	runtime: z.string().min(1),
	parts: z.object({
		verify: z
			.discriminatedUnion("kind", [
				z.object({ kind: z.literal("verdict") }),
				z.object({ kind: z.literal("command"), command: z.string().min(1) }),
			])
			.optional(),
		setup: z.object({ command: z.string().min(1), timeoutMs: z.number().positive() }).optional(),
	}),
	checkout: z.object({ repository: z.string().min(1), base: z.string().min(1), start: z.string() }).optional(),
	request: z.object({
		runId: z.string(),
		taskId: z.string(),
		stepId: z.string(),
		role: z.string(),
		attempt: z.int().min(1),
		attemptId: z.int().min(1),
		epoch: z.int().min(0),
		agent: Agent,
		prompt: z.string(),
		promptFile: z.string(),
		cwd: z.string(),
		artifactDir: z.string(),
		artifactPrefix: z.string(),
		traceparent: z
			.string()
			.regex(/^00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]$/)
			.optional(),
		// Its folders are the coordinator's: the worker hides and shows its own.
		sandbox: z
			.object({
				level: z.enum(SANDBOX_LEVELS),
				readOnly: z.boolean(),
				hosts: z.array(z.string().refine((h) => parseHostPort(h) !== undefined, "expected host:port")).default([]),
			})
			.optional(),
	}),
});

/** A job's data as the coordinator sends it. */
export interface AttemptJobData {
	readonly runtime: string;
	readonly request: TaskRequest;
	readonly parts: AttemptParts;
	readonly checkout?: CheckoutSource;
}

/** A batch of worker events, from the `started`-th time a worker took the job. */
export interface AttemptProgress {
	readonly started: number;
	readonly events: readonly WorkerEvent[];
}

/** What a job returns: the runtime's result, the contents of the files it wrote, and what it changed in its checkout. */
export interface AttemptReturn {
	readonly result: WorkerResult;
	readonly files: readonly { readonly name: string; readonly base64: string }[];
	/** A binary patch over the checkout's starting state; absent without a checkout. */
	readonly changes?: string;
}
