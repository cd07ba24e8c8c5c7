import { defineConfig } from "rolldown";

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
 * crew's CLI as an ES module bundle in dist/cli/ (bin/crew.js runs it), built from the sources
 * after `tsc` checked them; each command's modules stay in chunks loaded on use, with source maps
 * that `--debug` turns on. Left out, and loaded from node_modules: packages that find files of
 * their own next to their modules (jiti's transpiler, bullmq's msgpackr addon) and ioredis, which
 * only queue runs load.
 */
export default defineConfig({
	input: { version: "src/adapters/cli/version.ts", main: "src/adapters/cli/main.ts" },
	platform: "node",
	external: ["jiti", "bullmq", "ioredis"],
	resolve: { extensionAlias: { ".js": [".ts", ".js"] } },
	plugins: [betterSqlite3Addon],
	output: {
		dir: "dist/cli",
		format: "esm",
		sourcemap: true,
		entryFileNames: "[name].js",
		chunkFileNames: "[name]-[hash].js",
		cleanDir: true,
	},
});
