import { resolve } from "node:path";
import { defineConfig } from "rolldown";

const QUICK = resolve("src/adapters/cli/quick.ts");
const READS = [resolve("src/adapters/cli/read-commands.ts"), resolve("src/adapters/cli/outcome.ts")];

/**
 * better-sqlite3 finds its native addon through the `bindings` package, which looks next to the
 * calling file (`__filename`, undefined in an ES module bundle). In the bundle, `bindings` is
 * this: the addon where better-sqlite3 builds or installs it, resolved from the bundle's folder as
 * Node resolves any package. Bundled, better-sqlite3's JavaScript loads in a fraction of the time.
 */
const betterSqlite3Addon = {
	name: "better-sqlite3-addon",
	resolveId(id) {
		return id === "bindings" ? "\0better-sqlite3-addon" : null;
	},
	load(id) {
		if (id !== "\0better-sqlite3-addon") return null;
		return 'module.exports = (name) => require(`better-sqlite3/build/Release/${name}`);';
	},
};

/**
 * What the read commands (`crew status`, `runs`, `events`, ...) run, in one chunk: read-commands.ts,
 * outcome.ts and every module they import statically, but for those the first step of the CLI (quick.ts)
 * imports itself. A command's start pays for each module it loads, and these would otherwise come
 * in a dozen chunks shared with other commands.
 */
function readsChunk() {
	let members;
	const reach = (ctx, from, into) => {
		if (into.has(from)) return;
		into.add(from);
		for (const id of ctx.getModuleInfo(from)?.importedIds ?? []) reach(ctx, id, into);
	};
	return (moduleId, ctx) => {
		if (!members) {
			const ids = [...ctx.getModuleInfo(QUICK)?.importedIds ?? []];
			const quick = new Set();
			for (const id of ids) reach(ctx, id, quick);
			members = new Set();
			for (const id of READS) reach(ctx, id, members);
			for (const id of quick) members.delete(id);
		}
		return members.has(moduleId) ? "reads" : null;
	};
}

/**
 * crew's CLI as an ES module bundle in dist/cli/ (bin/crew.js runs it), built from the sources
 * after `tsc` checked them; each command's modules stay in chunks loaded on use, with source maps
 * that `--debug` turns on. Left out, and loaded from node_modules: packages that find files of
 * their own next to their modules (jiti's transpiler, bullmq's msgpackr addon) and ioredis, which
 * only queue runs load.
 */
export default defineConfig({
	input: { quick: QUICK, main: "src/adapters/cli/main.ts" },
	platform: "node",
	external: ["jiti", "bullmq", "ioredis"],
	resolve: {
		extensionAlias: { ".js": [".ts", ".js"] },
		// yaml's ES module build: the same parser as its CommonJS one, without a wrapper per module.
		alias: { yaml: resolve("node_modules/yaml/browser/index.js") },
	},
	plugins: [betterSqlite3Addon],
	output: {
		dir: "dist/cli",
		format: "esm",
		sourcemap: true,
		entryFileNames: "[name].js",
		chunkFileNames: "[name]-[hash].js",
		cleanDir: true,
		codeSplitting: { includeDependenciesRecursively: false, groups: [{ name: readsChunk() }] },
	},
});
