// Refusal of a crew store that git tracks, since one that came with the repository holds another's records.

import { relative } from "node:path";
import { CrewError, ErrorCode } from "../core/errors.js";
import { gitRunSync } from "./git.js";
import { indexSurelyLacks } from "./git-surfaces/index-paths.js";

/**
 * Refuses a store that git tracks in `root`: one that came with the repository holds another's
 * records (runs, specs, command lines), and crew only writes to and runs from a store it made
 * here. Reading it (status, events, results) stays possible, as reading runs nothing.
 */
export function refuseTrackedStore(root: string, dbFile: string): void {
	const path = relative(root, dbFile);
	if (indexSurelyLacks(root, path)) return;
	// Not tracked: git says so with a failure, as it does outside a repository or without git.
	if (gitRunSync(root, ["ls-files", "--error-unmatch", "--", path]).code !== 0) return;
	throw new CrewError(
		ErrorCode.Conflict,
		`${path} is tracked by git, so it came with the repository, not from crew here: crew does not write to or run from it. Remove it from git (git rm --cached ${path}) and move it away, then run crew again`,
	);
}
