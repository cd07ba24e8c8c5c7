// The starter team, agents and workflow `crew init` copies into a repository's `.crew/`.

import { copyFileSync, existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { builtinDir } from "../../config/resource-layers.js";

/**
 * Copies crew's starter team, its agents and workflow (`builtin/starter/`) into `crewDir`; a file
 * that exists is kept as it is, never overwritten.
 */
export function writeStarter(crewDir: string): { written: string[]; kept: string[] } {
	const source = join(builtinDir(), "starter");
	const written: string[] = [];
	const kept: string[] = [];
	for (const folder of ["agents", "teams", "workflows"]) {
		for (const name of readdirSync(join(source, folder)).sort()) {
			const target = join(crewDir, folder, name);
			if (existsSync(target)) kept.push(target);
			else {
				copyFileSync(join(source, folder, name), target);
				written.push(target);
			}
		}
	}
	return { written, kept };
}
