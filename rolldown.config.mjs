import { defineConfig } from "rolldown";

/**
 * crew's CLI as one ES module bundle in dist/cli/ (bin/crew.js runs it), built from the sources
 * after `tsc` checked them; each command's modules stay in chunks loaded on use. Left out, and
 * loaded from node_modules: packages that find files of their own next to their modules (the
 * native addons of better-sqlite3 and of bullmq's msgpackr, jiti's transpiler) and ioredis, which
 * only a queue run loads.
 */
export default defineConfig({
	input: { version: "src/adapters/cli/version.ts", main: "src/adapters/cli/main.ts" },
	platform: "node",
	external: ["better-sqlite3", "jiti", "bullmq", "ioredis"],
	resolve: { extensionAlias: { ".js": [".ts", ".js"] } },
	output: {
		dir: "dist/cli",
		format: "esm",
		sourcemap: true,
		entryFileNames: "[name].js",
		chunkFileNames: "[name]-[hash].js",
		cleanDir: true,
	},
});
