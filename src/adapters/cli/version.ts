// The version of crew, as its package.json gives it.

import { readFileSync } from "node:fs";
import { crewPackagePath } from "../../config/crew-package.js";

/** crew's version, from its package.json. */
export function version(): string {
	const pkg = JSON.parse(readFileSync(crewPackagePath("package.json"), "utf8")) as {
		version: string;
	};
	return pkg.version;
}
