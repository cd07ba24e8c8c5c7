// The `ctx` of pi-crew's `.dwf.ts` workflow scripts, built on crew's own recorded agent calls.

import { CrewError, ErrorCode, errorMessage, isCrewError } from "../../core/errors.js";
import type { Usage } from "../../core/usage.js";
import type { SchemaLike, WorkflowContext } from "./context.js";
import type { MailReply } from "./mailbox.js";
import type { RenderedPlan } from "./plan-template.js";

/** The suffix of pi-crew's workflow scripts: they are given pi-crew's `ctx`. */
export const PI_CREW_SUFFIX = ".dwf.ts";

/** Characters of a result a review's prompt carries, and of a retry's feedback. */
const SHOWN_CHARS = 16_000;

/** pi-crew's `ctx.agent` options. */
export interface PiCrewAgentOptions {
	readonly role: string;
	readonly prompt: string;
	readonly name?: string;
	readonly model?: string;
	/** Files whose text the prompt carries, such as earlier results' `artifactPath`. */
	readonly inputs?: readonly string[];
	readonly schema?: SchemaLike;
	readonly worktree?: boolean;
	/** Skills beside the agent's own; `false`: none at all. */
	readonly skill?: string | readonly string[] | false;
	readonly maxTurns?: number;
}

/** What pi-crew's `ctx.agent` resolves to: a failed call is `ok: false`, not an error. */
export interface PiCrewAgentResult {
	readonly ok: boolean;
	/** The answer as the agent gave it. */
	readonly text: string;
	/** The parsed answer of a call with a `schema`. */
	readonly structured?: unknown;
	readonly taskId: string;
	/** The answer's file. */
	readonly artifactPath: string;
	readonly usage: Usage;
	readonly durationMs: number;
	readonly error?: string;
}

/** What `ctx.review` answers. */
export interface PiCrewReview {
	readonly ok: boolean;
	readonly outcome: "accept" | "reject" | "changes_requested";
	readonly feedback: string;
	/** The reviewer's task. */
	readonly taskId: string;
}

/** A task of the run as pi-crew's results describe it. */
export interface TaskFacts {
	readonly text: string;
	readonly usage: Usage;
	readonly durationMs: number;
	readonly artifactPath: string;
}

/** A stage of `ctx.pipeline`: the stage before's output (the item, first), the item, its index. */
type PipelineStage = (previous: never, item: never, index: number) => unknown;

/** pi-crew's `ctx`, as its `.dwf.ts` scripts are given it (`import type { WorkflowCtx } from "pi-crew/workflow"`). */
export type PiCrewWorkflowCtx = ReturnType<typeof piCrewContext>["ctx"];

interface Deps {
	/** crew's own `ctx`, over which pi-crew's is made. */
	readonly ctx: WorkflowContext;
	/** Makes a `ctx.agent` call (crew's form): its task, and its answer to come. */
	readonly call: (input: unknown) => { readonly id: string; readonly answer: Promise<unknown> };
	readonly task: (id: string) => TaskFacts;
	/** Sends a mail at its place; returns its id. */
	readonly mail: (to: unknown, body: unknown) => string;
	/** The replies to mails `ids` once all came, or those there are at the deadline. */
	readonly gather: (ids: unknown, deadlineMs: unknown) => Promise<readonly MailReply[]>;
	/** A workflow of crew's as pi-crew's plan of phases. */
	readonly template: (name: string, variables: Readonly<Record<string, string>>) => RenderedPlan;
}

const REVIEW_SCHEMA = {
	type: "object",
	properties: {
		outcome: { type: "string", enum: ["accept", "reject", "changes_requested"] },
		feedback: { type: "string" },
	},
	required: ["outcome", "feedback"],
};

/**
 * pi-crew's `ctx` for its `.dwf.ts` scripts, made of crew's: every agent (a review and a retry
 * too) is a `ctx.agent` call, a task recorded at its place, so a resumed run answers it from the
 * store. crew runs a script from the top at every start, so `ctx.vars` is made again as it runs.
 * `result()` is what `ctx.setResult` was given, the script's result when it returns nothing.
 */
