// Output to stdout and stderr, made inert so a terminal shows agents' text without acting on it.

import { inert } from "../../core/terminal-text.js";

/**
 * Writes `text` to standard output as a terminal shows it without acting on it: every view prints
 * what agents and repositories wrote (see `inert`). JSON carries no raw control character.
 */
export function print(text: string): void {
	process.stdout.write(inert(text));
}

/** `print` on standard error: crew's errors and warnings quote agents' and files' words too. */
export function printError(text: string): void {
	process.stderr.write(inert(text));
}
