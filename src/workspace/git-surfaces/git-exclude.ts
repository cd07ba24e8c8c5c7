// Paths a repository ignores through its own `info/exclude`: read by every worktree, never listed as a change.

import { appendFileSync, existsSync, mkdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { gitFoldersOf } from "./git-metadata.js";

/**
 * Adds `patterns` under the comment `heading` to `info/exclude` of the repository at `root`, once
 * (a file holding `heading` is left as it is); nothing where `root` is no checkout.
 */
export function excludeInRepository(root: string, heading: string, patterns: readonly string[]): void {
	const folders = gitFoldersOf(root);
	if (folders === undefined) return;
	const exclude = join(folders.commonDir, "info", "exclude");
	const text = existsSync(exclude) ? readFileSync(exclude, "utf8") : "";
	if (text.includes(heading)) return;
	try {
		mkdirSync(dirname(exclude), { recursive: true });
		appendFileSync(exclude, `${text === "" || text.endsWith("\n") ? "" : "\n"}${heading}\n${patterns.join("\n")}\n`);
	} catch (error) {
		// A git folder crew may not write (another user's, a read-only mount) leaves the paths
		// listed by git status there, which is no reason to refuse the command.
		const code = (error as NodeJS.ErrnoException).code;
		if (code !== "EACCES" && code !== "EROFS" && code !== "EPERM") throw error;
	}
}
