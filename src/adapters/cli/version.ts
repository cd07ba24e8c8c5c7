import { readFileSync } from "node:fs";
import { crewPackagePath } from "../../config/crew-package.js";

/** crew's version, from its package.json. */
export function version(): string {
	const pkg = JSON.parse(readFileSync(crewPackagePath("package.json"), "utf8")) as {
		version: string;
	};
	return pkg.version;
}

/** Whether `args` (argv after the script) ask only for the version, which needs none of the CLI. */
export function asksOnlyVersion(args: readonly string[]): boolean {
	return args.length === 1 && (args[0] === "--version" || args[0] === "-V");
}
