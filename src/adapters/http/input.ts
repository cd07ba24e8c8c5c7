// The API's input checked against a schema, refused in words that name the bad field and value.

import type { Context } from "hono";
import { ZodObject, type z } from "zod";
import { CrewError, ErrorCode } from "../../core/errors.js";
import { checkId } from "../../core/ids.js";

/** The id in the request path's `param`, checked as an id of `kind`. */
export const pathId = (c: Context, kind: string, param: string) => checkId(kind, c.req.param(param) ?? "");

/** Parses input with a schema, or throws an error that names the bad field and value. */
export function parse<T>(schema: z.ZodType<T>, input: unknown, what: string): T {
	const result = schema.safeParse(input);
	if (result.success) return result.data;
	const issue = result.error.issues[0];
	if (issue?.code === "unrecognized_keys") {
		const known = schema instanceof ZodObject ? `: expected ${Object.keys(schema.shape).join(", ")}` : "";
		throw new CrewError(ErrorCode.InvalidInput, `unknown ${what} ${issue.keys.join(", ")}${known}`);
	}
	const field = issue?.path.join(".") ?? "";
	const value = field && input && typeof input === "object" ? (input as Record<string, unknown>)[field] : input;
	const shown = value === undefined ? "missing" : JSON.stringify(value);
	throw new CrewError(ErrorCode.InvalidInput, `invalid ${what}${field ? ` ${field}` : ""} ${shown}: ${issue?.message}`);
}