export function piCrewContext(deps: Deps) {
	const { ctx } = deps;
	/** Each call's options by task, and the task a retry made in its place. */
	const options = new Map<string, PiCrewAgentOptions>();
	const latest = new Map<string, string>();
	const current = (taskId: string): string => {
		let id = taskId;
		while (latest.has(id)) id = latest.get(id) as string;
		return id;
	};
	let result: unknown;

	const agent = async (given: PiCrewAgentOptions): Promise<PiCrewAgentResult> => {
		if (typeof given !== "object" || given === null)
			throw new CrewError(ErrorCode.InvalidInput, "ctx.agent: expected {role, prompt, …}");
		const { role, prompt, name, model, schema, worktree, inputs, maxTurns, skill } = given;
		const skills = typeof skill === "string" ? [skill] : skill;
		const { id, answer } = deps.call({
			role,
			prompt,
			...(inputs !== undefined ? { inputs } : {}),
			...(maxTurns !== undefined ? { maxTurns } : {}),
			...(skills !== undefined ? { skills } : {}),
			...(name !== undefined ? { name } : {}),
			...(model !== undefined ? { model } : {}),
			...(schema !== undefined ? { schema } : {}),
			...(worktree !== undefined ? { worktree } : {}),
		});
		options.set(id, given);
		try {
			const value = await answer;
			return { ok: true, ...resultOf(id, deps.task(id)), ...(schema !== undefined ? { structured: value } : {}) };
		} catch (error) {
			if (!isCrewError(error, ErrorCode.CallFailed)) throw error;
			return { ok: false, ...resultOf(id, deps.task(id)), error: errorMessage(error) };
		}
	};

	const review = async (taskId: string, role = "reviewer"): Promise<PiCrewReview> => {
		const id = current(taskId);
		const prompt = [
			`Review the work of task ${id}: is it right and complete?`,
			"",
			fence("result", id, deps.task(id).text),
			"",
			'Answer with "accept", "reject" or "changes_requested", and feedback the worker can act on.',
		].join("\n");
		const reviewed = await agent({ role, prompt, schema: REVIEW_SCHEMA });
		if (!reviewed.ok)
			return { ok: false, outcome: "changes_requested", feedback: reviewed.error ?? "", taskId: reviewed.taskId };
		const { outcome, feedback } = reviewed.structured as Pick<PiCrewReview, "outcome" | "feedback">;
		return { ok: true, outcome, feedback, taskId: reviewed.taskId };
	};

	const retry = async (taskId: string, how: { readonly feedback?: string } = {}): Promise<PiCrewAgentResult> => {
		const id = current(taskId);
		const given = options.get(id);
		if (!given)
			throw new CrewError(ErrorCode.NotFound, `ctx.retry: task ${taskId} is not a ctx.agent call of this script`);
		const feedback = how.feedback
			? `\n\n## Feedback on your previous answer\n\n${fence("feedback", id, how.feedback)}`
			: "";
		const again = await agent({ ...given, prompt: `${given.prompt.trimEnd()}${feedback}` });
		latest.set(id, again.taskId);
		return again;
	};

	return {
		ctx: Object.freeze({
			runId: ctx.runId,
			goal: ctx.goal,
			agent,
			review,
			retry,
			fanOut: <Item, T>(items: readonly Item[], limit: number, fn: (item: Item, index: number) => Promise<T>) =>
				ctx.fanOut(items, fn, { concurrency: limit }),
			pipeline: (items: readonly unknown[], ...stages: PipelineStage[]) =>
				ctx.fanOut(items, async (item, index) => {
					let previous: unknown = item;
					for (const stage of stages) {
						try {
							previous = await stage(previous as never, item as never, index);
						} catch (error) {
							if (ctx.signal.aborted || isCrewError(error, ErrorCode.Diverged)) throw error;
							ctx.log(`pipeline[${index}] failed: ${errorMessage(error)}`);
							return null;
						}
					}
					return previous;
				}),
			setResult: (artifactPath: string, meta?: unknown) => {
				result = { artifactPath, ...(meta !== undefined ? { meta } : {}) };
			},
			vars: {} as Record<string, unknown>,
			args: <T>() => ctx.args<T>(),
			phase: (title: string) => ctx.phase(title),
			log: (message: unknown) => ctx.log(message),
			budget: Object.freeze({
				get total(): number | null {
					const view = ctx.budget;
					return view.tokensLeft === undefined ? null : view.spentTokens + view.tokensLeft;
				},
				spent: () => ctx.budget.spentTokens,
				remaining: () => ctx.budget.tokensLeft ?? Number.POSITIVE_INFINITY,
			}),
			signal: ctx.signal,
			/** A mail to a task of the run (its running agent hears it) or to a person; returns its id for `gatherReplies`. */
			mail: (to: string, body: string, _options?: Record<string, unknown>): string => deps.mail(to, body),
			gatherReplies: (ids: readonly string[], deadlineMs: number) => deps.gather(ids, deadlineMs),
			renderTemplate: (name: string, variables: Record<string, string> = {}): RenderedPlan => {
				const bad = Object.entries(variables ?? {}).find(([, v]) => typeof v !== "string");
				if (typeof name !== "string" || typeof variables !== "object" || variables === null || bad) {
					const why = bad ? `variable ${bad[0]} is not a string` : "expected (name, {variable: text})";
					throw new CrewError(ErrorCode.InvalidInput, `ctx.renderTemplate(${JSON.stringify(name)}): ${why}`);
				}
				return deps.template(name, variables);
			},
		}),
		result: () => result,
	};
}

function resultOf(taskId: string, facts: TaskFacts): Omit<PiCrewAgentResult, "ok"> {
	const { text, usage, artifactPath, durationMs } = facts;
	return { text, taskId, artifactPath, durationMs, usage };
}

function fence(tag: string, name: string, text: string): string {
	const shown = text.length > SHOWN_CHARS ? text.slice(0, SHOWN_CHARS) : text;
	return [
		`<${tag} name="${name}" chars="${text.length}"${shown.length < text.length ? ' truncated="true"' : ""}>`,
		shown.trimEnd().replaceAll(`</${tag}`, `<\\/${tag}`),
		`</${tag}>`,
	].join("\n");
}
