// A workflow script's `ctx.agent` calls: their arguments checked, the tasks they make, and replay divergence.

import { createHash } from "node:crypto";
import { z } from "zod";
import { withSkills } from "../../core/agent-setup.js";
import { parseLimit } from "../../core/duration.js";
import { CrewError, ErrorCode } from "../../core/errors.js";
import { SPEC_ID, type SpecSnapshot, specPrompt, type TaskSpecs } from "../../core/spec-contract.js";
import type { AgentSpec, TaskSpec } from "../../core/types.js";
import { parseVerify } from "../../core/verdict.js";
import type { SpecFreezer } from "../../specs/spec-freeze.js";
import { type CallInput, withInputs } from "./call-inputs.js";
import { answerFormat, type ValueSchema } from "./result-schema.js";

const AgentCallInput = z.strictObject({
	role: z.string().trim().min(1),
	prompt: z.string().trim().min(1),
	name: z
		.string()
		.regex(
			/^[A-Za-z0-9_][A-Za-z0-9_-]{0,40}$/,
			"expected 1-41 ASCII letters (A-Z, a-z), digits, '-' or '_', not starting with '-'",
		)
		.optional(),
	model: z.string().trim().min(1).optional(),
	verify: z.union([z.boolean(), z.string().trim().min(1)]).optional(),
	worktree: z.boolean().optional(),
	schema: z.unknown().optional(),
	retries: z.int().min(0).max(20).optional(),
	timeout: z.union([z.int().min(0), z.string()]).optional(),
	inputs: z.array(z.string().trim().min(1)).max(50).optional(),
	maxTurns: z.int().min(1).max(10_000).optional(),
	/** Skills beside the agent's own; `false`: none at all. */
	skills: z.union([z.array(z.string().trim().min(1)).max(50), z.literal(false)]).optional(),
	/** The specs the call's task is held to (see `crew spec list`), and whether strictly. */
	specRefs: z
		.array(z.string().regex(SPEC_ID, "expected a spec id: a letter or digit, then up to 127 of [A-Za-z0-9._-]"))
		.min(1)
		.max(20)
		.optional(),
	specStrict: z.boolean().optional(),
});

export type ParsedCall = z.infer<typeof AgentCallInput>;

/** A `ctx.agent` argument checked, or an error naming the bad field. */
export function parseCall(input: unknown, key: string): ParsedCall {
	const parsed = AgentCallInput.safeParse(input);
	if (parsed.success) return parsed.data;
	const problems = parsed.error.issues.map((i) => `${i.path.join(".") || "call"}: ${i.message}`);
	throw new CrewError(ErrorCode.InvalidInput, `ctx.agent call ${key}: ${problems.join("; ")}`);
}

/**
 * The task a call makes. Its id is its name (or role) and its place (`reviewer-2.1.1`); its
 * fingerprint hashes everything the call asked for, so a replay that asks differently is caught.
 * The call's `model` overrides its role's agent's, unless the run has a model of its own (`runModel`).
 */
