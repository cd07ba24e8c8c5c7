// The pattern and checks of run, task and step ids, which become file and branch names.

import { CrewError, ErrorCode } from "./errors.js";

/**
 * The one pattern for run, task and step ids: letters, digits, `-`, `_`, `.`; not starting with
 * `.` or `-`; 1 to 64 characters. Ids become file and branch names, so nothing else gets in.
 */
export const ID_PATTERN = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$/;

export function isValidId(value: string): boolean {
	return ID_PATTERN.test(value) && !value.includes("..");
}

export function checkId(kind: string, value: unknown): string {
	if (typeof value !== "string" || !isValidId(value)) {
		throw new CrewError(
			ErrorCode.InvalidId,
			`invalid ${kind} id ${JSON.stringify(value)}: expected 1-64 letters, digits, '-', '_' or '.', not starting with '.' or '-'`,
		);
	}
	return value;
}
