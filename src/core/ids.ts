// The pattern and checks of run, task and step ids, which become file and branch names.

import { CrewError, ErrorCode } from "./errors.js";

/**
 * The one pattern for run, task and step ids: ASCII letters, digits, `-`, `_`, `.`; not starting
 * with `.` or `-`; 1 to 64 characters; no `..`. Ids become file and branch names, so nothing else
 * gets in.
 */
export const ID_PATTERN = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$/;

/** What an id may be (`ID_PATTERN`, without `..`), in words, for an error that names a bad one. */
export const ID_RULE =
	"1-64 ASCII letters (A-Z, a-z), digits, '-', '_' or '.', not starting with '.' or '-' and without '..'";

export function isValidId(value: string): boolean {
	return ID_PATTERN.test(value) && !value.includes("..");
}

export function checkId(kind: string, value: unknown): string {
	if (typeof value !== "string" || !isValidId(value)) {
		throw new CrewError(ErrorCode.InvalidId, `invalid ${kind} id ${JSON.stringify(value)}: expected ${ID_RULE}`);
	}
	return value;
}
