#!/usr/bin/env node
import module from "node:module";

// Node 22.1 and later keep the compiled code of crew's modules between runs (a no-op before).
module.enableCompileCache?.();

const { asksOnlyVersion, version } = await import("../dist/adapters/cli/version.js");
if (asksOnlyVersion(process.argv.slice(2))) {
	process.stdout.write(`${version()}\n`);
} else {
	const { main } = await import("../dist/adapters/cli/main.js");
	process.exitCode = await main(process.argv);
}
