// The CLI commands of specs: `spec import|list|show|rm`.

import type { Command } from "commander";

/** The commands of specs; what they need loads when one runs. */
export function specCommands(cli: Command, exit: (code: Promise<number>) => Promise<void>): void {
	const commands = () => import("./spec-command.js");
	const spec = cli
		.command("spec")
		.description("specs: requirements with acceptance checks that steps name (pi-crew's SpecRecord)");
	spec
		.command("import")
		.description("make a SpecRecord JSON file one of your own specs for this repository, trusted as it is now")
		.argument("<file>", "the SpecRecord's JSON file")
		.option("--json", "print the imported spec as JSON")
		.action(async (file: string, flags: { json?: boolean }) => exit((await commands()).importSpec(file, flags)));
	spec
		.command("list")
		.description("this repository's specs: yours (imported) and those in its .crew/state/specs")
		.option("--json", "print them as JSON")
		.action(async (flags: { json?: boolean }) => exit((await commands()).listSpecs(flags)));
	spec
		.command("show")
		.description("a spec's requirements and acceptance checks, and whether it is trusted")
		.argument("<id>")
		.option("--json", "print it as JSON")
		.action(async (id: string, flags: { json?: boolean }) => exit((await commands()).showSpec(id, flags)));
	spec
		.command("rm")
		.description("remove one of your specs from this repository's")
		.argument("<id>")
		.action(async (id: string) => exit((await commands()).removeSpec(id)));
}
