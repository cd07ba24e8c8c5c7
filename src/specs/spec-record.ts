// The SpecRecord of pi-crew: requirements a task is held to, each with acceptance checks, and its digest.

import { createHash } from "node:crypto";
import { z } from "zod";
import { CrewError, ErrorCode } from "../core/errors.js";
import { SPEC_ID, type SpecSnapshot } from "../core/spec-contract.js";

const Requirement = z.looseObject({
	id: z.string().min(1),
	text: z.string(),
	priority: z.enum(["must", "should", "could"]),
});

const Acceptance = z.looseObject({
	/** Names the check in evidence footers, and its folder of the attempt's files. */
	id: z.string().regex(SPEC_ID, "expected an acceptance id: a letter or digit, then up to 127 of [A-Za-z0-9._-]"),
	requirementId: z.string(),
	/** What the check is, in words. */
	check: z.string(),
	/** The command that shows it, run (in strict mode) only when `idempotent`. */
	command: z.string().min(1).optional(),
	/** The sha-256 of the command's standard output, lowercase hex. */
	expectedDigest: z
		.string()
		.regex(/^[0-9a-f]{64}$/, "expected a sha-256 digest in lowercase hex")
		.optional(),
	expectedExitCode: z.number().int().optional(),
	idempotent: z.boolean().optional(),
});

/**
 * A SpecRecord as pi-crew writes it. Fields it does not know are kept, so that a record's digest
 * is the one pi-crew computes for it.
 */
const SpecRecordSchema = z
	.looseObject({
		id: z.string().regex(SPEC_ID, "expected a spec id: a letter or digit, then up to 127 of [A-Za-z0-9._-]"),
		version: z.number(),
		title: z.string().optional(),
		requirements: z.array(Requirement).min(1),
		acceptance: z.array(Acceptance).min(1),
		source: z.looseObject({
			kind: z.enum(["manual", "generated"]),
			by: z.string().optional(),
			from: z.string().optional(),
		}),
		trusted: z.boolean().optional(),
	})
	.superRefine((record, ctx) => {
		const requirements = new Set<string>();
		for (const [i, r] of record.requirements.entries()) {
			if (requirements.has(r.id))
				ctx.addIssue({
					code: "custom",
					path: ["requirements", i, "id"],
					message: `requirement '${r.id}' is given twice`,
				});
			requirements.add(r.id);
		}
		const acceptances = new Set<string>();
		for (const [i, a] of record.acceptance.entries()) {
			if (acceptances.has(a.id))
				ctx.addIssue({ code: "custom", path: ["acceptance", i, "id"], message: `acceptance '${a.id}' is given twice` });
			acceptances.add(a.id);
			if (!requirements.has(a.requirementId)) {
				ctx.addIssue({
					code: "custom",
					path: ["acceptance", i, "requirementId"],
					message: `acceptance '${a.id}' names requirement '${a.requirementId}', which the spec does not have`,
				});
			}
		}
	});

export type SpecRecord = z.infer<typeof SpecRecordSchema>;

/**
 * `value` as a SpecRecord, or an error naming the field that is wrong, what it holds and what was
 * expected; `where` names what it was read from.
 */
export function specRecord(value: unknown, where: string): SpecRecord {
	const parsed = SpecRecordSchema.safeParse(value);
	if (parsed.success) return parsed.data;
	const issue = parsed.error.issues[0];
	const path = issue?.path.join(".") || "the record";
	const given = issue ? valueAt(value, issue.path) : undefined;
	const shown = given === undefined ? "" : ` (got ${JSON.stringify(given)?.slice(0, 80)})`;
	throw new CrewError(ErrorCode.InvalidInput, `${where} is not a SpecRecord: ${path}: ${issue?.message}${shown}`);
}

function valueAt(value: unknown, path: readonly PropertyKey[]): unknown {
	let at = value;
	for (const key of path) {
		if (at === null || typeof at !== "object") return undefined;
		at = (at as Record<PropertyKey, unknown>)[key];
	}
	return at;
}

/**
 * The digest that binds a minted spec: sha-256, lowercase hex, of its JSON with every object's
 * keys sorted and no white space, as pi-crew computes it.
 */
export function specDigest(record: SpecRecord): string {
	return createHash("sha256").update(canonicalJson(record), "utf8").digest("hex");
}

function canonicalJson(value: unknown): string {
	if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
	if (value !== null && typeof value === "object") {
		const keys = Object.keys(value)
			.filter((key) => (value as Record<string, unknown>)[key] !== undefined)
			.sort();
		return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`).join(",")}}`;
	}
	return JSON.stringify(value);
}

/**
 * `record` as a task is given it: each requirement in order with its acceptance checks, a check
 * naming no requirement left out, and whether the user's import still vouches for it.
 */
export function specSnapshot(record: SpecRecord, trusted: boolean): SpecSnapshot {
	const items = record.requirements.flatMap((requirement) =>
		record.acceptance
			.filter((a) => a.requirementId === requirement.id)
			.map((a) => ({
				requirement: { id: requirement.id, text: requirement.text, priority: requirement.priority },
				acceptance: {
					id: a.id,
					check: a.check,
					...(a.command !== undefined ? { command: a.command } : {}),
					...(a.expectedExitCode !== undefined ? { expectedExitCode: a.expectedExitCode } : {}),
					...(a.expectedDigest !== undefined ? { expectedDigest: a.expectedDigest } : {}),
					...(a.idempotent !== undefined ? { idempotent: a.idempotent } : {}),
				},
			})),
	);
	return {
		specId: record.id,
		version: record.version,
		...(record.title !== undefined ? { title: record.title } : {}),
		trusted,
		items,
	};
}