export function callTask(
	key: string,
	place: { readonly phase: string | undefined; readonly after: readonly string[] },
	call: ParsedCall,
	agent: AgentSpec,
	schema: ValueSchema | undefined,
	goal: string,
	runModel: string | undefined,
	/** The call's `inputs`, as read when it is made. */
	inputs: readonly CallInput[] = [],
	/** The specs its `specRefs` name, frozen when it is made. */
	specs?: TaskSpecs,
): TaskSpec {
	const base = call.name ?? call.role;
	const id = `${base.slice(0, Math.max(1, 63 - key.length))}-${key}`;
	if (id.length > 64)
		throw new CrewError(ErrorCode.InvalidInput, `ctx.agent call ${key} is nested too deep for a task id`);
	const timeoutMs =
		typeof call.timeout === "string" ? parseLimit(`timeout of ctx.agent call ${key}`, call.timeout) : call.timeout;
	const verify = call.verify === undefined ? undefined : parseVerify(String(call.verify));
	const asked = {
		role: call.role,
		prompt: call.prompt,
		name: call.name ?? null,
		model: call.model ?? null,
		verify: verify ?? null,
		worktree: call.worktree ?? false,
		schema: schema ? (schema.jsonSchema ?? "a schema without a JSON form") : null,
		retries: call.retries ?? null,
		timeoutMs: timeoutMs ?? null,
		// The files by name: their text is read when the call is first made, and kept with its task.
		inputs: call.inputs ?? null,
		// Later keys only when given, so that the calls of runs recorded before them still match.
		...(call.maxTurns !== undefined ? { maxTurns: call.maxTurns } : {}),
		...(call.skills !== undefined ? { skills: call.skills } : {}),
		...(call.specRefs !== undefined ? { specRefs: call.specRefs, specStrict: call.specStrict ?? false } : {}),
	};
	const fingerprint = createHash("sha256").update(JSON.stringify(asked)).digest("hex").slice(0, 16);
	return {
		id,
		stepId: id,
		role: call.role,
		agent: callAgent(call, agent, runModel),
		text:
			withInputs(call.prompt.replaceAll("{goal}", goal), inputs) +
			(schema ? answerFormat(schema.jsonSchema) : "") +
			specPrompt(specs),
		dependsOn: [],
		...(timeoutMs !== undefined ? { timeoutMs } : {}),
		...(call.retries !== undefined ? { retries: call.retries } : {}),
		...(verify ? { verify } : {}),
		...(call.worktree ? { worktree: true } : {}),
		...(specs ? { specs } : {}),
		call: {
			key,
			fingerprint,
			...(place.phase ? { phase: place.phase } : {}),
			...(schema ? { json: true } : {}),
			...(place.after.length > 0 ? { after: place.after } : {}),
		},
	};
}

/**
 * The specs a call names (`specRefs`), frozen by `freezer` as it is made; a strict call that names
 * a spec the repository does not have fails, one that is not strict is held to the others.
 */
export function callSpecs(call: ParsedCall, key: string, freezer: SpecFreezer): TaskSpecs | undefined {
	if (!call.specRefs) return undefined;
	const snapshots: SpecSnapshot[] = [];
	const unresolved: string[] = [];
	for (const id of call.specRefs) {
		const found = freezer.freeze(id);
		if (typeof found !== "string") snapshots.push(found);
		else if (call.specStrict)
			throw new CrewError(ErrorCode.InvalidInput, `ctx.agent call ${key} names spec '${id}': ${found}`);
		else unresolved.push(id);
	}
	return { snapshots, strict: call.specStrict === true, unresolved };
}

/** The role's agent with what the call changes of it: its model (unless the run has its own), turns and skills. */
function callAgent(call: ParsedCall, agent: AgentSpec, runModel: string | undefined): AgentSpec {
	const model = call.model && runModel === undefined ? { model: call.model } : {};
	const turns = call.maxTurns !== undefined ? { ...agent.setup, maxTurns: call.maxTurns } : agent.setup;
	const skills = call.skills === false ? [] : call.skills;
	const setup = withSkills(turns, undefined, skills);
	return { ...agent, ...model, ...(setup ? { setup } : {}) };
}

/** `reviewer "Review the parser…"`: a call as divergence errors name it. */
export function describeCall(spec: TaskSpec): string {
	const text = spec.text.replace(/\s+/g, " ").trim();
	return `${spec.id} (${spec.role} "${text.length > 60 ? `${text.slice(0, 57)}...` : text}")`;
}

/** The error of a replay that asks, at `key`, for something else than the recorded run did. */
export function divergence(key: string, recorded: string, now: string): CrewError {
	return new CrewError(
		ErrorCode.Diverged,
		`the script diverged from its recorded run at call ${key}: recorded ${recorded}, now ${now}. A workflow script must make the same calls in the same order when given the same answers; read time and randomness through ctx.now() and ctx.random(), not Date.now() or Math.random()`,
	);
}
