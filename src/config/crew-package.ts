// The folder of crew's own package and the paths of its files, found from wherever this module runs.

import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { CrewError, ErrorCode } from "../core/errors.js";

/**
 * The folder of crew's own package (its package.json, bin/, builtin/, dashboard/): the nearest
 * folder above this module that has a package.json. This module sits at a different depth in the
 * tsc output (dist/config/), the bundle (dist/cli/) and the sources (src/config/), none of which
 * has a package.json of its own, so every file of crew's is found from here rather than by a path
 * relative to the module that needs it.
 */
export function crewPackageDir(): string {
	const start = dirname(fileURLToPath(import.meta.url));
	for (let dir = start; ; dir = dirname(dir)) {
		if (existsSync(join(dir, "package.json"))) return dir;
		if (dirname(dir) === dir) {
			throw new CrewError(ErrorCode.NotFound, `crew's package.json is in no folder above ${start}; reinstall crew`);
		}
	}
}

/** A file or folder of crew's package, e.g. `crewPackagePath("bin", "crew.js")`. */
export function crewPackagePath(...segments: readonly string[]): string {
	return join(crewPackageDir(), ...segments);
}

/** crew's version, from its package.json. */
export function crewVersion(): string {
	return (JSON.parse(readFileSync(crewPackagePath("package.json"), "utf8")) as { version: string }).version;
}
