import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Victim } from "../attacks/attacker.js";
import { packTarball } from "./registry.js";

/** A package of the local registry's, which the project depends on by version. */
export const PAD = {
	name: "honest-pad",
	version: "1.0.0",
	files: { "index.js": "module.exports = (text, width) => String(text).padStart(width, '0');\n" },
};

/** A package the project keeps as a tarball of its own, depended on by path. */
const UTIL = {
	name: "honest-util",
	version: "1.0.0",
	files: { "index.js": "module.exports = { twice: (x) => x * 2 };\n" },
};

/**
 * A Node project in `machine`'s repository, as a developer keeps one: its registry (a mirror on
 * 127.0.0.1) named in its `.npmrc`, a dependency from there and one from a tarball it keeps, and
 * tests that use both; committed.
 */
export function nodeProject(machine: Victim, registry: string): void {
	const { repo } = machine;
	const manifest = {
		name: "app",
		version: "1.0.0",
		private: true,
		dependencies: { "honest-pad": "1.0.0", "honest-util": "file:vendor/honest-util-1.0.0.tgz" },
		scripts: { test: "node test.js" },
	};
	writeFileSync(join(repo, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
	writeFileSync(join(repo, ".npmrc"), `registry=${registry}\n`);
	writeFileSync(join(repo, ".gitignore"), "node_modules/\n");
	writeFileSync(
		join(repo, "test.js"),
		[
			'const assert = require("node:assert");',
			'const pad = require("honest-pad");',
			'const { twice } = require("honest-util");',
			'assert.strictEqual(pad(twice(21), 4), "0042");',
			'console.log("tests passed");',
			"",
		].join("\n"),
	);
	mkdirSync(join(repo, "vendor"), { recursive: true });
	packTarball(UTIL, join(repo, "vendor", "honest-util-1.0.0.tgz"));
	machine.git(["add", "-A"]);
	machine.git(["commit", "-q", "-m", "a node project"]);
}

/** The developer's own npm cache, with an entry from earlier work: what no attempt may write to. */
export function userNpmCache(home: string): string {
	const cache = join(home, ".npm");
	mkdirSync(join(cache, "_cacache", "index-v5", "00"), { recursive: true });
	writeFileSync(join(cache, "_cacache", "index-v5", "00", "earlier"), "an entry from the developer's own work\n");
	return cache;
}
