// Schemas a workflow script gives (Standard Schema or JSON Schema), and agents' answers checked against them.

import { z } from "zod";
import { answerJson } from "../../core/answer-json.js";
import { CrewError, ErrorCode, errorMessage } from "../../core/errors.js";

/** A Standard Schema (zod, valibot, arktype…): what `~standard.validate` gives back. */
interface StandardSchema {
	readonly "~standard": {
		readonly vendor: string;
		readonly validate: (value: unknown) => StandardResult | Promise<StandardResult>;
	};
}

type StandardResult =
	| { readonly value: unknown; readonly issues?: undefined }
	| { readonly issues: readonly { readonly message: string; readonly path?: readonly unknown[] }[] };

/** Checks values against a schema a script gave: `{ value }` when valid, else every problem. */
export interface ValueSchema {
	check(value: unknown): { value: unknown } | { problems: string[] };
	/** The schema as JSON Schema, shown to the agent; undefined when it cannot be written as one. */
	readonly jsonSchema: object | undefined;
}

function isStandard(schema: unknown): schema is StandardSchema {
	const standard = (schema as StandardSchema | null)?.["~standard"];
	return typeof standard?.validate === "function";
}

/**
 * A schema from a script: a Standard Schema (zod and its peers) or a JSON Schema object, which is
 * read through zod. Anything else is refused, naming where it was given.
 */
export function valueSchema(schema: unknown, where: string): ValueSchema {
	if (isStandard(schema)) {
		return {
			check: (value) => {
				const result = schema["~standard"].validate(value);
				if (result instanceof Promise)
					return { problems: [`${where} is an async schema; crew checks schemas synchronously`] };
				return result.issues ? { problems: result.issues.map(issueText) } : { value: result.value };
			},
			jsonSchema: jsonSchemaOf(schema),
		};
	}
	if (schema !== null && typeof schema === "object" && !Array.isArray(schema)) {
		let converted: z.ZodType;
		try {
			converted = z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]);
		} catch (error) {
			throw new CrewError(
				ErrorCode.InvalidInput,
				`${where} is not a JSON Schema crew can read: ${errorMessage(error)}`,
			);
		}
		return {
			check: (value) => {
				const result = converted.safeParse(value);
				return result.success ? { value: result.data } : { problems: result.error.issues.map(issueText) };
			},
			jsonSchema: schema,
		};
	}
	throw new CrewError(
		ErrorCode.InvalidInput,
		`${where} must be a zod (or other Standard Schema) schema or a JSON Schema object, not ${schema === null ? "null" : typeof schema}`,
	);
}

function issueText(issue: { readonly message: string; readonly path?: readonly unknown[] }): string {
	const path = (issue.path ?? []).map((p) => String(typeof p === "object" && p !== null && "key" in p ? p.key : p));
	return path.length > 0 ? `${path.join(".")}: ${issue.message}` : issue.message;
}

/** A zod schema written as JSON Schema; other vendors' have no common way, so none. */
function jsonSchemaOf(schema: StandardSchema): object | undefined {
	if (schema["~standard"].vendor !== "zod") return undefined;
	try {
		return z.toJSONSchema(schema as unknown as z.ZodType, { unrepresentable: "any" });
	} catch {
		// A schema zod cannot write out (a transform, say) is still checked; the agent sees no schema.
		return undefined;
	}
}

/** What a call with a schema adds to its prompt: the answer's form. */
export function answerFormat(jsonSchema: object | undefined): string {
	const lines = ["", "## Answer format", "End your answer with one JSON value in a ```json fence"];
	if (jsonSchema === undefined) return [...lines.slice(0, 2), `${lines[2]}.`, ""].join("\n");
	return [
		...lines.slice(0, 2),
		`${lines[2]}, matching this JSON Schema:`,
		"",
		"```json",
		JSON.stringify(jsonSchema, null, 2),
		"```",
		"",
	].join("\n");
}

/** Task `taskId`'s answer `text` read by its call's schema: its JSON value, checked, or why it diverged. */
export function schemaAnswer(taskId: string, text: string, schema: ValueSchema): unknown {
	const json = answerJson(text);
	const checked = "problem" in json ? { problems: [json.problem] } : schema.check(json.value);
	if ("problems" in checked) {
		throw new CrewError(
			ErrorCode.Diverged,
			`the answer of task ${taskId} does not match the schema of its call: ${checked.problems.join("; ")}`,
		);
	}
	return checked.value;
}
