#!/usr/bin/env node
import module from "node:module";

// Node 22.1 and later keep the compiled code of crew's modules between runs (a no-op before).
module.enableCompileCache?.();

// The CLI runs from its bundle (dist/cli/, built by `npm run build`); with --debug, stack traces
// name the lines of crew's sources through the bundle's source maps.
if (process.argv.includes("--debug")) process.setSourceMapsEnabled(true);

// `--version` reads package.json and loads nothing; the plain forms of the read commands run
// without loading the whole CLI.
const [, , first, ...rest] = process.argv;
if (rest.length === 0 && (first === "--version" || first === "-V")) {
	process.stdout.write(`${module.createRequire(import.meta.url)("../package.json").version}\n`);
} else {
	const started = performance.now();
	const { quick, phaseSince } = await import("../dist/cli/quick.js");
	phaseSince("load the CLI's first modules", started);
	const answer = quick(process.argv);
	if (answer) {
		process.exitCode = await answer;
	} else {
		const loading = performance.now();
		const { main } = await import("../dist/cli/main.js");
		phaseSince("load the command line's parser", loading);
		process.exitCode = await main(process.argv);
	}
}
