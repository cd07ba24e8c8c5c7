// Fetches the programs only the tests use (pi 1.x and the Node 22 it needs) into tools/pi1, and npm's metadata.

/**
 * pi 1.x needs Node 22, and neither belongs in what `npm ci` or a user's install brings: the test
 * commands fetch them here, from tools/pi1's own lockfile, when what is installed is not what the
 * lockfile names. A vitest global setup (every vitest run) and a script (`node
 * test/setup/test-tools.mjs`, which test/node22.mjs runs first).
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ensureRegistryMetadata } from "./npm-metadata.mjs";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const TOOLS = join(ROOT, "tools", "pi1");

/** The packages tools/pi1's lockfile names whose installed version differs or is missing. */
function stale() {
	const lock = JSON.parse(readFileSync(join(TOOLS, "package-lock.json"), "utf8"));
	const wanted = Object.keys(lock.packages[""].dependencies ?? {});
	return wanted.filter((name) => {
		const manifest = join(TOOLS, "node_modules", name, "package.json");
		if (!existsSync(manifest)) return true;
		return JSON.parse(readFileSync(manifest, "utf8")).version !== lock.packages[`node_modules/${name}`]?.version;
	});
}

export function ensureTestTools() {
	const missing = stale();
	if (missing.length === 0) return;
	console.log(`fetching the test-only tools into tools/pi1 (${missing.join(", ")})`);
	execFileSync("npm", ["ci", "--no-audit", "--no-fund", "--loglevel=error"], {
		cwd: TOOLS,
		stdio: "inherit",
		// An install started by npm (npm test, npm install -g) passes its own settings down: global
		// among them, which npm ci refuses.
		env: Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith("npm_config_"))),
	});
}

/**
 * The vitest global setup: the test tools, and what the install tests need in npm's cache, whose
 * presence they read as `inject("npmInstallsOffline")`.
 */
export default function setup(project) {
	ensureTestTools();
	project.provide("npmInstallsOffline", ensureRegistryMetadata());
}

if (process.argv[1] === fileURLToPath(import.meta.url)) ensureTestTools();
