// npm's prepare step: builds dist/ from the TypeScript sources, or says what to run first.

/**
 * `npm install -g .` in a clone links the clone and runs this there, with whatever the clone
 * has installed: without its development packages (TypeScript, rolldown) there is nothing to
 * build with, so it says so in one line instead of failing on a missing `tsc`.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(fileURLToPath(new URL("..", import.meta.url)));
const needed = ["typescript", "rolldown"].filter((name) => !existsSync(join(ROOT, "node_modules", name, "package.json")));
if (needed.length > 0) {
	console.error(
		`crew is built from its sources with ${needed.join(" and ")}, which are not installed in ${ROOT}: run npm ci there first, then install again`,
	);
	process.exit(1);
}
const build = spawnSync("npm", ["run", "build"], { cwd: ROOT, stdio: "inherit" });
process.exit(build.status ?? 1);
