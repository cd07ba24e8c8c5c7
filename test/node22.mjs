/**
 * The tests whose behaviour depends on the Node version (those tagged node22: see
 * test/setup/tags.ts), again on the Node 22 of tools/pi1: `node test/node22.mjs [vitest options]`.
 * crew's SQLite binding for that Node is built once (test/setup/node22-binding.mjs); the running
 * Node's binding is put back afterwards, whatever the tests did.
 */
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { BINDING, keptBinding, NODE22, NODE22_HOME, node22Binding, place } from "./setup/node22-binding.mjs";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const theirs = node22Binding();
const ours = keptBinding(process.versions.modules);
mkdirSync(dirname(ours), { recursive: true });
copyFileSync(BINDING, ours);
let status = 1;
try {
	place(theirs, BINDING);
	const env = { ...process.env, CREW_TEST_TIER: "node22", PATH: `${join(NODE22_HOME, "bin")}:${process.env.PATH}` };
	const vitest = join(ROOT, "node_modules", "vitest", "vitest.mjs");
	status =
		spawnSync(NODE22, [vitest, "run", ...process.argv.slice(2)], { stdio: "inherit", env, cwd: ROOT }).status ?? 1;
} finally {
	place(ours, BINDING);
}
process.exit(status);
